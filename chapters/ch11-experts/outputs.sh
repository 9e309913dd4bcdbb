#!/usr/bin/env bash
# Chapter 11's captures for the book beyond the labs' outputs at 4 ranks (moe, moe_train):
#   the lab at NP=3 with 5 experts (blocks of 2, 2 and 1) and k = 1, at NP=1 (nothing
#   crosses), and three bad settings refused in one line before MPI starts; the training
#   lab's plot and refusals; the benchmark moe_bench (release build).
# `make outputs CH=11` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch11-experts
{ echo "\$ make run CH=11 NP=3 SOLUTION=1 ARGS='--experts 5 --k 1 --steps 2'";
  $MAKE -s --no-print-directory run CH=11 NP=3 SOLUTION=1 ARGS='--experts 5 --k 1 --steps 2' 2>&1; } > $book/output/moe-np3.txt
{ echo "\$ make run CH=11 NP=1 SOLUTION=1 ARGS='--steps 1'";
  $MAKE -s --no-print-directory run CH=11 NP=1 SOLUTION=1 ARGS='--steps 1' 2>&1; } > $book/output/moe-np1.txt
# Refused before MPI starts: one line each, exit 2.
{ for args in '--k 3' '--experts 1 --k 2' '--capacity-factor 0'; do
    echo "\$ make run CH=11 SOLUTION=1 ARGS='$args'";
    $MAKE -s --no-print-directory run CH=11 SOLUTION=1 ARGS="$args" 2>&1 || true;
  done; } > $book/output/bad-flags.txt
echo "outputs: wrote $book/output/moe-np3.txt, moe-np1.txt, bad-flags.txt"
# Part 2: the training lab's plot (α = 0 and 0.1 from the same start; its table is
# output/moe_train.txt, written by `make outputs` above), k = 2 at NP=3, and its bad flags.
{ echo "\$ make run CH=11 BIN=moe_train NP=3 SOLUTION=1 ARGS='--k 2 --experts 6 --steps 100'";
  $MAKE -s --no-print-directory run CH=11 BIN=moe_train NP=3 SOLUTION=1 ARGS='--k 2 --experts 6 --steps 100' 2>&1; } > $book/output/moe_train-np3.txt
$MAKE -s --no-print-directory run CH=11 BIN=moe_train SOLUTION=1 ARGS="--every 1000 --plot $book/output/balance.svg" > /dev/null 2>&1
# From a router whose probabilities start even (entries normal times 0.001), with its plot.
{ echo "\$ make run CH=11 BIN=moe_train SOLUTION=1 ARGS='--router-scale 0.001 --every 40 --plot output/balance-even.svg'";
  $MAKE -s --no-print-directory run CH=11 BIN=moe_train SOLUTION=1 ARGS="--router-scale 0.001 --every 40 --plot $book/output/balance-even.svg" 2>&1 \
    | sed "s|$book/output/|output/|"; } > $book/output/moe_train-even.txt
{ for args in '--alpha -0.1' '--lr 0' '--device cuda'; do
    echo "\$ make run CH=11 BIN=moe_train SOLUTION=1 ARGS='$args'";
    $MAKE -s --no-print-directory run CH=11 BIN=moe_train SOLUTION=1 ARGS="$args" 2>&1 || true;
  done; } > $book/output/bad-train-flags.txt
echo "outputs: wrote $book/output/moe_train-np3.txt, balance.svg, moe_train-even.txt, balance-even.svg, bad-train-flags.txt"
# Part 3: the benchmark (release build): EP = 1, 2, 4 on the same global batch, a balanced
# and a skewed router, with and without room for drops.
{ echo '$ make bench CH=11'
  WORKBOOK_OUT=target/workbook cargo run -q --release -p ch11-experts --features solution --bin moe_bench 2>&1 | grep -v ': running'; } \
  > $book/output/moe_bench.txt
echo "outputs: wrote $book/output/moe_bench.txt"
