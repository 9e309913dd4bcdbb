#!/usr/bin/env python3
"""Checks the check: injects realistic mistakes into solved chapters and asks whether
`make check CH=NN` shows first the exercise, the function to open and the cause.

Run: `make check-the-check` (ONLY="11. 12.5" picks mistakes whose id holds one); on demand or
weekly, not in `make test` (each mistake is a chapter's whole check: about a minute).

For each mistake of scripts/check_the_check/mistakes.toml: every exercise file of its
chapter gets its solution (from solutions/), the one file gets the mistake (`find`
replaced by `replace`, which must occur once), `workbook check NN` runs as a learner's
`make check CH=NN` would, and the first failure it prints is judged: the exercise
(the first "ex N.M is failing" block), the function ("Next:" opens that one function,
or the message names it) and the cause (`cause` matches the message). The chapter's
files are restored after each mistake, and on Ctrl-C. Writes the table to
target/workbook/check-the-check.md and each check's output next to it; a mistake with a
`capture` (a book page shows it) also writes what `make check` printed first there,
after a `$ make check CH=NN    # says` line. Exits 1 below the target (90% of the
mistakes named in all three).
"""
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path.cwd()
OUT = ROOT / "target" / "workbook"
TARGET = 0.9


def chapter_dir(course, exercise):
    major = exercise.split(".")[0].zfill(2)
    for ch in course["chapter"]:
        if ch["id"] == major:
            return ch["id"], ROOT / ch["crate"]["dir"]
    sys.exit(f"check-the-check: no chapter for ex {exercise}")


def solution_files(chapter):
    """{solution file: the exercise file it replaces}, from the stubs' `#[cfg_attr(feature =
    "solution", path = "...")]` lines and the `mod NAME;` after each."""
    found = {}
    for rs in sorted((chapter / "src").rglob("*.rs")):
        text = rs.read_text()
        for m in re.finditer(r'feature\s*=\s*"solution",\s*path\s*=\s*"([^"]+)"\s*\)\]\s*(?:pub\s+)?mod\s+(\w+);', text):
            solution = (rs.parent / m.group(1)).resolve()
            home = rs.parent if rs.name in ("lib.rs", "mod.rs", "main.rs") else rs.parent / rs.stem
            found[solution] = home / f"{m.group(2)}.rs"
    return found


def restore(paths):
    if paths:
        subprocess.run(["git", "checkout", "--"] + [str(p) for p in paths], cwd=ROOT, check=False)


def first_failure(out):
    """(exercise, message, functions of the Next line) of a check's output."""
    m = re.search(r"^ex (\S+) is failing: \S+\n(.*?)(?=\n\n|\n  also failing|\Z)", out, re.S | re.M)
    n = re.search(r"^Next: ex (\S+).*\n  open \S+ \(fn ([^):]*)", out, re.M)
    fns = re.split(r", | or ", n.group(2).strip()) if n else []
    return (m.group(1) if m else None), (m.group(2) if m else ""), fns


def judge(mistake, out):
    exercise, message, fns = first_failure(out)
    fn = mistake["function"]
    named = fns == [fn] or (fn in fns and re.search(rf"\b{fn}\b", message))
    return {
        "exercise": exercise == mistake["exercise"],
        "function": exercise == mistake["exercise"] and bool(named),
        "cause": exercise == mistake["exercise"] and bool(re.search(mistake["cause"], message, re.I)),
        "first": message.splitlines()[0][:110] if message else "(no failure shown)",
        "next": ", ".join(fns),
    }


def capture(mistake, nn, out):
    """What `make check` printed first for the mistake, for a book page: the command, the
    mistake in words, the failing exercise's block and the "Next:" lines."""
    block = re.search(r"^ex \S+ is failing: .*?(?=\n\n|\Z)", out, re.S | re.M)
    nxt = re.search(r"^Next: .*?(?=\n\S|\Z)", out, re.S | re.M)
    text = f"$ make check CH={nn}    # {mistake['says']}\n"
    text += (block.group(0) if block else "(no failing exercise)") + "\n"
    text += ("\n" + nxt.group(0).rstrip() + "\n") if nxt else ""
    (ROOT / mistake["capture"]).write_text(text)


def main():
    course = tomllib.loads((ROOT / "course.toml").read_text())
    mistakes = tomllib.loads((ROOT / "scripts/check_the_check/mistakes.toml").read_text())["mistake"]
    only = os.environ.get("ONLY", "").split()
    mistakes = [m for m in mistakes if not only or any(o in m["id"] for o in only)]
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "chapters"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        sys.exit("check-the-check: chapters/ has changes of yours (it overwrites exercise files "
                 "and restores them from git): commit or stash them first:\n" + dirty)
    (OUT / "check-the-check").mkdir(parents=True, exist_ok=True)
    touched = []
    signal.signal(signal.SIGTERM, lambda *_: (restore(touched), sys.exit(143)))
    rows = []
    try:
        for i, m in enumerate(mistakes, 1):
            nn, chapter = chapter_dir(course, m["exercise"])
            files = solution_files(chapter)
            touched = list(files.values())
            for solution, target in files.items():
                target.write_text(solution.read_text())
            target = files.get((ROOT / m["file"]).resolve())
            text = target.read_text() if target else ""
            if text.count(m["find"]) != 1:
                sys.exit(f"check-the-check: {m['id']}: `find` occurs {text.count(m['find'])} times in {m['file']}")
            target.write_text(text.replace(m["find"], m["replace"]))
            print(f"[{i}/{len(mistakes)}] {m['id']}: make check CH={nn} ...", flush=True)
            run = subprocess.run(["cargo", "run", "-q", "-p", "course", "--bin", "workbook", "--",
                                  "check", nn], cwd=ROOT, capture_output=True, text=True, timeout=1800)
            out = run.stdout + run.stderr
            (OUT / "check-the-check" / f"{m['id']}.txt").write_text(out)
            verdict = judge(m, out)
            if m.get("capture"):
                capture(m, nn, out)
            rows.append((m, verdict))
            marks = " ".join(k for k in ("exercise", "function", "cause") if verdict[k])
            print(f"    named: {marks or 'nothing'}; first: {verdict['first']}", flush=True)
            restore(touched)
            touched = []
    except KeyboardInterrupt:
        restore(touched)
        sys.exit(130)
    finally:
        restore(touched)
    yes = lambda b: "yes" if b else "**no**"
    lines = ["| mistake | exercise | function | cause | Next: fn | first line of the message |",
             "|---|---|---|---|---|---|"]
    for m, v in rows:
        first = v["first"].replace("|", "\\|")
        lines.append(f"| {m['id']} | {yes(v['exercise'])} | {yes(v['function'])} | {yes(v['cause'])} | {v['next']} | {first} |")
    all3 = sum(1 for _, v in rows if v["exercise"] and v["function"] and v["cause"])
    lines.append(f"\n{all3} of {len(rows)} mistakes named the exercise, the function and the cause "
                 f"(target: {TARGET:.0%}).")
    table = "\n".join(lines)
    (OUT / "check-the-check.md").write_text(table + "\n")
    print("\n" + table)
    print(f"\ncheck-the-check: table in {OUT / 'check-the-check.md'}, each output in {OUT / 'check-the-check'}/")
    sys.exit(0 if rows and all3 >= TARGET * len(rows) else 1)


if __name__ == "__main__":
    main()
