# PyTorch mirror of chapter 08's `zero` lab: ZeRO-1 (DistributedDataParallel with
# torch.distributed.optim.ZeroRedundancyOptimizer over Adam) or FSDP2 (`fully_shard` on
# each layer and on the model, reshard_after_forward=False: parameters gathered once per
# step, gradients reduce-scattered, Adam on the shard: ZeRO-2's traffic), gloo, CPU.
#
# Mirrors chapters/ch08-sharded/src/train.rs: chapter 6's CNN and digits (ddp_cnn.py's
# copies), each epoch's order from shuffle::shuffled(seed, epoch), global batches of 48
# cut in order, each rank its strided part, mean cross-entropy, Adam lr 0.001; an epoch's
# wall time from its first step to its last, the slowest rank's. Part of `make anchors`
# (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/zero_cnn.py --mode zero1 --epochs 8
# Prints `EPOCH <n> <samples/s>` per epoch on rank 0.

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel

import gloo
from ddp_cnn import Cnn, digits, shuffled


def build(mode):
    """The model and its optimizer, sharded the `mode` way."""
    if mode == "zero1":
        model = DistributedDataParallel(Cnn())  # broadcasts rank 0's parameters
        opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=1e-3)
        return model, opt
    model = Cnn()
    for layer in [model.conv1, model.conv2, model.fc1, model.out]:
        fully_shard(layer, reshard_after_forward=False)
    fully_shard(model, reshard_after_forward=False)
    return model, torch.optim.Adam(model.parameters(), lr=1e-3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["zero1", "fsdp2"], required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=48, help="global batch")
    ap.add_argument("--seed", type=int, default=8)
    args = ap.parse_args()

    rank, ranks = gloo.start()
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../data")
    images, labels = digits(data)
    torch.manual_seed(args.seed)
    model, opt = build(args.mode)
    steps = len(labels) // args.batch
    orders = [shuffled(len(labels), args.seed, e) for e in range(args.epochs)]
    for epoch, order in enumerate(orders):
        start = time.perf_counter()
        for k in range(steps):
            mine = order[k * args.batch : (k + 1) * args.batch][rank::ranks]
            idx = torch.tensor(mine)
            x, y = images.index_select(0, idx), labels.index_select(0, idx)
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()  # averaged over the ranks
            opt.step()
        wall = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.all_reduce(wall, op=dist.ReduceOp.MAX)
        if rank == 0:
            print(f"EPOCH {epoch + 1} {steps * args.batch / wall.item():.1f}", flush=True)
    gloo.leave()


if __name__ == "__main__":
    main()
