# The anchors: our trainers (and chapter 09's tensor-parallel block) next to PyTorch on the same work, side by side in one run.
#
# Run: `make anchors` (scripts/anchors/run.sh makes the venv and the release binaries,
# then runs this with the venv's python). Alternates ours and PyTorch's, ROUNDS times each
# (default 2), at NP = 2 on this machine's cores:
#   ch06: `train` (CNN and cnn:4, UCI digits, global batch 64, SGD momentum 0.9) against
#         DDP (gloo), scripts/anchors/ddp_cnn.py; samples/s = the median over epochs 3.. of
#         each run; at cnn:4 ours also on TCP over the loopback and with its ranks unbound
#         (as torchrun's are); PyTorch alone in one process without communication; and
#         each side's CPUs and threads per rank, measured while it trains (header);
#   ch07: `pipeline` (f32, Adam, p = 2) against torch.distributed.pipelining (gloo),
#         scripts/anchors/pipe_mlp.py, Schedule1F1B, ScheduleGPipe and
#         ScheduleInterleaved1F1B (2 stages per rank: ours --schedule interleaved --chunks 2),
#         at the default size
#         (width 96, batch 128, m = 4) and a compute-bound one (width 512, batch 256, m = 8);
#         samples/s over the timed steps after a warm-up as long;
#   ch08: `zero` (CNN and cnn:4, UCI digits, global batch 48, Adam) at --stage 1 against
#         ZeroRedundancyOptimizer (ZeRO-1, bucket views) and at --stage 2 against FSDP2's
#         fully_shard on the model (gloo), scripts/anchors/zero_cnn.py; samples/s = the
#         median over epochs 3..; PyTorch's collectives per step counted (CommDebugMode);
#         at cnn:4 ours also on TCP over the loopback (gloo's transport); and PyTorch alone
#         in one process without communication (zero_cnn.py --mode alone)
#   ch09: `tp_bench --ranks 2 --hidden H` (one transformer block's forward and backward, f32, t = 2,
#         one thread per rank) against torch.distributed.tensor.parallel's
#         ColwiseParallel / RowwiseParallel on the same block (gloo),
#         scripts/anchors/tp_block.py; tokens/s = the block's tokens / the best round's
#         mean time per forward + backward (the slowest rank's), for the compute-bound block;
#         at h = 256 and 1024;
#         and the lab `gpt` at dp 1 x tp 2 against the same GPT under
#         torch.distributed.tensor.parallel (scripts/anchors/gpt.py: the same pages, the same
#         batches, the head tied), tokens/s = the median over the windows after the first
#   ch11: `moe_bench --train` (chapter 11's MoE layer trained as `moe_train` does, in one
#         process, one thread) against scripts/anchors/moe_layer.py, the same layer, data
#         and seed in PyTorch, at three sizes, and the two runs' losses step by step (the
#         job: scripts/anchors/moe_job.py)
#   ch13: the attention kernel alone, one process, one thread, f32 (PyTorch's context
#         parallelism does not run on the CPU: the job probes it and says why): ours in
#         blocks (`attention_bench --mode blocks`) against scaled_dot_product_attention,
#         scripts/anchors/attn_sdpa.py; the second column ours in one piece (the job:
#         scripts/anchors/attn_job.py)
#   ch14: the lab `mixed` at one rank (chapter 6's CNN in f32, bf16 and f16 on f32 master
#         weights, one thread) against torch.autocast (GradScaler for f16) on the same
#         model, data order and optimizer, scripts/anchors/amp_cnn.py; the second column is
#         the lab's scheme written in PyTorch (the job: scripts/anchors/amp_job.py)
# Ours runs twice per round: as `make run` does, and with Open MPI's
# `mpi_yield_when_idle=1` (a waiting rank yields its core instead of polling: what a loaded
# machine needs); chapter 11's one process never waits, so its second run is the
# expert-parallel step on one rank instead (the same layer through its exchanges),
# chapter 13's is ours in one piece, and chapter 14's is the lab's scheme in PyTorch. Prints one table (each run's figure, the medians, ours / PyTorch) and
# writes the rows of
# each chapter to book/src/chNN-*/output/anchors.txt for chapters 06 to 09, 11, 13 and 14 (the pages
# include them). `--only 08` runs one chapter's rows (and writes its file). `--load` (make
# anchors LOAD=1) runs it all under a second job that takes every core (scripts/anchors/
# load.py, one busy process per core, each in a session of its own): ours as `make run`
# runs it (the launcher measures the load and makes the ranks guests, toolkit::sharing)
# and with that turned off (WORKBOOK_SHARED=0), to output/anchors-loaded.txt.

import argparse
import contextlib
import csv
import os
import resource
import re
import statistics
import sys
import time

import amp_job
import attn_job
import cnn_jobs
import moe_job
from common import NOT_A_GUEST, NP, ROOT, YIELD, release_bin, run, second_job, torchrun

# --- chapter 07 -------------------------------------------------------------------------
# (name, width, batch, m, steps timed = warm-up steps x 2)
SIZES = [("default", 96, 128, 4, 140), ("compute-bound", 512, 256, 8, 40)]


def chunks(schedule):
    """The flags that give each rank 2 stages under the interleaved schedule."""
    return ["--chunks", "2"] if schedule == "interleaved" else []


def ours_ch07(env, schedule, width, batch, m, steps):
    window = steps // 2  # three report windows: one warm-up, two timed
    out = run([release_bin("pipeline"), "--schedule", schedule, *chunks(schedule),
               "--width", str(width),
               "--batch", str(batch), "--micro", str(m), "--dtype", "f32",
               "--steps", str(3 * window), "--report", str(window)], env=dict(env, NP=str(NP)))
    rates = [float(m.group(1)) for m in re.finditer(r"^\s*\d+\s+\S+\s+\S+%\s+([\d.]+)", out, re.M)]
    if len(rates) != 3:
        sys.exit(f"anchors: pipeline printed {len(rates)} progress lines, expected 3:\n{out}")
    return 2 / (1 / rates[1] + 1 / rates[2])  # the two timed windows' samples / their time


def torch_ch07(_env, schedule, width, batch, m, steps):
    out = run(torchrun("pipe_mlp.py", ["--schedule", schedule, *chunks(schedule),
                                       "--width", str(width),
                                       "--batch", str(batch), "--micro", str(m),
                                       "--dtype", "f32", "--warmup", str(steps // 2),
                                       "--steps", str(steps)]))
    return float(re.search(r"^RATE ([\d.]+)$", out, re.M).group(1))


# --- chapter 09 -------------------------------------------------------------------------
# (batch, seq, heads) of tp_bench's compute-bound block, at two widths: the bench's and 4x.
TP_BLOCK = (4, 64, 8)
TP_WIDTHS = (256, 1024)


def ours_ch09(env, hidden):
    run([release_bin("tp_bench"), "--ranks", str(NP), "--hidden", str(hidden)], env=env)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    with open(os.path.join(target, "workbook/ch09/tp_bench.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    batch, seq, _ = TP_BLOCK
    ms = [float(r["fwd+bwd ms"]) for r in rows
          if r["block"].startswith("compute-bound") and r["t"] == str(NP)]
    if len(ms) != 1:
        sys.exit(f"anchors: tp_bench.csv has no compute-bound row at t = {NP}: {rows}")
    return batch * seq / (ms[0] / 1e3)


# PyTorch's collectives in one forward and backward of the block (CommDebugMode).
TORCH_BLOCK_COLLECTIVES = []


def torch_ch09(_env, hidden):
    batch, seq, heads = TP_BLOCK
    out = run(torchrun("tp_block.py", ["--batch", str(batch), "--seq", str(seq),
                                       "--hidden", str(hidden), "--heads", str(heads)]))
    TORCH_BLOCK_COLLECTIVES.append(int(re.search(r"^COLLECTIVES (\d+)$", out, re.M).group(1)))
    ms = float(re.search(r"^MS ([\d.]+)$", out, re.M).group(1))
    return batch * seq / (ms / 1e3)


# The lab `gpt` at dp 1 x tp NP, its defaults (2 blocks, h 96, 6 heads, context 64, global
# batch 16, Adam lr 0.003, seed 9): tokens/s = the median of the windows of GPT_EVERY steps
# after the first (a warm-up), the validation between windows outside the timing.
GPT_STEPS, GPT_EVERY = 400, 100


def ours_ch09_gpt(env):
    out = run([release_bin("gpt"), "--tp", str(NP), "--dp", "1", "--steps", str(GPT_STEPS),
               "--log-every", str(GPT_EVERY), "--sample", "0"], env=dict(env, NP=str(NP)))
    rates = [float(m.group(1)) for m in re.finditer(r"^\s+\d+\s+[\d.]+\s+[\d.]+\s+(\d+)$", out, re.M)]
    if len(rates) != GPT_STEPS // GPT_EVERY:
        sys.exit(f"anchors: gpt printed {len(rates)} progress lines:\n{out}")
    return statistics.median(rates[1:])


def torch_ch09_gpt(_env):
    out = run(torchrun("gpt.py", ["--steps", str(GPT_STEPS), "--log-every", str(GPT_EVERY)]))
    rates = [float(m.group(1)) for m in re.finditer(r"^RATE ([\d.]+)", out, re.M)]
    return statistics.median(rates[1:])


# --- the table --------------------------------------------------------------------------
def table(rows, unit="samples/s", second=("ours, yielding", "yielding")):
    head = ["chapter", "workload", f"ours ({unit})", second[0], "PyTorch",
            "ours / PyTorch", f"{second[1]} / PyTorch"]
    body = []
    for chapter, what, ours, yielding, theirs in rows:
        mo, my, mt = (statistics.median(v) for v in (ours, yielding, theirs))
        each = lambda v: f"{statistics.median(v):,.0f} (" + " ".join(f"{x:,.0f}" for x in v) + ")"
        body.append([chapter, what, each(ours), each(yielding), each(theirs),
                     f"{mo / mt:.2f}x", f"{my / mt:.2f}x"])
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in body])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2, help="runs of each, alternating")
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--only", choices=["06", "07", "08", "09", "11", "13", "14"], help="one chapter's rows")
    ap.add_argument("--load", action="store_true", help="under a second job taking every core")
    args = ap.parse_args()
    with second_job(os.cpu_count() or 1) if args.load else contextlib.nullcontext():
        compare(args)


def compare(args):
    """Runs the jobs `args` selects, prints the tables and writes the chapters' files."""
    import torch  # the venv's

    second = (("ours, polling (WORKBOOK_SHARED=0)", "polling") if args.load
              else ("ours, yielding", "yielding"))
    # The second column where it is not the other wait, and the function that runs it.
    seconds = {"11": moe_job.SECOND, "13": attn_job.SECOND, "14": amp_job.SECOND}
    second_sides = {"11": moe_job.second_side, "13": attn_job.second_side,
                    "14": amp_job.second_side}

    cores = os.cpu_count() or 1
    jobs = cnn_jobs.jobs_ch06()
    for name, width, batch, m, steps in SIZES:
        for sched, label in [("1f1b", "1F1B"), ("gpipe", "GPipe"),
                             ("interleaved", "interleaved 1F1B (2 stages per rank)")]:
            what = (f"{label}, p={NP}, {name}: 8 blocks of width {width}, batch {batch}, "
                    f"m={m}, Adam, f32")
            jobs.append(("07", what, ours_ch07, torch_ch07, (sched, width, batch, m, steps)))
    jobs += cnn_jobs.jobs_ch08()
    batch, seq, heads = TP_BLOCK
    for hidden in TP_WIDTHS:
        jobs.append(("09", f"one transformer block (h={hidden}, {heads} heads, {batch}x{seq} "
                     f"tokens), forward + backward, f32, t={NP}, 1 thread per rank; ours vs "
                     f"torch.distributed.tensor.parallel (gloo)", ours_ch09, torch_ch09,
                     (hidden,)))
    jobs.append(("09", f"the lab gpt (2 blocks, h=96, 6 heads, context 64, batch 16, tied head, "
                 f"Adam, f32), dp 1 x tp {NP}, the book's pages; ours vs "
                 f"torch.distributed.tensor.parallel + loss_parallel (gloo), scripts/anchors/gpt.py",
                 ours_ch09_gpt, torch_ch09_gpt, ()))
    jobs += moe_job.jobs(run, release_bin)
    jobs += attn_job.jobs(run, release_bin)
    jobs += amp_job.jobs(run, release_bin)
    jobs = [j for j in jobs if args.only in (None, j[0])]
    results = {what: ([], [], []) for _, what, *_ in jobs}
    # CPU seconds of each run's processes (getrusage of the waited children: the ranks,
    # the launcher, startup included) over its wall time: the cores it kept busy.
    cores_used = {what: ([], [], []) for _, what, *_ in jobs}
    start = time.time()
    for r in range(args.rounds):
        for chapter, what, ours, theirs, a in jobs:
            # Alternate: in odd rounds PyTorch goes first.
            order = [(0, ours, {}), (1, ours, NOT_A_GUEST if args.load else YIELD), (2, theirs, {})]
            if chapter in second_sides:  # one process never waits: another second column
                order[1] = (1, second_sides[chapter](run, release_bin), {})
            for side, fn, env in order if r % 2 == 0 else order[::-1]:
                before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
                results[what][side].append(fn(env, *a))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                cores_used[what][side].append(cpu / (time.time() - t0))
                unit = "tokens/s" if chapter in ("09", "11", "13") else "samples/s"
                label = seconds.get(chapter, second)[1]
                print(f"round {r + 1}: ch{chapter} {what}: {['ours', label, 'PyTorch'][side]} "
                      f"{results[what][side][-1]:,.0f} {unit}", file=sys.stderr, flush=True)
    command = "make anchors" + (f" ROUNDS={args.rounds}" if args.rounds != 2 else "")
    command += " LOAD=1" if args.load else ""
    if args.only:  # one chapter's rows: the script, as make anchors runs it
        command = (f"bash scripts/anchors/run.sh --only {args.only} --rounds {args.rounds}"
                   + (" --load" if args.load else ""))
    header = (f"$ {command}   # {args.rounds} rounds, alternating; {cores} cores, "
              f"{max(1, cores // NP)} thread(s) per rank; torch {torch.__version__}; "
              + (f"under a second job: {cores} busy processes, each in a session of its own; "
                 if args.load else "") +
              f"load average before the last run {os.getloadavg()[0]:.1f}; "
              f"{time.time() - start:.0f} s")
    if {"06", "08"} & {j[0] for j in jobs}:
        header += "\n" + cnn_jobs.placement_note()
    rows = [(c, w, *results[w]) for c, w, *_ in jobs]
    units = {"09": "tokens/s", "11": "tokens/s", "13": "tokens/s"}  # the trainers' rows are samples/s
    per_chapter = {}
    for row in rows:
        per_chapter.setdefault(row[0], []).append(row)
    notes = {"11": moe_job.agreement()} if "11" in per_chapter else {}
    if "13" in per_chapter:
        notes["13"] = attn_job.agreement()
    if "14" in per_chapter:
        notes["14"] = amp_job.agreement()
    if args.load:  # under the second job: what share of the machine each side got
        for chapter, mine in per_chapter.items():
            shares = ", ".join(f"{statistics.median(cores_used[w][0]):.2f} / "
                               f"{statistics.median(cores_used[w][2]):.2f}" for _, w, *_ in mine)
            notes[chapter] = (notes[chapter] + "\n" if chapter in notes else "") + (
                              f"cores kept busy (CPU time of each run's processes over its wall "
                              f"time, startup included; medians), ours / PyTorch, row by row: "
                              f"{shares}")
    if not args.load:  # PyTorch alone and the collectives: measured on an idle machine
        notes.update(cnn_jobs.notes(per_chapter))
    if TORCH_BLOCK_COLLECTIVES and not args.load:
        notes["09"] = ("collectives in one forward and backward of the block: ours 4 "
                       "allreduces (Megatron's f and g, counted by the PMPI tally in "
                       "tests/block.rs), PyTorch "
                       f"{statistics.median(TORCH_BLOCK_COLLECTIVES):.0f} (CommDebugMode; "
                       "Q, K and V fused in one ColwiseParallel layer)")
    print(header)
    for chapter, mine in per_chapter.items():
        print(table(mine, units.get(chapter, "samples/s"), seconds.get(chapter, second)))
        if chapter in notes:
            print(notes[chapter])
    if not args.no_write:
        for chapter, folder in [("06", "ch06-data-parallel"), ("07", "ch07-pipeline"),
                                ("08", "ch08-sharded"), ("09", "ch09-tensor-parallel"),
                                ("11", "ch11-experts"), ("13", "ch13-context-parallel"),
                                ("14", "ch14-precision")]:
            if chapter not in per_chapter:
                continue
            name = "anchors-loaded.txt" if args.load else "anchors.txt"
            path = os.path.join(ROOT, "book/src", folder, "output", name)
            mine = per_chapter[chapter]
            with open(path, "w") as f:
                f.write(header + "\n" + table(mine, units.get(chapter, "samples/s"),
                                               seconds.get(chapter, second)) + "\n")
                if chapter in notes:
                    f.write(notes[chapter] + "\n")
            print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
