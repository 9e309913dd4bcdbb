#!/usr/bin/env bash
# Chapter 08's captures for the book beyond its lab's output: the lab's traced figure, its
# --help, stages 0 and 1 at 4 ranks, the bytes per rank against N (a table, and a plot at
# N = 1..8), sharded checkpoints
# (saved, resumed, resharded, refused), and the planted mistakes.
# `make outputs CH=08` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
book=book/src/ch08-sharded
# The figure the lab's run (make outputs ran it just before) drew from its traced messages.
mkdir -p $book/img
cp "$TARGET_DIR/workbook/ch08/zero-step-2.svg" $book/img/
zero() { cargo run -q --release -p ch08-sharded --features solution --bin zero -- "$@"; }
{ echo '$ cargo run --release -p ch08-sharded --features solution --bin zero -- --help';
  zero --help; } > $book/output/zero-help.txt
for s in 0 1; do
  { echo "\$ NP=4 cargo run --release -p ch08-sharded --features solution --bin zero -- --stage $s --epochs 1";
    NP=4 zero --stage $s --epochs 1 2>&1; } > $book/output/zero-stage$s.txt
done
cp "$TARGET_DIR/workbook/ch08/zero-step-1.svg" $book/img/   # the stage 1 run's figure
# Rank 0's row of the lab's table, for every stage at N = 1, 2, 4, 8 (one step each).
{ echo '$ for N in 1 2 4 8; do for s in 0 1 2; do NP=$N cargo run --release -p ch08-sharded --features solution --bin zero -- --stage $s --max-steps 1 --quiet; done; done   # rank 0 of each'
  printf '%-9s %2s %10s %10s %12s %12s %14s\n' stage N 'held B' 'formula B' 'held-formula' 'sent/step B' '2P(N-1)/N x 4'
  for n in 1 2 4 8; do
    for s in 0 1 2; do
      out=$(NP=$n zero --stage $s --max-steps 1 --quiet 2>&1)
      name=$(echo "$out" | sed -n 's/^zero: stage [0-9] (\([^)]*\)).*/\1/p')
      echo "$out" | grep '^│ 0 ' | awk -F'│' -v s="$name" -v n=$n '{
        gsub(/ /, "", $6); gsub(/ /, "", $7); gsub(/ /, "", $8); gsub(/ /, "", $9); gsub(/ /, "", $10);
        printf "%-9s %2s %10s %10s %12s %12s %14s\n", s, n, $6, $7, $8, $9, $10 }'
    done
  done; } > $book/output/memory.txt
# The memory plot: every stage of memory.rs at N = 1..8, measured by the lab (rank 0).
{ echo '$ cargo run --release -p ch08-sharded --features solution --bin memory_plot -- img/memory-per-rank.svg'
  cargo run -q --release -p ch08-sharded --features solution --bin memory_plot -- \
    $book/img/memory-per-rank.svg | sed "s|$book/||"; } > $book/output/memory-by-n.txt
# Sharded checkpoints: 40 steps straight; 20 saved at 2 ranks, then resumed at 2 ranks (the
# same fingerprint) and at 3 (resharded); then three bad checkpoints refused.
ck=$(mktemp -d)
cmd='cargo run --release -p ch08-sharded --features solution --bin zero --'
keep() { sed "s|$ck/||g" | grep -E '^(zero:|resumed|after|checkpoint)'; }
{ echo "\$ NP=2 $cmd --model mlp --max-steps 40 --checkpoint straight --quiet"
  NP=2 zero --model mlp --max-steps 40 --checkpoint $ck/straight --quiet 2>&1 | keep
  echo "\$ NP=2 $cmd --model mlp --max-steps 20 --checkpoint ckpt --quiet"
  NP=2 zero --model mlp --max-steps 20 --checkpoint $ck/ckpt --quiet 2>&1 | keep
  echo '$ ls -l ckpt'
  ls -l $ck/ckpt | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
  cp -r $ck/ckpt $ck/ckpt3
  echo "\$ NP=2 $cmd --model mlp --max-steps 40 --checkpoint ckpt --resume --quiet"
  NP=2 zero --model mlp --max-steps 40 --checkpoint $ck/ckpt --resume --quiet 2>&1 | keep
  echo "\$ NP=3 $cmd --model mlp --max-steps 40 --checkpoint ckpt3 --resume --quiet"
  NP=3 zero --model mlp --max-steps 40 --checkpoint $ck/ckpt3 --resume --quiet 2>&1 | keep
} > $book/output/checkpoints.txt
cp -r $ck/ckpt3 $ck/flipped; printf '\x55' | dd of=$ck/flipped/shard-1-of-3.ckpt bs=1 seek=200 conv=notrunc status=none
cp -r $ck/ckpt3 $ck/lost; rm $ck/lost/shard-2-of-3.ckpt
{ for case in 'flipped --model mlp' 'lost --model mlp' 'ckpt3 --model cnn'; do
    set -- $case
    echo "\$ NP=4 $cmd $2 $3 --checkpoint $1 --resume; echo \"exit \$?\""
    NP=4 zero $2 $3 --checkpoint $ck/$1 --resume 2>&1 | sed "s|$ck/||g" || echo "exit $?"
  done; } > $book/output/checkpoint-refusals.txt
rm -rf "$ck"
# The planted mistakes: what the learner sees of each, one file per mistake.
cmd='$ cargo test -p ch08-sharded --features solution --test planted_mistakes -- --nocapture'
said=$(cargo test -q -p ch08-sharded --features solution --test planted_mistakes -- --nocapture 2>&1 \
  | sed 's/^[.i]*//; s/^rank [0-9]* | //' | sort -u)
for pair in 'padding:^P = ' 'average:^rank 0 says: .*not divided' 'whole:^rank 0: panicked at .*Adam was given' \
  'reshard:^reshard of P = '; do
  { echo "$cmd"; echo "$said" | grep -E "${pair#*:}"; } > $book/output/planted-${pair%%:*}.txt
done
echo "outputs: wrote img/zero-step-1.svg, img/zero-step-2.svg, img/memory-per-rank.svg, memory-by-n.txt, zero-help.txt, zero-stage0.txt, zero-stage1.txt, memory.txt, checkpoints.txt, checkpoint-refusals.txt and planted-*.txt in $book/"
