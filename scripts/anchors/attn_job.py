# Chapter 13's job of `make anchors` (scripts/anchors/anchors.py imports it). PyTorch's
# context parallelism does not run on the CPU (the job probes it under torchrun with gloo
# and prints the reason in the note under the table), so the attention kernel alone is
# compared, one process, one thread, f32, [1, 4 heads, seq, 64]: ours as the chapter
# computes it (`attention_bench --mode blocks`: blocks of 512 tokens, each pair by
# attend_block, merged by ex 13.1, the causal mask skipping whole blocks) against
# PyTorch's fused scaled_dot_product_attention (scripts/anchors/attn_sdpa.py); the second
# column is ours in one piece (`--mode whole`: one seq x seq score matrix per head).
# tokens/s = seq / the best of 5 repetitions.

import functools
import os
import re
import sys

from common import torchrun

HERE = os.path.dirname(os.path.abspath(__file__))
SEQS = [4096]
ONE_THREAD = {"OMP_NUM_THREADS": "1"}
# The second column of chapter 13's table (anchors.py): ours in one piece.
SECOND = ("ours, the whole sequence in one piece (unfused)", "one piece")
PROBE = []  # the CP probe's line


def ms(out, who):
    got = re.search(r"^MS ([\d.]+)$", out, re.M)
    if not got:
        sys.exit(f"anchors: {who} printed no time:\n{out}")
    return float(got.group(1))


def ours(run, release_bin, _env, seq, causal, mode="blocks"):
    args = [release_bin("attention_bench"), "--mode", mode, "--seq", str(seq)]
    out = run(args + (["--causal"] if causal else []), env=ONE_THREAD)
    return seq / (ms(out, "attention_bench") / 1e3)


def theirs(run, _release_bin, _env, seq, causal):
    probe(run)
    args = [sys.executable, os.path.join(HERE, "attn_sdpa.py"), "--seq", str(seq)]
    out = run(args + (["--causal"] if causal else []), env=ONE_THREAD)
    return seq / (ms(out, "attn_sdpa.py") / 1e3)


def probe(run):
    """PyTorch's context_parallel on the CPU, NP processes, gloo: its one line (once)."""
    if not PROBE:
        out = run(torchrun("attn_sdpa.py", ["--seq", "256", "--causal", "--cp-probe"]),
                  env=ONE_THREAD)
        line = re.search(r"^CP .*$", out, re.M)
        PROBE.append(line.group(0) if line else "CP: the probe printed nothing")
    return PROBE[0]


def agreement():
    """The note under the table: why the kernel alone."""
    return ("PyTorch's context parallelism on the CPU (torch.distributed.tensor.experimental."
            f"context_parallel, gloo): {PROBE[0] if PROBE else 'not probed'}")


def jobs(run, release_bin):
    """anchors.py's job tuples: (chapter, workload, ours, PyTorch's, their arguments)."""
    out = []
    for seq in SEQS:
        for causal in (True, False):
            what = (f"attention over {seq} tokens, {'causal' if causal else 'full'}, 4 heads x 64, "
                    f"f32, 1 process, 1 thread; ours in blocks of 512 vs "
                    f"scaled_dot_product_attention")
            mine, torch = (functools.partial(f, run, release_bin) for f in (ours, theirs))
            out.append(("13", what, mine, torch, (seq, causal)))
    return out


def second_side(run, release_bin):
    """The second column's function: ours in one piece (`--mode whole`)."""
    return functools.partial(ours, run, release_bin, mode="whole")
