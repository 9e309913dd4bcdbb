# Chapter 11's job of `make anchors` (scripts/anchors/anchors.py imports it): the MoE
# layer trained as `moe_train` does (8 experts, capacity factor 1.25, α = 0.1, Adam lr
# 0.05, seed 11) in one process, one thread, on batches made beforehand: ours
# (`moe_bench --train`, chapters/ch11-experts/src/anchor.rs) against
# scripts/anchors/moe_layer.py, at three sizes (two where a step's fixed costs dominate,
# one where the matrix products do); tokens/s = a step's tokens over the median time per
# step; and how far the two runs' losses are apart, step by step. Ours runs in two forms:
# `--layer one`, every expert in one graph (the work PyTorch's port does: the "ours"
# column), and `--layer ep`, the expert-parallel step on one rank, whose four exchanges go
# through MPI and host floats (the second column).

import functools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, tokens, hidden, k, steps): the compute size runs fewer steps, each batch taking
# PyTorch's port half a second to make.
MOE_SIZES = [("per-step overhead, the lab's size", 64, 8, 1, 200),
             ("per-step overhead, larger", 1024, 64, 2, 200),
             ("compute", 4096, 256, 2, 60)]
MOE_LOSSES = {}  # (workload, side) -> the last run's losses, step by step
# The second column of chapter 11's table (anchors.py): the expert-parallel step.
SECOND = ("ours, expert-parallel step on 1 rank", "EP step")


def moe_args(tokens, hidden, k):
    return ["--tokens", str(tokens), "--hidden", str(hidden), "--k", str(k)]


def moe_rate(name, side, out, tokens, steps):
    losses = [tuple(map(float, m.groups()))
              for m in re.finditer(r"^LOSS \d+ (\S+) (\S+)$", out, re.M)]
    if len(losses) != steps:
        sys.exit(f"anchors: {side} printed {len(losses)} losses, expected {steps}:\n{out}")
    MOE_LOSSES[(name, side)] = losses
    ms = float(re.search(r"^MS ([\d.]+)$", out, re.M).group(1))
    return tokens / (ms / 1e3)


def ours(run, release_bin, env, name, tokens, hidden, k, steps, form="one"):
    out = run([release_bin("moe_bench"), "--train", str(steps), *moe_args(tokens, hidden, k),
               "--layer", form], env=env)
    return moe_rate(name, "ours" if form == "one" else "ours, EP step", out, tokens, steps)


def theirs(run, _release_bin, _env, name, tokens, hidden, k, steps):
    out = run([sys.executable, os.path.join(HERE, "moe_layer.py"), "--steps", str(steps),
               *moe_args(tokens, hidden, k)])
    return moe_rate(name, "PyTorch", out, tokens, steps)


def agreement():
    """Per workload, how far our losses are from PyTorch's, step by step."""
    lines = []
    for name, *_, steps in MOE_SIZES:
        ours, theirs = MOE_LOSSES[(name, "ours")], MOE_LOSSES[(name, "PyTorch")]
        for i, loss in [(0, "squared error"), (1, "balancing loss E·Σ f·P")]:
            diff = [abs(a[i] - b[i]) / max(1e-12, abs(b[i])) for a, b in zip(ours, theirs)]
            worst = max(range(len(diff)), key=diff.__getitem__)
            lines.append(f"{name}, {loss}: largest relative difference over {steps} steps "
                         f"{diff[worst]:.1e} (step {worst}: ours {ours[worst][i]:.9g}, PyTorch "
                         f"{theirs[worst][i]:.9g}); step {steps - 1}: ours "
                         f"{ours[-1][i]:.9g}, PyTorch {theirs[-1][i]:.9g}")
    return "\n".join(lines)


def jobs(run, release_bin):
    """anchors.py's job tuples: (chapter, workload, ours, PyTorch's, their arguments)."""
    out = []
    for name, tokens, hidden, k, steps in MOE_SIZES:
        what = (f"MoE layer, {name} ({tokens} tokens, h={hidden}, 8 experts, k={k}, capacity "
                f"1.25, α=0.1), Adam, f32, 1 process, 1 thread; moe_bench --train vs moe_layer.py")
        mine, torch = (functools.partial(f, run, release_bin) for f in (ours, theirs))
        out.append(("11", what, mine, torch, (name, tokens, hidden, k, steps)))
    return out


def second_side(run, release_bin):
    """The second column's function: the expert-parallel step (`--layer ep`)."""
    return functools.partial(ours, run, release_bin, form="ep")
