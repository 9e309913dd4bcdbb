#!/usr/bin/env bash
# Chapter 09's captures for the book beyond its labs' output (tp_block and gpt at NP
# ranks): tp_block at 1 and 3 ranks and in f64, its --help and its refusals, the planted
# mistakes, the benchmark (tp_bench); gpt at 1 and 3 ranks, its --help and its refusals;
# gpt at dp 2 x tp 2 x pp 2, its pipeline refusals and the layouts benchmark (gpt_layouts).
# `make outputs CH=09` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
# `bash chapters/ch09-tensor-parallel/outputs.sh gpt` makes gpt's captures only.
set -euo pipefail
book=book/src/ch09-tensor-parallel
gpt() { cargo run -q --release -p ch09-tensor-parallel --features solution --bin gpt -- "$@"; }
gpt_captures() {
  for n in 1 3; do
    { echo "\$ NP=$n cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --steps 200";
      NP=$n gpt --steps 200 2>&1 | grep -v 're-launching'; } > $book/output/gpt-np$n.txt
  done
  { echo '$ cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --help';
    gpt --help; } > $book/output/gpt-help.txt
  { for args in '--dp 2 --tp 2' '--heads 4' '--batch 16 --dp 3' '--checkpoint gpt.ckpt'; do
      echo "\$ NP=3 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- $args"
      NP=3 gpt $args 2>&1 && echo "(accepted)" || echo "(exit status $?)"
    done; } > $book/output/gpt-refused.txt
  echo "outputs: wrote gpt-np1.txt, gpt-np3.txt, gpt-help.txt and gpt-refused.txt in $book/"
}
# The third axis: gpt on a dp 2 x tp 2 x pp 2 grid, its pipeline refusals, the layouts
# benchmark at 4 ranks. `bash chapters/ch09-tensor-parallel/outputs.sh pipeline`: these only.
pipeline_captures() {
  { echo "\$ NP=8 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --dp 2 --tp 2 --pp 2 --micro 2 --steps 200";
    NP=8 gpt --dp 2 --tp 2 --pp 2 --micro 2 --steps 200 2>&1 | grep -v 're-launching'; } > $book/output/gpt-pp2.txt
  { for args in '--pp 2' '--pp 3' '--pp 3 --layers 3 --micro 3'; do
      echo "\$ NP=3 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- $args"
      NP=3 gpt $args 2>&1 && echo "(accepted)" || echo "(exit status $?)"
    done; } > $book/output/gpt-pp-refused.txt
  { echo '$ NP=4 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt_layouts'
    NP=4 cargo run -q --release -p ch09-tensor-parallel --features solution --bin gpt_layouts 2>&1 | grep -v ': running'; } \
    > $book/output/gpt-layouts.txt
  echo "outputs: wrote gpt-pp2.txt, gpt-pp-refused.txt and gpt-layouts.txt in $book/"
}
if [ "${1:-}" = gpt ]; then gpt_captures; exit 0; fi
if [ "${1:-}" = pipeline ]; then pipeline_captures; exit 0; fi
lab() { cargo run -q --release -p ch09-tensor-parallel --features solution --bin tp_block -- "$@"; }
for n in 1 3; do
  { echo "\$ NP=$n cargo run --release -p ch09-tensor-parallel --features solution --bin tp_block";
    NP=$n lab 2>&1 | grep -v 're-launching'; } > $book/output/tp-block-np$n.txt
done
{ echo '$ NP=4 cargo run --release -p ch09-tensor-parallel --features solution --bin tp_block -- --dtype f64';
  NP=4 lab --dtype f64 2>&1 | grep -v 're-launching'; } > $book/output/tp-block-f64.txt
{ echo '$ cargo run --release -p ch09-tensor-parallel --features solution --bin tp_block -- --help';
  lab --help; } > $book/output/tp-block-help.txt
# Refusals: one line each, before MPI starts (the exit status after it).
{ for args in '--heads 8' '--hidden 100' '--dtype f16'; do
    echo "\$ NP=3 cargo run --release -p ch09-tensor-parallel --features solution --bin tp_block -- $args"
    NP=3 lab $args 2>&1 && echo "(accepted)" || echo "(exit status $?)"
  done; } > $book/output/tp-block-refused.txt
# The planted mistakes: what the learner sees of each, one file per mistake.
cmd='$ cargo test -p ch09-tensor-parallel --features solution --test planted_mistakes -- --nocapture'
said=$(cargo test -q -p ch09-tensor-parallel --features solution --test planted_mistakes -- --nocapture 2>&1 \
  | sed 's/^[.i]*//; s/^rank [0-9]* | //' | sort -u)
for pair in 'f-backward:^rank 0 says: .*f.s backward must sum' 'bias:^rank 0 says: .*bias added on each' \
    'vocab:^vocabulary shards, V = '; do
  { echo "$cmd"; echo "$said" | grep -E "${pair#*:}"; } > $book/output/planted-${pair%%:*}.txt
done
# The benchmark: t = 1, 2, 4 for a compute-bound and a communication-bound block.
{ echo '$ make bench CH=09'
  cargo run -q --release -p ch09-tensor-parallel --features solution --bin tp_bench 2>&1 | grep -v ': running'; } \
  > $book/output/tp-bench.txt
gpt_captures
pipeline_captures
echo "outputs: wrote tp-block-np1.txt, tp-block-np3.txt, tp-block-f64.txt, tp-block-help.txt, tp-block-refused.txt, planted-*.txt and tp-bench.txt in $book/"
