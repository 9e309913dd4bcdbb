# PyTorch mirror of chapter 06's data-parallel trainer (DistributedDataParallel, gloo, CPU).
#
# Mirrors chapters/ch06-data-parallel/src/model.rs (the CNN: conv 3x3 16, conv 3x3 32,
# max-pool 2, dense 64, 10), chapters/ch06-data-parallel/src/data.rs (the shipped UCI
# digits, pixels / 16, a fixed shuffle with seed 2024, the last 20% for test),
# chapters/ch06-data-parallel/src/shuffle.rs and sampler.rs (each epoch's order from
# SplitMix64(seed, epoch), strided over the ranks, padded) and src/train.rs (global batch
# split over the ranks, mean cross-entropy, SGD with momentum, the epoch's wall time from
# its first step to its last, without the evaluation). Part of `make anchors`
# (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/ddp_cnn.py --epochs 8
# Prints `EPOCH <n> <samples/s>` per epoch on rank 0.
# Started without torchrun it is one process, no process group and no DDP: PyTorch eager
# on one device, the anchor the GPU kit (scripts/gpu-kit/run.sh) puts next to chapter 06
# at 1 rank, e.g. (the kit's GPU-sized run):
#   python3 scripts/anchors/ddp_cnn.py --device cuda --model cnn:8 --batch 1024 --epochs 10
# With `--like N` that one process does one rank's share of each global batch (1/N of it)
# and counts samples/s as N such ranks would: DDP's speed if communication cost nothing.

import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

import gloo

MASK = (1 << 64) - 1


def splitmix64(state):
    """trainer_kit::rng::SplitMix64: (new state, next value)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def shuffled(n, seed, epoch):
    """shuffle::shuffled: Fisher-Yates seeded by (seed, epoch)."""
    state = (seed ^ (epoch * 0xD1B54A32D192ED03)) & MASK
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state, r = splitmix64(state)
        j = r % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def rank_indices(order, ranks, rank):
    """sampler::rank_indices with Remainder::Pad: pad from the start, then strided."""
    short = (-len(order)) % ranks
    padded = order + order[:short]
    return padded[rank::ranks]


def digits(data):
    """data::digits: the UCI digits, (N, 1, 8, 8) f32 in [0, 1], split 80/20, from the
    folder `data` (the repository's data/, or the GPU kit's)."""
    with gzip.open(os.path.join(data, "digits/digits.csv.gz"), "rt") as f:
        rows = np.array([[float(v) for v in l.split(",")] for l in f if l.strip()])
    images = torch.from_numpy((rows[:, :64] / 16.0).astype(np.float32)).view(-1, 1, 8, 8)
    labels = torch.from_numpy(rows[:, 64].astype(np.int64))
    order = shuffled(len(labels), 2024, 0)
    train = torch.tensor(order[: len(order) - len(order) // 5])
    return images[train], labels[train]


class Cnn(nn.Module):
    """model::build(ModelKind::Cnn) for 8x8 images; k > 1: ModelKind::WideCnn(k), the
    channels and the dense width k times (16k, 32k, 64k)."""

    def __init__(self, k=1, h=8, w=8):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16 * k, 3, padding=1)
        self.conv2 = nn.Conv2d(16 * k, 32 * k, 3, padding=1)
        self.fc1 = nn.Linear(32 * k * (h // 2) * (w // 2), 64 * k)
        self.out = nn.Linear(64 * k, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        x = F.max_pool2d(x, 2).flatten(1)
        return self.out(F.relu(self.fc1(x)))


def width(ap, model):
    """K of `--model cnn:K` (1 for `cnn`), as chapter 6's ModelKind::parse reads it."""
    if model != "cnn" and not (model.startswith("cnn:") and model[4:].isdigit()
                               and int(model[4:]) >= 1):
        ap.error(f"unknown model {model} (expected cnn or cnn:K)")
    return int(model[4:]) if model.startswith("cnn:") else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64, help="global batch")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--model", default="cnn", help="cnn or cnn:K (K times wider)")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--data", help="the data folder (default: the repository's data/)")
    ap.add_argument("--like", type=int, default=1, help="alone: the ranks it stands for")
    args = ap.parse_args()
    k = width(ap, args.model)
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: torch sees no CUDA device")

    # Under torchrun: DDP over gloo; alone: one process, eager, no process group.
    together = os.environ.get("WORLD_SIZE") is not None
    rank, ranks = gloo.start() if together else (0, args.like)
    if not together:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // args.like))  # as gloo.start
    device = torch.device(args.device)
    here = os.path.dirname(os.path.abspath(__file__))
    images, labels = digits(args.data or os.path.join(here, "../../data"))
    images, labels = images.to(device), labels.to(device)
    torch.manual_seed(args.seed)
    model = Cnn(k).to(device)
    if together:
        model = DistributedDataParallel(model)  # broadcasts rank 0's parameters
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    per_rank = args.batch // ranks
    # The epochs' orders first: the shuffle in pure Python is this mirror's bookkeeping,
    # not PyTorch's work (a PyTorch user's DistributedSampler shuffles in C++).
    orders = [rank_indices(shuffled(len(labels), args.seed, e), ranks, rank) for e in range(args.epochs)]
    for epoch, mine in enumerate(orders):
        start = time.perf_counter()
        steps = len(mine) // per_rank
        for s in range(steps):
            idx = torch.tensor(mine[s * per_rank : (s + 1) * per_rank], device=device)
            x, y = images.index_select(0, idx), labels.index_select(0, idx)
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()  # DDP averages the gradients
            opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize()  # the epoch's work has run, not only been queued
        wall = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        if together:
            dist.all_reduce(wall, op=dist.ReduceOp.MAX)  # report::Timing::over_ranks(..).max
        if rank == 0:
            print(f"EPOCH {epoch + 1} {steps * args.batch / wall.item():.1f}", flush=True)
    if together:
        gloo.leave()


if __name__ == "__main__":
    main()
