#!/usr/bin/env bash
# Chapter 12's captures for the book beyond the hier lab's output at 4 ranks:
#   the lab at NP=3 (2 emulated nodes of 2 and 1: ex 12.2 does not apply), at NP=1, with a
#   network card per rank (--cards rank), and
#   bad settings refused in one line (a flag before MPI starts, a layout after); the
#   compress lab at NP=1 and NP=3 (its NP=4 run is the lab's own capture, compress.txt;
#   so is compress_cnn.txt, `make run CH=12 BIN=compress_cnn SOLUTION=1`, from the labs loop);
#   the local_sgd lab at NP=1 (no drift: when the loss is read) and its bad flags refused
#   before MPI starts; the less_bench benchmark.
# `make outputs CH=12` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch12-communicating-less
{ echo "\$ make run CH=12 NP=3 SOLUTION=1 ARGS='--reps 5'";
  $MAKE -s --no-print-directory run CH=12 NP=3 SOLUTION=1 ARGS='--reps 5' 2>&1; } > $book/output/hier-np3.txt
{ echo "\$ make run CH=12 NP=1 SOLUTION=1 ARGS='--nodes 1 --reps 5'";
  $MAKE -s --no-print-directory run CH=12 NP=1 SOLUTION=1 ARGS='--nodes 1 --reps 5' 2>&1; } > $book/output/hier-np1.txt
{ for args in '--nodes 0' '--nodes 5'; do
    echo "\$ make run CH=12 SOLUTION=1 ARGS='$args'";
    $MAKE -s --no-print-directory run CH=12 SOLUTION=1 ARGS="$args" 2>&1 || true;
  done; } > $book/output/bad-layouts.txt
for np in 1 3; do
  { echo "\$ make run CH=12 BIN=compress NP=$np SOLUTION=1";
    $MAKE -s --no-print-directory run CH=12 BIN=compress NP=$np SOLUTION=1 2>&1; } > $book/output/compress-np$np.txt
done
{ echo "\$ make run CH=12 SOLUTION=1 ARGS='--cards rank --reps 5'";
  $MAKE -s --no-print-directory run CH=12 SOLUTION=1 ARGS='--cards rank --reps 5' 2>&1; } > $book/output/hier-cards-rank.txt
echo "outputs: wrote $book/output/hier-np3.txt, hier-np1.txt, bad-layouts.txt, compress-np1.txt, compress-np3.txt, hier-cards-rank.txt"
{ for args in '--every 0' '--every 1,2,4 --steps 30'; do
    echo "\$ make run CH=12 BIN=local_sgd SOLUTION=1 ARGS='$args'";
    $MAKE -s --no-print-directory run CH=12 BIN=local_sgd SOLUTION=1 ARGS="$args" 2>&1 || true;
  done; } > $book/output/local-sgd-bad-flags.txt
{ echo "\$ make run CH=12 BIN=local_sgd NP=1 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=12 BIN=local_sgd NP=1 SOLUTION=1 2>&1; } > $book/output/local_sgd-np1.txt
{ echo "\$ make bench CH=12"; $MAKE -s --no-print-directory bench CH=12 2>&1; } > $book/output/less_bench.txt
echo "outputs: wrote $book/output/local-sgd-bad-flags.txt, local_sgd-np1.txt, less_bench.txt"
