#!/usr/bin/env bash
# Chapter 13's captures for the book beyond its labs' own (ring_attention.txt, zigzag.txt,
# ulysses.txt and backward.txt at 4 ranks): the labs at NP=8, and a sequence or heads the ranks cannot
# split refused in one line before MPI starts; the ulysses lab at 1x, 2x and 4x the
# default context; the attention benchmark (blocks against one piece, one thread); the ring's
# overlap benchmark at 2 ranks. `make outputs CH=13` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch13-context-parallel
{ echo "\$ make run CH=13 NP=8 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=13 NP=8 SOLUTION=1 2>&1; } > $book/output/ring_attention-np8.txt
{ echo "\$ make run CH=13 BIN=zigzag NP=8 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=13 BIN=zigzag NP=8 SOLUTION=1 2>&1; } > $book/output/zigzag-np8.txt
{ echo "\$ make run CH=13 BIN=ulysses NP=8 SOLUTION=1 ARGS='--heads 8'";
  $MAKE -s --no-print-directory run CH=13 BIN=ulysses NP=8 SOLUTION=1 ARGS='--heads 8' 2>&1; } > $book/output/ulysses-np8.txt
{ echo "\$ for n in 1536 3072 6144; do make run CH=13 BIN=ulysses SOLUTION=1 ARGS=\"--seq \$n\"; done   # the context 1x, 2x, 4x";
  for n in 1536 3072 6144; do
    $MAKE -s --no-print-directory run CH=13 BIN=ulysses SOLUTION=1 ARGS="--seq $n" 2>&1 | grep -v '^\[workbook\]\|^formulas';
  done; } > $book/output/ulysses-by-length.txt
{ echo "\$ OMP_NUM_THREADS=1 cargo run -q --release -p ch13-context-parallel --features solution --bin attention_bench";
  OMP_NUM_THREADS=1 cargo run -q --release -p ch13-context-parallel --features solution --bin attention_bench 2>&1; } > $book/output/attention-bench.txt
{ echo "\$ NP=2 cargo run -q --release -p ch13-context-parallel --features solution --bin ring_overlap";
  NP=2 cargo run -q --release -p ch13-context-parallel --features solution --bin ring_overlap 2>&1 | grep -v '^\[workbook\]'; } > $book/output/ring-overlap.txt
{ echo "\$ make run CH=13 BIN=backward NP=8 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=13 BIN=backward NP=8 SOLUTION=1 2>&1; } > $book/output/backward-np8.txt
{ echo "\$ make run CH=13 NP=8 SOLUTION=1 ARGS='--seq 100'";
  $MAKE -s --no-print-directory run CH=13 NP=8 SOLUTION=1 ARGS='--seq 100' 2>&1 || true;
  echo "\$ make run CH=13 BIN=zigzag NP=3 SOLUTION=1 ARGS='--seq 100'";
  $MAKE -s --no-print-directory run CH=13 BIN=zigzag NP=3 SOLUTION=1 ARGS='--seq 100' 2>&1 || true;
  echo "\$ make run CH=13 BIN=ulysses NP=8 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=13 BIN=ulysses NP=8 SOLUTION=1 2>&1 || true; } > $book/output/bad-flags.txt
# The GPT with CP: chapter 9's lab at the same flags beside it (tp 1 and tp 2), two
# 8-rank layouts, and a checkpoint saved at cp 2 resumed by chapter 9's lab at cp 1.
{ echo "\$ make run CH=09 BIN=gpt NP=1 SOLUTION=1 ARGS='--tp 1 --steps 500'";
  $MAKE -s --no-print-directory run CH=09 BIN=gpt NP=1 SOLUTION=1 ARGS='--tp 1 --steps 500' 2>&1 | sed -n '/step  train/,/^ *500 /p';
  echo "\$ make run CH=09 BIN=gpt NP=2 SOLUTION=1 ARGS='--tp 2 --steps 500'";
  $MAKE -s --no-print-directory run CH=09 BIN=gpt NP=2 SOLUTION=1 ARGS='--tp 2 --steps 500' 2>&1 | sed -n '/step  train/,/^ *500 /p';
  echo "\$ make run CH=13 BIN=gpt_cp NP=4 SOLUTION=1 ARGS='--tp 2 --steps 500'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=4 SOLUTION=1 ARGS='--tp 2 --steps 500' 2>&1 | sed -n '/step  train/,/^ *500 /p'; } > $book/output/gpt-cp-beside-gpt.txt
{ echo "\$ make run CH=13 BIN=gpt_cp NP=8 SOLUTION=1 ARGS='--cp 2 --dp 2 --tp 2 --steps 250'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=8 SOLUTION=1 ARGS='--cp 2 --dp 2 --tp 2 --steps 250' 2>&1 | grep -v '^\[workbook\]';
  echo "\$ make run CH=13 BIN=gpt_cp NP=8 SOLUTION=1 ARGS='--cp 4 --tp 1 --pp 2 --micro 2 --steps 250'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=8 SOLUTION=1 ARGS='--cp 4 --tp 1 --pp 2 --micro 2 --steps 250' 2>&1 | grep -v '^\[workbook\]'; } > $book/output/gpt-cp-np8.txt
ckpt=$(mktemp -d)
{ echo "\$ make run CH=13 BIN=gpt_cp NP=4 SOLUTION=1 ARGS='--steps 250 --checkpoint DIR'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=4 SOLUTION=1 ARGS="--steps 250 --checkpoint $ckpt" 2>&1 | grep -v '^\[workbook\]' | sed "s|$ckpt|DIR|";
  echo "\$ make run CH=09 BIN=gpt NP=2 SOLUTION=1 ARGS='--tp 2 --steps 500 --checkpoint DIR --resume'";
  $MAKE -s --no-print-directory run CH=09 BIN=gpt NP=2 SOLUTION=1 ARGS="--tp 2 --steps 500 --checkpoint $ckpt --resume" 2>&1 | sed "s|$ckpt|DIR|" | sed -n '/resumed/,/^ *500 /p'; } > $book/output/gpt-cp-resume.txt
rm -rf "$ckpt"
refused() { # NP, ARGS: the lab's one-line refusal
  echo "\$ make run CH=13 BIN=gpt_cp NP=$1 SOLUTION=1 ARGS='$2'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=$1 SOLUTION=1 ARGS="$2" 2>&1 || true; }
{ refused 4 "--cp 3"; refused 3 "--cp 3 --tp 1"; refused 4 "--tp 4";
  refused 4 "--attention ulysses"; refused 3 "--cp 3 --tp 1 --seq 63 --attention zigzag"; } > $book/output/gpt-cp-bad-flags.txt
# The three attentions side by side: cp 2 at 2 ranks, 500 steps each.
for attention in ring zigzag ulysses; do
  echo "\$ make run CH=13 BIN=gpt_cp NP=2 SOLUTION=1 ARGS='--attention $attention --steps 500'";
  $MAKE -s --no-print-directory run CH=13 BIN=gpt_cp NP=2 SOLUTION=1 ARGS="--attention $attention --steps 500" 2>&1 | sed -n '/^attention over/p;/step  train/,/^ *500 /p';
done > $book/output/gpt-cp-attentions.txt
echo "outputs: wrote $book/output/ring_attention-np8.txt, zigzag-np8.txt, ulysses-np8.txt, ulysses-by-length.txt, attention-bench.txt, ring-overlap.txt, backward-np8.txt, bad-flags.txt, gpt-cp-beside-gpt.txt, gpt-cp-np8.txt, gpt-cp-resume.txt, gpt-cp-bad-flags.txt, gpt-cp-attentions.txt"
