# PyTorch mirror of chapter 07's pipeline (torch.distributed.pipelining, gloo, CPU).
#
# Mirrors chapters/ch07-pipeline/src/stage_model.rs (embed 20d -> width, `depth` residual
# blocks x + fc2(relu(fc1(x))), head width -> (d+1) x 10, fc2 scaled by 0.1/sqrt(depth)),
# chapters/ch07-pipeline/src/addition.rs (two d-digit operands one-hot, answer d+1 digits)
# and chapters/ch07-pipeline/src/pipe_config.rs (batch, m micro-batches, Adam lr 2e-3, an
# even cut of the blocks: toolkit::split::block_range). Part of `make anchors`
# (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/pipe_mlp.py --schedule 1f1b --width 96
# `--schedule interleaved --chunks V` gives each rank V stages (stage c*p + rank, as
# chapters/ch07-pipeline/src/chunked_train.rs does) under ScheduleInterleaved1F1B.
# Prints `RATE <samples/s>` (the last stage, over the timed steps) on the last rank.
# Started without torchrun it is one process: the whole model on one device, each step one
# forward and backward of the whole batch, eager (PyTorch's way to train this model on one
# GPU), the anchor the GPU kit (scripts/gpu-kit/run.sh) puts next to chapter 07, e.g.
#   python3 scripts/anchors/pipe_mlp.py --device cuda --steps 300

import argparse
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.pipelining import (PipelineStage, Schedule1F1B, ScheduleGPipe,
                                          ScheduleInterleaved1F1B)

import gloo


class Block(nn.Module):
    """One residual block: x + fc2(relu(fc1(x))) (stage_model.rs)."""

    def __init__(self, width, depth):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        with torch.no_grad():  # each block starts close to the identity
            self.fc2.weight.mul_(0.1 / depth**0.5)

    def forward(self, x):
        return x + self.fc2(F.relu(self.fc1(x)))


class Stage(nn.Module):
    """Blocks `lo..hi` of the model, with embed on the first stage and head on the last."""

    def __init__(self, digits, width, depth, lo, hi, first, last):
        super().__init__()
        self.embed = nn.Linear(20 * digits, width) if first else None
        self.blocks = nn.Sequential(*[Block(width, depth) for _ in range(lo, hi)])
        self.head = nn.Linear(width, (digits + 1) * 10) if last else None
        self.answer = digits + 1

    def forward(self, x):
        h = self.embed(x) if self.embed is not None else x
        h = self.blocks(h)
        if self.head is not None:
            return self.head(h).view(-1, self.answer, 10)
        return h


def block_range(n, parts, i):
    """toolkit::split::block_range: the first n % parts parts get one more."""
    base, extra = divmod(n, parts)
    lo = i * base + min(i, extra)
    return lo, lo + base + (1 if i < extra else 0)


def batch(rng, digits, n, dtype):
    """n training problems (a + b, never (a + b) % 7 == 0), encoded as addition.rs does."""
    limit = 10**digits
    a = rng.integers(0, limit, 2 * n)
    b = rng.integers(0, limit, 2 * n)
    keep = (a + b) % 7 != 0
    a, b = a[keep][:n], b[keep][:n]
    x = np.zeros((n, 20 * digits), dtype=np.float64)
    rows = np.arange(n)
    for k in range(digits):
        x[rows, k * 10 + (a // 10**k) % 10] = 1.0
        x[rows, (digits + k) * 10 + (b // 10**k) % 10] = 1.0
    y = np.stack([((a + b) // 10**k) % 10 for k in range(digits + 1)], axis=1)
    return torch.from_numpy(x).to(dtype), torch.from_numpy(y.astype(np.int64))


def loss_fn(logits, targets):
    return F.cross_entropy(logits.reshape(-1, 10), targets.reshape(-1))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--schedule", choices=["1f1b", "gpipe", "interleaved"], default="1f1b")
    ap.add_argument("--chunks", type=int, default=2, help="stages per rank (interleaved)")
    ap.add_argument("--digits", type=int, default=3)
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--micro", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--dtype", choices=["f32", "f64"], default="f32")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = ap.parse_args()

    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: torch sees no CUDA device")
    dtype = torch.float32 if args.dtype == "f32" else torch.float64
    if os.environ.get("WORLD_SIZE") is None:
        return alone(args, dtype)
    if args.device != "cpu":
        ap.error("under torchrun this mirror runs on the CPU (gloo); --device cuda is one process")
    rank, p = gloo.start()
    torch.manual_seed(7)
    device = torch.device("cpu")
    v = args.chunks if args.schedule == "interleaved" else 1
    ids = [c * p + rank for c in range(v)]  # this rank's stages, of v * p
    modules = [Stage(args.digits, args.width, args.depth, *block_range(args.depth, v * p, s),
                     s == 0, s == v * p - 1).to(dtype) for s in ids]
    stages = [PipelineStage(mod, s, v * p, device) for mod, s in zip(modules, ids)]
    if v > 1:
        schedule = ScheduleInterleaved1F1B(stages, n_microbatches=args.micro, loss_fn=loss_fn)
    else:
        kind = Schedule1F1B if args.schedule == "1f1b" else ScheduleGPipe
        schedule = kind(stages[0], n_microbatches=args.micro, loss_fn=loss_fn)
    first, last = 0 in ids, v * p - 1 in ids
    opt = torch.optim.Adam([q for mod in modules for q in mod.parameters()], lr=args.lr)
    rng = np.random.default_rng(7)  # every rank draws the same batches

    def step():
        x, y = batch(rng, args.digits, args.batch, dtype)
        opt.zero_grad()
        inputs = (x,) if first else ()
        targets = dict(target=y, losses=[]) if last else {}
        schedule.step(*inputs, **targets)
        opt.step()

    for _ in range(args.warmup):
        step()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    wall = time.perf_counter() - start
    if last:
        print(f"RATE {args.steps * args.batch / wall:.1f}", flush=True)
    gloo.leave()


def alone(args, dtype):
    """One process, the whole model on `args.device`: warm-up, then RATE over the timed
    steps (the same batches, model, Adam and loss as the pipeline)."""
    torch.manual_seed(7)
    device = torch.device(args.device)
    model = Stage(args.digits, args.width, args.depth, 0, args.depth, True, True)
    model = model.to(dtype).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = np.random.default_rng(7)

    def step():
        x, y = batch(rng, args.digits, args.batch, dtype)
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    print(f"RATE {args.steps * args.batch / (time.perf_counter() - start):.1f}", flush=True)


if __name__ == "__main__":
    main()
