# PyTorch mirror of chapter 09's GPT lab at dp 1 x tp T (torch.distributed.tensor.parallel,
# gloo, CPU).
#
# Mirrors chapters/ch09-tensor-parallel/src/gpt.rs (a token embedding tied to the head, a
# learned position embedding, `layers` pre-norm blocks, a final layer norm), corpus.rs (the
# book's pages from data/book-pages/pages.txt.gz, characters sorted into the vocabulary,
# nine tenths of each page for training, the windows of each step drawn by SplitMix64 from
# the seed and the step: the very batches the lab trains on) and gpt_lab.rs (Adam, f32,
# tokens/s over each window of --log-every steps, validation outside the timing). The block
# is tp_block.py's. PyTorch splits it as chapter 09 does: the embedding RowwiseParallel over
# the vocabulary (an allreduce forward), the blocks as tp_block.py, the head
# ColwiseParallel over the vocabulary with its logits left sharded and the cross-entropy
# computed on the shards (loss_parallel: no logits gathered), the head's weight the
# embedding's (tied, both sharded by vocabulary rows); Adam with foreach=True (one
# multi-tensor update per kind of tensor, not a loop over the parameters). Part of
# `make anchors` (scripts/anchors/anchors.py); alone:
#   torchrun --nproc-per-node=2 scripts/anchors/gpt.py --steps 300
# Prints `RATE <tokens/s>` for each window of --log-every steps on rank 0.

import argparse
import gzip
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Replicate, Shard
from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                               loss_parallel, parallelize_module)

import gloo
from tp_block import Block, block_plan

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
MASK = (1 << 64) - 1


def splitmix64(state):
    """trainer_kit::rng::SplitMix64: (the next 64 bits, the new state)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31), state


def book():
    """The training split of corpus.rs as token ids, and the vocabulary's size."""
    with gzip.open(os.path.join(ROOT, "data/book-pages/pages.txt.gz"), "rt", encoding="utf-8") as f:
        records = f.read().split("\x1e")[1:]
    pages = [r.split("\n", 1)[1] for r in records]
    chars = sorted(set("".join(pages)))
    index = {c: i for i, c in enumerate(chars)}
    train = []
    for text in pages:
        ids = [index[c] for c in text]
        train.extend(ids[: len(ids) * 9 // 10])
    return torch.tensor(train, dtype=torch.int64), len(chars)


def batch(ids, seed, step, rows, seq):
    """corpus.rs's Corpus::batch of the training split: `rows` windows of seq + 1."""
    state = seed ^ ((step * 0x9E3779B97F4A7C15) & MASK)
    span = len(ids) - seq - 1
    starts = []
    for _ in range(rows):
        r, state = splitmix64(state)
        starts.append(r % span)
    windows = torch.stack([ids[s : s + seq + 1] for s in starts])
    return windows[:, :-1], windows[:, 1:]


class Gpt(nn.Module):
    """gpt.rs's model: tok (tied to the head), pos, the blocks, the final norm."""

    def __init__(self, vocab, layers, hidden, heads, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Parameter(torch.randn(seq, hidden) * 0.02)
        self.blocks = nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.lnf = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.lnf(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--heads", type=int, default=6)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--log-every", type=int, default=100)
    args = ap.parse_args()
    rank, ranks = gloo.start()
    ids, vocab = book()
    torch.manual_seed(args.seed)
    model = Gpt(vocab, args.layers, args.hidden, args.heads, args.seq)
    nn.init.normal_(model.tok.weight, std=0.02)
    mesh = init_device_mesh("cpu", (ranks,))
    plan = {"tok": RowwiseParallel(input_layouts=Replicate()),
            "head": ColwiseParallel(output_layouts=Shard(-1), use_local_output=False)}
    for l in range(args.layers):
        plan.update(block_plan(f"blocks.{l}."))
    parallelize_module(model, mesh, plan)
    model.head.weight = model.tok.weight  # tied: both DTensors sharded by vocabulary rows
    # foreach Adam takes one kind of tensor per call: the sharded (DTensor) parameters and
    # the replicated ones (position embedding, layer norms) in two optimizers.
    groups = [[p for p in model.parameters() if isinstance(p, DTensor) == sharded]
              for sharded in (True, False)]
    opts = [torch.optim.Adam(g, lr=args.lr, foreach=True) for g in groups if g]
    tokens = args.batch * args.seq
    since = time.perf_counter()
    for step in range(1, args.steps + 1):
        x, y = batch(ids, args.seed, step, args.batch, args.seq)
        for opt in opts:
            opt.zero_grad(set_to_none=True)
        with loss_parallel():
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            loss.backward()
        for opt in opts:
            opt.step()
        if step % args.log_every == 0:
            rate = torch.tensor([tokens * args.log_every / (time.perf_counter() - since)])
            dist.all_reduce(rate, op=dist.ReduceOp.MIN)  # the slowest rank's
            if rank == 0:
                print(f"RATE {rate.item():.1f} loss {loss.full_tensor().item():.3f}", flush=True)
            since = time.perf_counter()
    gloo.leave()


if __name__ == "__main__":
    main()
