# Chapter 14's job of `make anchors` (scripts/anchors/anchors.py imports it): chapter 6's
# CNN trained on the digits in f32, bf16 and f16 (global batch 48, SGD with momentum, 10
# epochs, the lab's order), one process, one thread: ours (the lab `mixed` at one rank,
# the gradient summed in f32: a working copy in the format, f32 master weights, ex 14.4's
# step) against scripts/anchors/amp_cnn.py, PyTorch's torch.autocast (f16 under
# GradScaler: the "PyTorch" column) and the lab's scheme written in PyTorch (the second
# column); samples/s = the batch over the mean time per step; the test accuracy and the
# skipped steps of each run (the note under the table).

import functools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ["f32", "bf16", "f16"]
BATCH = 48
# The second column of chapter 14's table (anchors.py): the lab's scheme in PyTorch.
SECOND = ("PyTorch, the lab's scheme (model in the format + f32 master)", "scheme in PyTorch")
ONE_THREAD = {"OMP_NUM_THREADS": "1"}
SEEN = {}  # (format, side) -> [(accuracy %, skipped), ...] over the rounds


def ours(run, release_bin, env, fmt):
    out = run([release_bin("mixed"), "--precision", fmt, "--reduce-dtype", "f32"],
              env=dict(env, NP="1", **ONE_THREAD))
    row = re.search(rf"^{fmt}\s+f32\s+\S+\s+\S+\s+\S+\s+([\d.]+)%\s+(\d+)\s+\S+\s+\d+\s+([\d.]+)$",
                    out, re.M)
    if not row:
        sys.exit(f"anchors: mixed printed no {fmt} row:\n{out}")
    SEEN.setdefault((fmt, "ours"), []).append((float(row.group(1)), int(row.group(2))))
    return BATCH / (float(row.group(3)) / 1e3)


def theirs(run, _release_bin, _env, fmt, mode="autocast"):
    out = run([sys.executable, os.path.join(HERE, "amp_cnn.py"), "--precision", fmt,
               "--mode", mode], env=ONE_THREAD)
    got = {k: float(v) for k, v in re.findall(r"^(MS|ACCURACY|SKIPPED) ([\d.]+)$", out, re.M)}
    SEEN.setdefault((fmt, mode), []).append((got["ACCURACY"], int(got["SKIPPED"])))
    return BATCH / (got["MS"] / 1e3)


def agreement():
    """Per format, each side's test accuracy and skipped steps (the last round's)."""
    sides = [("ours", "ours"), ("master", "the scheme in PyTorch"), ("autocast", "autocast")]
    return "\n".join(
        f"{fmt}: test accuracy (skipped steps), " + ", ".join(
            f"{name} {SEEN[(fmt, side)][-1][0]:.1f}% ({SEEN[(fmt, side)][-1][1]})"
            for side, name in sides)
        for fmt in FORMATS if (fmt, "ours") in SEEN)


def jobs(run, release_bin):
    """anchors.py's job tuples: (chapter, workload, ours, PyTorch's, their arguments)."""
    out = []
    for fmt in FORMATS:
        what = (f"chapter 6's CNN in {fmt}, digits, batch {BATCH}, SGD momentum, 10 epochs, "
                f"1 process, 1 thread; mixed --precision {fmt} vs torch.autocast"
                + (" + GradScaler" if fmt == "f16" else ""))
        mine, torch = (functools.partial(f, run, release_bin) for f in (ours, theirs))
        out.append(("14", what, mine, torch, (fmt,)))
    return out


def second_side(run, release_bin):
    """The second column's function: the lab's scheme in PyTorch (`--mode master`)."""
    return functools.partial(theirs, run, release_bin, mode="master")
