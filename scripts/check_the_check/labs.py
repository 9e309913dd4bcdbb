#!/usr/bin/env python3
"""Every lab on the stubs, as a learner meets it before any exercise is done: it either
runs (exit 0), or stops at a stub of its own chapter (`not yet implemented: ex N.M`,
where the learner is), or stops on every rank with one line naming the unfinished
exercise, its chapter and `make check CH=NN` (`toolkit::gate::stop_unfinished`, exit
10), or says in one line that it runs on MPI's own collectives instead. A panic at
another chapter's stub, any other panic or another exit status is a failure. A lab still
running after LIMIT = 90 s (a debug build of a whole training) is reported, not judged.

Run: `make check-the-check` (after the mistakes), or alone:
`python3 scripts/check_the_check/labs.py` (ONLY=ch12 picks chapters by folder name).
Needs a clean chapters/ (the stubs as committed).
"""
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path.cwd()
LIMIT = 90
NOT_DONE = re.compile(r"not done yet.*make check CH=\d\d|make check CH=\d\d.*to run yours")


def judge(chapter, code, out):
    said = [l for l in out.splitlines() if NOT_DONE.search(l)]
    if "panicked at" in out:
        line = next(l for l in out.splitlines() if "panicked at" in l)
        # At its own chapter's stub: the lab stops where the learner is (the chapter's
        # page says so); at another chapter's, or any other panic: a failure.
        own = re.search(r"not yet implemented: ex (\d+)\.", line)
        if own and int(own.group(1)) == int(chapter):
            return "ok", "stops at its own chapter's stub: " + line.split("not yet implemented: ")[1][:110]
        return "FAIL", line.strip()[:150]
    if said:
        return "ok", said[0].strip()[:150]
    if code == 0:
        return "ok", (said[0].strip()[:150] if said else "ran to the end")
    if code == 124:
        return "not judged", f"still running after {LIMIT} s"
    last = [l for l in out.splitlines() if l.strip()][-1:] or [""]
    return "FAIL", f"exit {code}: {last[0].strip()[:140]}"


def main():
    course = tomllib.loads((ROOT / "course.toml").read_text())
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "chapters"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        sys.exit("labs on the stubs: chapters/ has changes; the stubs as committed are needed")
    only = os.environ.get("ONLY", "")
    rows = []
    for ch in course["chapter"]:
        code = ch.get("crate", {})
        pkg = Path(code.get("dir", "")).name
        if not pkg or only not in pkg:
            continue
        for lab in code.get("labs", []):
            np = str(code.get("ranks", {}).get(lab, 2))
            env = dict(os.environ, NP=np)
            run = subprocess.run(["timeout", "-k", "5", str(LIMIT), "cargo", "run", "-q", "-p", pkg,
                                  "--bin", lab], cwd=ROOT, env=env, capture_output=True, text=True)
            verdict, line = judge(ch["id"], run.returncode, run.stdout + run.stderr)
            rows.append((pkg, lab, np, verdict, line))
            print(f"{pkg} {lab} (NP={np}): {verdict}: {line}", flush=True)
    table = ["| chapter | lab | NP | verdict | what it said |", "|---|---|---|---|---|"]
    table += [f"| {p} | {l} | {n} | {v} | {s.replace('|', '/')} |" for p, l, n, v, s in rows]
    out = ROOT / "target" / "workbook" / "labs-on-stubs.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(table) + "\n")
    failed = sum(1 for r in rows if r[3] == "FAIL")
    print(f"\nlabs on the stubs: {len(rows) - failed} of {len(rows)} not failing; table in {out}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
