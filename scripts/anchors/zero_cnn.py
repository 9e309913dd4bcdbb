# PyTorch mirror of chapter 08's `zero` lab, set up as PyTorch's documentation recommends:
# ZeRO-1 is DistributedDataParallel with torch.distributed.optim.ZeroRedundancyOptimizer
# over Adam, its parameters packed in bucket views (`parameters_as_bucket_view=True`: one
# broadcast per bucket, not one per parameter); FSDP2 is `fully_shard` on the model alone
# (one parameter group, as ours shards one flat buffer), reshard_after_forward=False
# (parameters gathered once per step, gradients reduce-scattered, Adam on the shard:
# ZeRO-2's traffic). Adam with foreach=True on both. gloo, CPU.
#
# Mirrors chapters/ch08-sharded/src/train.rs: chapter 6's CNN (or cnn:K) and digits
# (ddp_cnn.py's copies), each epoch's order from shuffle::shuffled(seed, epoch), global
# batches of 48 cut in order, each rank its strided part, mean cross-entropy, Adam lr
# 0.001; an epoch's wall time from its first step to its last, the slowest rank's. Part of
# `make anchors` (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/zero_cnn.py --mode zero1 --epochs 8
# Prints `EPOCH <n> <samples/s>` per epoch and `COLLECTIVES <n>` (one step's, counted by
# torch's CommDebugMode) on rank 0. `--mode alone --like N`, without torchrun: one process
# does one rank's share of each global batch (1/N of it) with plain Adam and no
# communication, and counts samples/s as N such ranks would: the speed the distributed
# runs would have if communication cost nothing.

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.distributed.tensor.debug import CommDebugMode
from torch.nn.parallel import DistributedDataParallel

import gloo
from ddp_cnn import Cnn, digits, shuffled, width


def build(mode, k):
    """The model and its optimizer, sharded the `mode` way."""
    adam = dict(lr=1e-3, foreach=True)
    if mode == "alone":
        model = Cnn(k)
        return model, torch.optim.Adam(model.parameters(), **adam)
    if mode == "zero1":
        model = DistributedDataParallel(Cnn(k))  # broadcasts rank 0's parameters
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam,
                                      parameters_as_bucket_view=True, **adam)
        return model, opt
    model = Cnn(k)
    fully_shard(model, reshard_after_forward=False)
    return model, torch.optim.Adam(model.parameters(), **adam)


def step(model, opt, x, y):
    """One training step: the gradients averaged over the ranks, then Adam."""
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["zero1", "fsdp2", "alone"], required=True)
    ap.add_argument("--like", type=int, default=2, help="--mode alone: the ranks it stands for")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=48, help="global batch")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--model", default="cnn", help="cnn or cnn:K (K times wider)")
    args = ap.parse_args()
    k = width(ap, args.model)

    alone = args.mode == "alone"
    if alone:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // args.like))  # as gloo.start
    rank, ranks = (0, args.like) if alone else gloo.start()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../data")
    images, labels = digits(data)
    torch.manual_seed(args.seed)
    model, opt = build(args.mode, k)
    steps = len(labels) // args.batch
    orders = [shuffled(len(labels), args.seed, e) for e in range(args.epochs)]
    for epoch, order in enumerate(orders):
        start = time.perf_counter()
        for s in range(steps):
            mine = order[s * args.batch : (s + 1) * args.batch][rank::ranks]
            idx = torch.tensor(mine)
            x, y = images.index_select(0, idx), labels.index_select(0, idx)
            if epoch == 0 and s == 1 and not alone:  # the second step (the first builds buckets)
                with CommDebugMode() as comm:
                    step(model, opt, x, y)
                if rank == 0:
                    print(f"COLLECTIVES {comm.get_total_counts()}", flush=True)
            else:
                step(model, opt, x, y)
        wall = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        if not alone:
            dist.all_reduce(wall, op=dist.ReduceOp.MAX)
        if rank == 0:
            print(f"EPOCH {epoch + 1} {steps * args.batch / wall.item():.1f}", flush=True)
    if not alone:
        gloo.leave()


if __name__ == "__main__":
    main()
