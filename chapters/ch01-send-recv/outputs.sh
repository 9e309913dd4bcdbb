#!/usr/bin/env bash
# Chapter 01's captures for the book beyond its labs' output:
#   the deadlock lab broken on purpose.
# `make outputs CH=01` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
# One lab under mpirun with the solutions (make run ... SOLUTION=1).
run_lab() { $MAKE -s --no-print-directory run "$@" SOLUTION=1; }
out=book/src/ch01-send-recv/output
{ echo "\$ BROKEN=1 make run CH=01 BIN=deadlock NP=$NP SOLUTION=1"; \
  BROKEN=1 run_lab CH=01 BIN=deadlock 2>&1 || true; } > $out/deadlock-broken.txt
echo "outputs: wrote $out/deadlock-broken.txt (the deadlock, on purpose)"
# What the checks say about a learner's first wrong attempts is captured as `make check`
# prints it: check-*.txt, written by `make check-the-check`.
