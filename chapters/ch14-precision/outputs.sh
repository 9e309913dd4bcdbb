#!/usr/bin/env bash
# Chapter 14's captures for the book beyond its labs' own (lowsum.txt at 4 ranks): the
# formats lab at one rank; the lowsum lab at NP=8 with the gradients' common mean and
# without it; the scaling lab with the scale starting at 1; and bad
# flags (and a batch 7 ranks cannot split) refused in one line before MPI starts; the
# zero_mixed lab's table at N = 1 to 8 (one step of 840 samples, which each N divides), and
# its FP8 rows at three seeds and at 10 epochs.
# `make outputs CH=14` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch14-precision
# The formats lab again at one rank (the labs loop runs it at NP): rank 0 prints either way.
{ echo "\$ make run CH=14 NP=1 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=14 NP=1 SOLUTION=1 2>&1; } > $book/output/formats.txt
{ echo "\$ make run CH=14 BIN=lowsum NP=8 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=14 BIN=lowsum NP=8 SOLUTION=1 2>&1; } > $book/output/lowsum-np8.txt
{ echo "\$ make run CH=14 BIN=lowsum NP=8 SOLUTION=1 ARGS='--mean 0'";
  $MAKE -s --no-print-directory run CH=14 BIN=lowsum NP=8 SOLUTION=1 ARGS='--mean 0' 2>&1; } > $book/output/lowsum-mean0.txt
{ echo "\$ make run CH=14 BIN=scaling SOLUTION=1 ARGS='--start 0'";
  $MAKE -s --no-print-directory run CH=14 BIN=scaling SOLUTION=1 ARGS='--start 0' 2>&1; } > $book/output/scaling-start0.txt
{ echo "\$ for n in 1 2 3 4 5 6 7 8; do make run CH=14 BIN=zero_mixed NP=\$n ARGS='--batch 840 --epochs 1'; done   # the table's rows";
  for n in 1 2 3 4 5 6 7 8; do
    out=$($MAKE -s --no-print-directory run CH=14 BIN=zero_mixed NP=$n ARGS='--batch 840 --epochs 1' 2>&1)
    [ $n = 1 ] && grep -E '^│ stage' <<<"$out"
    echo "N = $n"; grep -E '^│ (plain|ZeRO)' <<<"$out"
  done; } > $book/output/zero-mixed-by-n.txt
{ echo "\$ make run CH=14 BIN=zero_mixed SOLUTION=1 ARGS='--stage 3 ...'   # the FP8 table's rows, 3 seeds and 10 epochs";
  for args in '--seed 6' '--seed 7' '--seed 8' '--seed 6 --epochs 10'; do
    echo "ARGS='--stage 3 $args'";
    $MAKE -s --no-print-directory run CH=14 BIN=zero_mixed SOLUTION=1 ARGS="--stage 3 $args" 2>&1 | grep -E '^│ (gathered|bf16|fp8)';
  done; } > $book/output/zero-mixed-fp8.txt
{ for args in '--n 0' '--mean nan'; do
    echo "\$ make run CH=14 BIN=lowsum SOLUTION=1 ARGS='$args'";
    $MAKE -s --no-print-directory run CH=14 BIN=lowsum SOLUTION=1 ARGS="$args" 2>&1 || true;
  done;
  echo "\$ make run CH=14 BIN=mixed NP=7 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=14 BIN=mixed NP=7 SOLUTION=1 2>&1 || true; } > $book/output/bad-flags.txt
echo "outputs: wrote $book/output/formats.txt, lowsum-np8.txt, lowsum-mean0.txt, scaling-start0.txt, zero-mixed-by-n.txt, zero-mixed-fp8.txt, bad-flags.txt"
