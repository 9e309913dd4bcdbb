# PyTorch mirror of chapter 09's tensor-parallel block (torch.distributed.tensor.parallel,
# gloo, CPU).
#
# Mirrors chapters/ch09-tensor-parallel/src/reference.rs and ops.rs (the pre-norm block
# h = x + attention(ln1(x)), h + mlp(ln2(h)); causal attention; the exact GeLU; an MLP of
# 4 x hidden; layer norms with eps 1e-5) and src/bin/tp_bench.rs (one block's forward and
# backward with a given output gradient, f32, one thread per rank, the mean over the timed
# steps after 2 warm-up steps, the slowest rank's). PyTorch splits it as chapter 09 does,
# Megatron's layout: Q, K and V fused in one linear layer and the MLP's first layer
# ColwiseParallel, the output projection and the MLP's second layer RowwiseParallel, so
# that a block makes Megatron's four allreduces (two forward, two backward; three
# separate ColwiseParallel Q, K, V would allreduce the input's gradient three times).
# Part of `make anchors` (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/tp_block.py --hidden 256 --heads 8
# Prints `MS <milliseconds per forward + backward>` and `COLLECTIVES <n>` (one forward and
# backward's, counted by torch's CommDebugMode) on rank 0.

import argparse
import math
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                               parallelize_module)

import gloo


class Block(nn.Module):
    """The pre-norm block of reference.rs; each rank's attention works on the heads its
    columns of the fused Q, K, V layer hold (head_dim features each of Q, K and V)."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.head_dim = hidden // heads
        self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.o = nn.Linear(hidden, hidden)
        self.fc1, self.fc2 = nn.Linear(hidden, 4 * hidden), nn.Linear(4 * hidden, hidden)

    def attention(self, x):
        b, s, _ = x.shape
        split = lambda t: t.view(b, s, -1, self.head_dim).transpose(1, 2)
        q, k, v = (split(t) for t in self.qkv(x).chunk(3, dim=-1))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        future = torch.ones(s, s, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.o((weights @ v).transpose(1, 2).reshape(b, s, -1))

    def forward(self, x):
        h = x + self.attention(self.ln1(x))
        return h + self.fc2(F.gelu(self.fc1(self.ln2(h))))


def block_plan(prefix=""):
    """Megatron's layout of one block for parallelize_module."""
    plan = {prefix + name: ColwiseParallel() for name in ["qkv", "fc1"]}
    plan.update({prefix + name: RowwiseParallel() for name in ["o", "fc2"]})
    return plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rank, ranks = gloo.start()
    torch.set_num_threads(1)  # as tp_bench: one thread per rank
    torch.manual_seed(7)
    block = Block(args.hidden, args.heads)
    mesh = init_device_mesh("cpu", (ranks,))
    parallelize_module(block, mesh, block_plan())
    x = torch.randn(args.batch, args.seq, args.hidden)
    dy = torch.randn(args.batch, args.seq, args.hidden)

    def step():
        block.zero_grad(set_to_none=True)
        block(x).backward(dy)

    step()
    with CommDebugMode() as comm:  # the second step, counted
        step()
    if rank == 0:
        print(f"COLLECTIVES {comm.get_total_counts()}", flush=True)
    best = math.inf
    for _ in range(args.rounds):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            step()
        ms = torch.tensor([1e3 * (time.perf_counter() - t0) / args.steps])
        dist.all_reduce(ms, op=dist.ReduceOp.MAX)  # the slowest rank's
        best = min(best, ms.item())
    if rank == 0:
        print(f"MS {best:.4f}", flush=True)
    gloo.leave()


if __name__ == "__main__":
    main()
