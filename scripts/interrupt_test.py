#!/usr/bin/env python3
"""make interrupt-test: nothing outlives an interrupted run.

Starts a long target, interrupts it at one point (a "point": during the build, while a
check's ranks run, inside a lab that re-launched itself, at a step of `make cluster-test`
or `make slurm-test`) the way a learner or a scheduler would: SIGINT to the target's whole
process group (a terminal's Ctrl-C), or SIGTERM or SIGKILL to the lab alone (a `kill`, a
job scheduler, the OOM killer). Then it checks that the target ended within
END_S seconds, and that within SETTLE_S seconds more
- no process of the run is left (one that carries the run's tag in its environment, or
  names this checkout or a cluster folder under /run on its command line, or is new in a
  cluster node's namespace),
- no network namespace, link or qdisc of the cluster is left, no Slurm daemon or job,
- no file the run made is left outside target/: /dev/shm, /tmp (and MPI's session
  folders in it), /run, and the checkout as `git status` sees it.

  scripts/interrupt_test.py [--seed N] [--points K] [--only NAME ...] [--list]

SEED picks K points (default 3) at random, and the delay after each trigger; the seed is
printed so that a failure can be replayed. Cluster and Slurm points need root, and are
left out (saying so) without it. Expect 10-60 s a point after the first build.
"""
import argparse, os, random, signal, subprocess, sys, time

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
OUT = os.path.join(TARGET, "interrupt")
TAG = "WORKBOOK_INTERRUPT_RUN"
RANK_VARS = ("OMPI_COMM_WORLD_SIZE=", "PMIX_RANK=", "PMI_RANK=")
CLUSTER_DIRS = ("/run/workbook-cluster", "/run/workbook-slurm")
# Daemons and launchers a run starts whose environment and command line may name nothing
# of it (slurmd starts each step's slurmstepd with an environment of its own): new ones
# left after a point are the run's.
DAEMONS = ("slurmstepd", "slurmd", "slurmctld", "munged", "srun", "mpirun", "mpiexec",
           "orterun", "orted", "prterun", "prted", "hydra_pmi_proxy", "hydra_nameserver")
END_S, SETTLE_S, REACH_S = 60, 10, 600
# Folders the system's tools make once and keep: iproute2's (the namespaces in it are
# checked as namespaces) and libmount's.
SYSTEM_FOLDERS = ("/run/netns", "/run/mount")
TRAIN = os.path.join(TARGET, "release", "train")
LAB = [TRAIN, "--model", "mlp", "--epochs", "100000"]

# name: (command, environment, trigger, signal, whom, needs root)
#   trigger: ("line", text) a line of the target's output starts with text;
#            ("proc", kind) a process of the run of that kind exists (rustc, rank, node-b)
#   whom: "group" (the target's process group, as Ctrl-C) or "lab" (the re-launching lab)
POINTS = {
    "check-build": (["make", "check", "CH=01"], {}, [("proc", "rustc")], "INT", "group", False),
    "check-ranks": (["make", "check", "CH=02"], {}, [("proc", "rank")], "INT", "group", False),
    "lab-ctrl-c": (LAB, {"NP": "4"}, [("proc", "rank")], "INT", "group", False),
    "lab-sigterm": (LAB, {"NP": "4"}, [("proc", "rank")], "TERM", "lab", False),
    "lab-sigkill": (LAB, {"NP": "4"}, [("proc", "rank")], "KILL", "lab", False),
}
for step, after in enumerate(["built in", "1.", "2.", "3.", "4.", "5.", "6.", "7."], start=1):
    POINTS[f"cluster-{step}"] = (["make", "cluster-test"], {},
                                 [("line", f"cluster-test: {after}"), ("proc", "node-b")],
                                 "INT", "group", True)
for step, after in enumerate(["Slurm started", "1.", "2.", "3.", "4.", "5."], start=1):
    POINTS[f"slurm-{step}"] = (["make", "slurm-test"], {}, [("line", f"slurm-test: {after}")],
                               "INT", "group", True)


def read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return b"" if "b" in mode else ""


def processes():
    """pid -> (command line, environment, parent pid, network namespace) of every process."""
    table = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        stat = read(f"/proc/{pid}/stat")
        if not stat or stat.rsplit(")", 1)[1].split()[0] == "Z":
            continue
        cmd = read(f"/proc/{pid}/cmdline", "rb").replace(b"\0", b" ").decode(errors="replace")
        env = read(f"/proc/{pid}/environ", "rb").decode(errors="replace").split("\0")
        try:
            netns = os.readlink(f"/proc/{pid}/ns/net")
        except OSError:
            netns = ""
        table[int(pid)] = (cmd.strip(), env, int(stat.rsplit(")", 1)[1].split()[1]), netns)
    return table


def node_namespace(node):
    """A cluster node's network namespace, as /proc/PID/ns/net names it (None: no node)."""
    try:
        return f"net:[{os.stat(f'/run/netns/wb-{node}').st_ino}]"
    except OSError:
        return None


def node_namespaces():
    return {ns for ns in map(node_namespace, ("node-a", "node-b")) if ns}


# The nodes' namespaces seen while the run ran: a process left in one is the run's.
NODES_SEEN = set()


def of_the_run(token, before, mine):
    """The run's processes still alive: pid -> command line."""
    left = {}
    for pid, (cmd, env, _, netns) in processes().items():
        if pid in mine or pid in before:
            continue
        tagged = f"{TAG}={token}" in env
        named = ROOT in cmd or any(d in cmd for d in CLUSTER_DIRS)
        daemon = cmd.split(" ")[0].split("/")[-1].rstrip(":") in DAEMONS
        if tagged or named or daemon or netns in NODES_SEEN:
            left[pid] = cmd or "?"
    return left


def files():
    """What the check for files left behind compares: entries of /dev/shm, /tmp, /run
    (two levels into MPI's session folders), and `git status` of the checkout."""
    seen = set()
    for top in ("/dev/shm", "/tmp", "/run"):
        for name in os.listdir(top) if os.path.isdir(top) else []:
            path = os.path.join(top, name)
            if (ROOT + "/").startswith(path + "/") or path in SYSTEM_FOLDERS:
                continue
            session_root = name.startswith(("ompi.", "prte.", "openmpi-sessions"))
            if not session_root:  # MPI's per-user root may stay; what is in it may not
                seen.add(path)
            else:
                for sub, dirs, names in os.walk(path):
                    seen.update(os.path.join(sub, n) for n in dirs + names)
                    if sub.count(os.sep) - path.count(os.sep) >= 2:
                        dirs.clear()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                            text=True).stdout.splitlines()
    return seen | {f"git: {line}" for line in status}


def network():
    """The cluster's namespaces, links and qdiscs that exist now."""
    found = set()
    for cmd in (["ip", "netns", "list"], ["ip", "-o", "link", "show"], ["tc", "qdisc", "show"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True).stdout
        except OSError:
            continue
        found |= {f"{cmd[0]} {cmd[1]}: {line.split(' (')[0][:80]}" for line in out.splitlines()
                  if "wb-" in line or "wbbr0" in line}
    return found


def reached(trigger, log, token, before, mine):
    """True once the trigger happened: the line was printed, or a new process of the run
    of that kind runs (a compiler, a rank, anything inside node-b)."""
    kind, what = trigger
    if kind == "line":
        return any(line.startswith(what) for line in read(log).splitlines())
    NODES_SEEN.update(node_namespaces())
    node_b = NODES_SEEN and node_namespace("node-b")
    for pid, (cmd, env, _, netns) in processes().items():
        if pid in before or pid in mine:
            continue
        if what == "node-b":
            if netns and netns == node_b:
                return True
        elif f"{TAG}={token}" not in env:
            continue
        elif what == "rustc" and cmd.split(" ")[0].endswith("rustc"):
            return True
        elif what == "rank" and any(v.startswith(RANK_VARS) for v in env):
            return True
    return False


def lab_process(token, before):
    """The lab's own process (the one that re-launched itself under mpirun)."""
    for pid, (cmd, env, _, _) in processes().items():
        if pid not in before and f"{TAG}={token}" in env and cmd.startswith(TRAIN) \
                and not any(v.startswith(RANK_VARS) for v in env):
            return pid
    return None


def run_point(name, rng):
    command, extra, triggers, sig, whom, _ = POINTS[name]
    token = f"{os.getpid()}-{name}"
    log = os.path.join(OUT, f"{name}.txt")
    mine = {os.getpid()}
    before = dict.fromkeys(processes())
    files_before, net_before = files(), network()
    if name == "check-build":
        os.utime(os.path.join(ROOT, "chapters/ch01-send-recv/src/lib.rs"))
    env = dict(os.environ, **extra, **{TAG: token})
    start = time.monotonic()
    with open(log, "w") as out:
        target = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
    delay = rng.uniform(0, 1.0)
    for trigger in triggers:
        while not reached(trigger, log, token, before, mine):
            if target.poll() is not None or time.monotonic() - start > REACH_S:
                kill_everything(target, token, before, mine)
                return f"FAILED: never reached {trigger[1]!r} (see {log})"
            time.sleep(0.05)
    time.sleep(delay)
    NODES_SEEN.update(node_namespaces())
    at = time.monotonic() - start
    signum = getattr(signal, f"SIG{sig}")
    if whom == "group":
        os.killpg(target.pid, signum)
    else:
        os.kill(lab_process(token, before) or target.pid, signum)
    sent = time.monotonic()
    try:
        target.wait(timeout=END_S)
    except subprocess.TimeoutExpired:
        kill_everything(target, token, before, mine)
        return f"FAILED: still running {END_S} s after SIG{sig} (see {log})"
    ended = time.monotonic() - sent
    deadline = time.monotonic() + SETTLE_S
    while (left := of_the_run(token, before, mine)) and time.monotonic() < deadline:
        time.sleep(0.2)
    problems = [f"process {pid} left: {cmd[:160]}" for pid, cmd in sorted(left.items())]
    kill_everything(target, token, before, mine)
    problems += [f"left: {n}" for n in sorted(network() - net_before)]
    problems += [f"file left: {f}" for f in sorted(files() - files_before)]
    what = f"SIG{sig} to the {'process group' if whom == 'group' else 'lab'} at {at:.1f} s"
    if problems:
        return f"FAILED ({what}):\n    " + "\n    ".join(problems)
    return f"{what}: it ended {ended:.1f} s later, nothing left"


def kill_everything(target, token, before, mine):
    """Cleans up after a failed point, so that the next one starts clean."""
    try:
        os.killpg(target.pid, signal.SIGKILL)
    except OSError:
        pass
    for pid in of_the_run(token, before, mine):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    target.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SEED") or time.time()))
    parser.add_argument("--points", type=int, default=int(os.environ.get("POINTS") or 3))
    parser.add_argument("--only", nargs="*", default=(os.environ.get("ONLY") or "").split())
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        print("\n".join(POINTS))
        return 0
    root = os.geteuid() == 0
    usable = [n for n, p in POINTS.items() if root or not p[5]]
    unknown = [n for n in args.only if n not in POINTS]
    if unknown:
        print(f"interrupt-test: no point {', '.join(unknown)} (--list names them)")
        return 2
    rng = random.Random(args.seed)
    chosen = args.only or rng.sample(usable, min(args.points, len(usable)))
    print(f"interrupt-test: seed {args.seed}: {', '.join(chosen)} (replay: make interrupt-test "
          f"SEED={args.seed}; all points: --list)"
          + ("" if root else "; cluster and Slurm points need root, left out"))
    os.makedirs(OUT, exist_ok=True)
    if any(POINTS[n][0] == LAB for n in chosen):
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "ch06-data-parallel",
                        "--features", "solution", "--bin", "train"], cwd=ROOT, check=True)
    failed = 0
    for name in chosen:
        t0 = time.monotonic()
        verdict = run_point(name, rng)
        failed += verdict.startswith("FAILED")
        print(f"interrupt-test: {name}: {verdict} ({time.monotonic() - t0:.0f} s)", flush=True)
    print(f"interrupt-test: {'FAILED' if failed else 'passed'}: {len(chosen) - failed} of "
          f"{len(chosen)} interruptions left nothing behind")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
