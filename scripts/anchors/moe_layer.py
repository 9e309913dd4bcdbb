# PyTorch mirror of chapter 11's Mixture-of-Experts layer trained in one process (CPU, f32).
#
# Mirrors chapters/ch11-experts/src/task.rs (SplitMix64, the clusters and their tokens),
# experts.rs (linear experts from a seed: the layer's start and the targets' maps),
# solutions/ch11-experts/router.rs (top-k of the logits, ties to the lower expert, the
# capacity ceil(T·k·factor/E), kept in token order while the expert has room),
# pass.rs (the gates: the softmax at the chosen experts, renormalised over the two for
# k = 2; each kept choice's row through its expert, gate-weighted, summed per token),
# solutions/ch11-experts/balance.rs (Switch's loss α·E·Σ f·P, f counted kept or dropped
# over k·T), train.rs (the router x·R, the squared error over the tokens, Adam lr 0.05
# on the router and every expert, an expert no token reached stepped with a zero gradient
# as grad_or_zeros gives it) and `moe_bench --train --layer one` (every expert in one
# graph, train::step_one_process_on; the batches made beforehand, one thread, the median
# time per step after the first tenth). The optimizer is torch.optim.Adam with
# `fused=True`, its fastest form on the CPU (betas 0.9, 0.999, eps 1e-8, as trainer_kit's).
# Part of `make anchors` (scripts/anchors/anchors.py); alone:
#   python scripts/anchors/moe_layer.py --steps 200
# Prints `LOSS <step> <squared error> <E·Σ f·P>` per step, then `MS <ms per step>`.

import argparse
import math
import time

import numpy as np
import torch

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def draws(seed, n):
    """The next `n` outputs of SplitMix64 from state `seed` (task.rs's Rng), as uint64."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform(z):
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def normals(z):
    """Box-Muller on pairs of draws, as Rng::normal (f64, then f32)."""
    u, v = 1.0 - uniform(z[0::2]), uniform(z[1::2])
    return (np.sqrt(-2.0 * np.log(u)) * np.cos(2 * math.pi * v)).astype(np.float32)


def linear(experts, hidden, seed):
    """Experts::linear: every W (hidden x hidden, row i = output i), then every b."""
    z = draws(seed, 2 * experts * hidden * (hidden + 1))
    scale = np.float32(1.0) / np.sqrt(np.float32(hidden))
    w = normals(z[: 2 * experts * hidden * hidden]) * scale
    b = normals(z[2 * experts * hidden * hidden:]) * np.float32(0.1)
    return w.reshape(experts, hidden, hidden), b.reshape(experts, hidden)


def targets(w, b, x, cluster):
    """Experts::apply on each token's map, row by row: b[i] + Σ_j W[i][j]·x[j], summed in
    order of j in f32 (as the Rust fold), one cluster's tokens at a time."""
    y = np.empty_like(x)
    for c in np.unique(cluster):
        rows = x[cluster == c]
        acc = np.broadcast_to(b[c], rows.shape).copy()
        for j in range(x.shape[1]):
            acc = acc + w[c][:, j][None, :] * rows[:, j:j + 1]
        y[cluster == c] = acc
    return y


def centres(experts, hidden, seed):
    scale = np.float32(1.0) / np.sqrt(np.float32(hidden))
    return normals(draws(seed, 2 * experts * hidden)).reshape(experts, hidden) * scale


def batch(centre, tokens, skew, seed):
    """Task::batch: per token one uniform (its cluster), then its row's normals."""
    e, h = centre.shape
    weight = [(i + 1.0) ** -skew for i in range(e)]
    total = sum(weight)
    z = draws(seed, tokens * (1 + 2 * h)).reshape(tokens, 1 + 2 * h)
    scale = np.float32(1.0) / np.sqrt(np.float32(h)) / np.float32(3.0)
    left = uniform(z[:, 0]) * total
    cluster = np.full(tokens, -1)
    for i in range(e):  # the first cluster at which u, less each weight in turn, is < 0
        left = left - weight[i]
        cluster[(cluster < 0) & (left < 0.0)] = i
    cluster[cluster < 0] = e - 1
    noise = normals(z[:, 1:].reshape(-1)).reshape(tokens, h) * scale
    return centre[cluster] + noise, np.array(cluster)


def route(logits, k, factor):
    """router.rs: top-k (ties to the lower expert), kept while the expert has room."""
    t, e = logits.shape
    cap = math.ceil(t * k * factor / e)
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :k].reshape(-1)
    onehot = np.eye(e, dtype=np.int64)[chosen]
    before = (np.cumsum(onehot, axis=0) - onehot)[np.arange(t * k), chosen]
    return chosen, before < cap


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=8)
    ap.add_argument("--k", type=int, default=1)
    args = ap.parse_args()
    # moe_train's defaults (train_flags.rs), α = 0.1 as its second run.
    e, k, factor, alpha, lr, skew, seed = 8, args.k, 1.25, 0.1, 0.05, 0.0, 11
    t, h = args.tokens, args.hidden
    torch.set_num_threads(1)
    centre = centres(e, h, seed)
    maps_w, maps_b = linear(e, h, seed + 5)
    data = []
    for n in range(args.steps):
        x, cluster = batch(centre, t, skew, seed ^ ((n * 1000) << 12))
        data.append((torch.from_numpy(x), torch.from_numpy(targets(maps_w, maps_b, x, cluster))))
    router = torch.from_numpy(normals(draws(seed + 3, 2 * h * e)) * np.float32(0.1))
    router = router.view(h, e).requires_grad_()
    w0, b0 = linear(e, h, seed + 1)
    ws = [torch.from_numpy(w0[i].copy()).requires_grad_() for i in range(e)]
    bs = [torch.from_numpy(b0[i].copy()).requires_grad_() for i in range(e)]
    params = [router] + [p for pair in zip(ws, bs) for p in pair]
    opt = torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-8, fused=True)
    ms = []
    for n, (x, y) in enumerate(data):
        t0 = time.perf_counter()
        logits = x @ router
        chosen, kept = route(logits.detach().numpy(), k, factor)
        probs = logits.softmax(-1)
        top = probs.gather(1, torch.from_numpy(chosen).view(t, k))
        gates = (top if k == 1 else top / top.sum(1, keepdim=True)).view(-1)
        # The kept choices sorted by expert, token order within one (the dispatch's order).
        sent = np.array(sorted(np.flatnonzero(kept), key=lambda i: chosen[i]), dtype=np.int64)
        rows = x[sent // k]
        expert_out = torch.zeros_like(rows)
        for i in range(e):
            idx = torch.from_numpy(np.flatnonzero(chosen[sent] == i))
            if len(idx):
                expert_out = expert_out.index_add(0, idx, rows[idx] @ ws[i].t() + bs[i])
        g = gates[torch.from_numpy(sent)].unsqueeze(1)
        out = torch.zeros(t, h).index_add(0, torch.from_numpy(sent // k), expert_out * g)
        sq = (out - y).square().sum() / t
        f = torch.from_numpy(np.bincount(chosen, minlength=e) / (k * t)).float()
        balance = (probs.sum(0) / t * f).sum() * e
        opt.zero_grad(set_to_none=False)
        (sq + balance * alpha).backward()
        for p in params:  # as grad_or_zeros: an expert no token reached steps on zeros
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        opt.step()
        ms.append(1e3 * (time.perf_counter() - t0))
        print(f"LOSS {n} {sq.item():.9e} {balance.item():.9e}")
    timed = sorted(ms[len(ms) // 10:])
    print(f"MS {timed[len(timed) // 2]:.4f}", flush=True)


if __name__ == "__main__":
    main()
