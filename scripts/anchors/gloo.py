# The start and the end every PyTorch mirror of `make anchors` shares (ddp_cnn.py,
# pipe_mlp.py): a gloo process group under torchrun, threads per rank = cores / ranks as
# our trainers place them (trainer_kit::place), and a clean exit.

import os
import sys

import torch
import torch.distributed as dist


def start():
    """Joins the gloo group torchrun describes; (rank, ranks)."""
    dist.init_process_group("gloo")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // ranks))
    return rank, ranks


def leave():
    """Waits for every rank, then exits without tearing gloo down: its teardown at exit
    aborts now and then in torch 2.11 ("terminate called without an active exception"),
    after the figures are out."""
    dist.barrier()
    sys.stdout.flush()
    os._exit(0)
