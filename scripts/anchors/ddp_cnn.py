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


def digits(root):
    """data::digits: the UCI digits, (N, 1, 8, 8) f32 in [0, 1], split 80/20."""
    with gzip.open(os.path.join(root, "data/digits/digits.csv.gz"), "rt") as f:
        rows = np.array([[float(v) for v in l.split(",")] for l in f if l.strip()])
    images = torch.from_numpy((rows[:, :64] / 16.0).astype(np.float32)).view(-1, 1, 8, 8)
    labels = torch.from_numpy(rows[:, 64].astype(np.int64))
    order = shuffled(len(labels), 2024, 0)
    train = torch.tensor(order[: len(order) - len(order) // 5])
    return images[train], labels[train]


class Cnn(nn.Module):
    """model::build(ModelKind::Cnn) for 8x8 images."""

    def __init__(self, h=8, w=8):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * (h // 2) * (w // 2), 64)
        self.out = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        x = F.max_pool2d(x, 2).flatten(1)
        return self.out(F.relu(self.fc1(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64, help="global batch")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args()

    rank, ranks = gloo.start()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
    images, labels = digits(root)
    torch.manual_seed(args.seed)
    model = DistributedDataParallel(Cnn())  # broadcasts rank 0's parameters
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    per_rank = args.batch // ranks
    # The epochs' orders first: the shuffle in pure Python is this mirror's bookkeeping,
    # not PyTorch's work (a PyTorch user's DistributedSampler shuffles in C++).
    orders = [rank_indices(shuffled(len(labels), args.seed, e), ranks, rank) for e in range(args.epochs)]
    for epoch, mine in enumerate(orders):
        start = time.perf_counter()
        steps = len(mine) // per_rank
        for k in range(steps):
            idx = torch.tensor(mine[k * per_rank : (k + 1) * per_rank])
            x, y = images.index_select(0, idx), labels.index_select(0, idx)
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()  # DDP averages the gradients
            opt.step()
        wall = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.all_reduce(wall, op=dist.ReduceOp.MAX)  # report::Timing::over_ranks(..).max
        if rank == 0:
            print(f"EPOCH {epoch + 1} {steps * args.batch / wall.item():.1f}", flush=True)
    gloo.leave()


if __name__ == "__main__":
    main()
