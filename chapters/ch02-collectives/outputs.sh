#!/usr/bin/env bash
# Chapter 02's captures for the book beyond its labs' output:
#   the message patterns at 8 ranks and their figures.
# `make outputs CH=02` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
# One lab under mpirun with the solutions (make run ... SOLUTION=1).
run_lab() { $MAKE -s --no-print-directory run "$@" SOLUTION=1; }
book=book/src/ch02-collectives
{ echo '$ make run CH=02 BIN=patterns NP=8 SOLUTION=1'; NP=8 run_lab CH=02 BIN=patterns 2>&1; } > $book/output/patterns.txt
mkdir -p $book/img
for f in broadcast reduce allgather alltoall; do cp "$TARGET_DIR/workbook/ch02-$f.svg" $book/img/; done
echo "outputs: wrote $book/output/patterns.txt and its figures in img/"
