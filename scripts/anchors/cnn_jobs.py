# Chapters 06 and 08's jobs of `make anchors` (scripts/anchors/anchors.py imports them):
# our trainers `train` (CNN, UCI digits, global batch 64, SGD momentum 0.9, against DDP)
# and `zero` (global batch 48, Adam; --stage 1 against ZeroRedundancyOptimizer, --stage 2
# against FSDP2) next to their PyTorch mirrors ddp_cnn.py and zero_cnn.py under torchrun,
# at two sizes: the CNN (per-step overhead) and cnn:4 (compute); at cnn:4 ours also on TCP
# over the loopback (and, in chapter 6, unbound); samples/s = the median over epochs 3..
# of a run. Under the rows: PyTorch's collectives per step (CommDebugMode) and PyTorch
# alone in one process without communication, the speed both sides would have if
# communication cost nothing; in the header, each side's placement, measured.

import os
import re
import sys

from common import (EPOCHS, HERE, NP, TCP, UNBOUND, epoch_median, placement, release_bin, run,
                    torchrun)

# The CNN measures per-step overhead (a step of under 2 ms); cnn:4 (about 16 times the
# parameters) is where compute dominates.
CNN_SIZES = [("cnn", "per-step overhead"), ("cnn:4", "compute")]
TORCH_EPOCH = r"^EPOCH \d+ ([\d.]+)$"
# PyTorch's collectives in one step, by (mode, model) (zero_cnn.py's CommDebugMode count).
TORCH_COLLECTIVES = {}


def ours(program, flags, epoch_line, env, model, transport):
    """Our trainer `program` at NP ranks on `model`, on TCP if `transport` says so, or
    with the ranks unbound (`transport` "unbound")."""
    extra = {"tcp": TCP, "unbound": UNBOUND}.get(transport, {})
    env = dict(env, **extra, NP=str(NP))
    out = run([release_bin(program), *flags, "--model", model, "--epochs", str(EPOCHS)], env=env)
    return epoch_median(out, epoch_line)


def ours_ch06(env, model, transport=None):
    return ours("train", [], r"\|\s*([\d.]+) samples/s", env, model, transport)


def torch_ch06(_env, model, _transport=None):
    out = run(torchrun("ddp_cnn.py", ["--model", model, "--epochs", str(EPOCHS)]))
    return epoch_median(out, TORCH_EPOCH)


def ours_ch08(env, stage, _mode, model, transport=None):
    return ours("zero", ["--stage", stage], r"^epoch +\d+: .*, (\d+) samples/s$", env, model,
                transport)


def torch_ch08(_env, _stage, mode, model, _transport=None):
    out = run(torchrun("zero_cnn.py", ["--mode", mode, "--model", model, "--epochs", str(EPOCHS)]))
    TORCH_COLLECTIVES[(mode, model)] = int(re.search(r"^COLLECTIVES (\d+)$", out, re.M).group(1))
    return epoch_median(out, TORCH_EPOCH)


def alone(script, flags, model):
    """PyTorch in one process doing one rank's share of each batch, no communication
    (`script` without torchrun, `--like NP`): samples/s as NP such ranks would train."""
    out = run([sys.executable, os.path.join(HERE, script), *flags, "--like", str(NP),
               "--model", model, "--epochs", str(EPOCHS)])
    return epoch_median(out, TORCH_EPOCH)


def alone_note(script, flags, optimizer):
    """The line under a chapter's rows: PyTorch's speed with no communication at all."""
    rates = ", ".join(f"{model} {alone(script, flags, model):,.0f}" for model, _ in CNN_SIZES)
    return (f"PyTorch in one process, one rank's share of each batch, {optimizer}, no "
            f"communication ({' '.join([script, *flags, '--like', str(NP)])}), as {NP} such ranks "
            f"would train: {rates} "
            "samples/s")


def collectives_ch08():
    """The note under chapter 8's rows: collectives per step on each side, and PyTorch's
    speed with no communication at all."""
    theirs = ", ".join(f"{'ZeroRedundancyOptimizer' if mode == 'zero1' else 'FSDP2'} ({model}) {n}"
                       for (mode, model), n in sorted(TORCH_COLLECTIVES.items()))
    return ("collectives in one step: ours 2 at stages 1 and 2 (a reduce-scatter and an "
            "allgather of the flat buffer, src/step.rs); PyTorch, counted by CommDebugMode: "
            f"{theirs}\n" + alone_note("zero_cnn.py", ["--mode", "alone"], "plain Adam"))


def jobs_ch06():
    """Chapter 06's rows: (chapter, workload, ours, PyTorch, arguments)."""
    jobs = [("06", f"{model} ({size}), UCI digits, NP={NP}, batch 64, SGD momentum; ours vs DDP",
             ours_ch06, torch_ch06, (model,)) for model, size in CNN_SIZES]
    jobs.append(("06", f"cnn:4 (compute), NP={NP}, batch 64, SGD momentum, ours on TCP over the "
                 "loopback as gloo; ours vs DDP", ours_ch06, torch_ch06, ("cnn:4", "tcp")))
    jobs.append(("06", f"cnn:4 (compute), NP={NP}, batch 64, SGD momentum, ours unbound as "
                 "torchrun's workers; ours vs DDP", ours_ch06, torch_ch06, ("cnn:4", "unbound")))
    return jobs


def placement_note():
    """Where each side's ranks may run and how many threads each has, measured while
    chapter 6's cnn:4 trains for 2 epochs (common.placement)."""
    flags = ["--model", "cnn:4", "--epochs", "2"]
    ours = placement([release_bin("train"), *flags], {"NP": str(NP)}, b"OMPI_COMM_WORLD_RANK")
    theirs = placement(torchrun("ddp_cnn.py", flags), {}, b"LOCAL_RANK")
    return (f"placement, measured while train --model cnn:4 runs: ours (Open MPI's binding) "
            f"{ours}; PyTorch (torchrun) {theirs}")


def jobs_ch08():
    """Chapter 08's rows: (chapter, workload, ours, PyTorch, arguments)."""
    jobs = []
    for model, size in CNN_SIZES:
        base = f"{model} ({size}), UCI digits, NP={NP}, batch 48, Adam"
        jobs.append(("08", f"{base}; ours --stage 1 vs ZeroRedundancyOptimizer (ZeRO-1, bucket views)",
                     ours_ch08, torch_ch08, ("1", "zero1", model)))
        jobs.append(("08", f"{base}; ours --stage 2 vs FSDP2 fully_shard on the model",
                     ours_ch08, torch_ch08, ("2", "fsdp2", model)))
    base = f"cnn:4 (compute), NP={NP}, batch 48, Adam, ours on TCP over the loopback as gloo"
    jobs.append(("08", f"{base}; ours --stage 1 vs ZeroRedundancyOptimizer",
                 ours_ch08, torch_ch08, ("1", "zero1", "cnn:4", "tcp")))
    jobs.append(("08", f"{base}; ours --stage 2 vs FSDP2",
                 ours_ch08, torch_ch08, ("2", "fsdp2", "cnn:4", "tcp")))
    return jobs


def notes(chapters):
    """The lines under chapters 06 and 08's rows, for those of `chapters` that ran."""
    out = {}
    if "06" in chapters:
        out["06"] = alone_note("ddp_cnn.py", [], "SGD with momentum")
    if "08" in chapters:
        out["08"] = collectives_ch08()
    return out
