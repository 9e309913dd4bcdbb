# The plumbing every job of `make anchors` shares (scripts/anchors/anchors.py and the
# job modules import it): where the repository and our release binaries are, the ranks,
# running a command, starting a PyTorch mirror under torchrun, Open MPI's settings.

import contextlib
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
NP = 2
YIELD = {"OMPI_MCA_mpi_yield_when_idle": "1"}
# Ours with the launcher's guest mode off (toolkit::sharing): polling waits, every rank in
# the launcher's session, as before the launcher measured the load.
NOT_A_GUEST = {"WORKBOOK_SHARED": "0"}
# Open MPI on TCP over the loopback, as gloo is: a like-for-like transport.
TCP = {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self", "OMPI_MCA_btl_tcp_if_include": "lo"}


def release_bin(name):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", name)


def run(cmd, env=None, timeout=600):
    """Runs `cmd`, returns its stdout; exits with its output when it fails."""
    full = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, cwd=ROOT, env=full, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"anchors: `{' '.join(cmd)}` failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p.stdout


def torchrun(script, args):
    bindir = os.path.dirname(sys.executable)
    return [os.path.join(bindir, "torchrun"), f"--nproc-per-node={NP}", "--master-port=29517",
            os.path.join(HERE, script)] + args


# Epochs of the trainers' runs; the figure is the median over epochs 3.. of a run.
EPOCHS = 8


def epoch_median(out, pattern):
    """The median of `pattern`'s first group over the epochs after the first two."""
    rates = [float(m.group(1)) for m in re.finditer(pattern, out, re.M)]
    if len(rates) != EPOCHS:
        sys.exit(f"anchors: {len(rates)} epoch lines, expected {EPOCHS}:\n{out}")
    return statistics.median(rates[2:])


@contextlib.contextmanager
def second_job(cores):
    """`cores` busy processes (load.py, seeds 1..cores), each in a session of its own,
    while the block runs: a second job that takes every core."""
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "load.py"), str(seed)],
                              start_new_session=True) for seed in range(1, cores + 1)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


# Open MPI without binding: its ranks float over the cores, as torchrun's workers do.
UNBOUND = {"OMPI_MCA_hwloc_base_binding_policy": "none"}


def placement(cmd, env, marker):
    """Runs `cmd` and looks at its processes while it runs: for each process below it whose
    environment has `marker` (the rank variable), the CPUs it may run on and its threads,
    as last seen. Returns e.g. "CPUs 0 / 1, 5 / 5 threads"."""
    p = subprocess.Popen(cmd, cwd=ROOT, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    seen = {}
    while p.poll() is None:
        for pid in below(p.pid):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    rank = [v for v in f.read().split(b"\0") if v.startswith(marker + b"=")]
                with open(f"/proc/{pid}/status") as f:
                    status = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            if rank:
                threads = int(status["Threads"])
                key = rank[0].split(b"=")[1].decode()
                if threads >= seen.get(key, (0, ""))[0]:  # a rank's own process, not its parent
                    seen[key] = (threads, status["Cpus_allowed_list"].strip())
        time.sleep(0.2)
    ranks = [seen[k] for k in sorted(seen)]
    return (f"CPUs {' / '.join(c for _, c in ranks)}, "
            f"{' / '.join(str(t) for t, _ in ranks)} threads")


def below(root):
    """The pids of `root`'s descendants."""
    parent = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = [c for c, pp in parent.items() if pp == pid]
        out += kids
        todo += kids
    return out
