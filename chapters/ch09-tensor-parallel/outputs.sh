#!/usr/bin/env bash
# Chapter 09's captures for the book beyond its labs' output (tp_block and gpt at NP
# ranks): tp_block at 1 and 3 ranks and in f64, its --help and its refusals, the
# benchmark (tp_bench); gpt at 1 and 3 ranks, its --help and its refusals,
# its checkpoints (saved at dp 2 x tp 2, resumed at that layout and at others, refused);
# gpt at dp 2 x tp 2 x pp 2, its pipeline refusals, the trace of one of its steps, the
# layouts benchmark (gpt_layouts) and the pipelined checkpoints (saved at dp 2 x tp 1 x
# pp 2, resumed there and at other layouts).
# `make outputs CH=09` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
# `bash chapters/ch09-tensor-parallel/outputs.sh gpt` makes gpt's captures only, `... ckpt`
# its checkpoints' and its refusals only, `... pipeline` the third axis's only, `... pp-ckpt`
# the pipelined checkpoints' only, `... cuda` the --device cuda refusal only.
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
  gpt_refused
  gpt_cuda_refused
  ckpt_captures
  echo "outputs: wrote gpt-np1.txt, gpt-np3.txt, gpt-help.txt and gpt-refused.txt in $book/"
}
# --device cuda on this build: refused in torch_link's one line (on a GPU machine, accepted).
gpt_cuda_refused() {
  { echo "\$ NP=2 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --device cuda"
    NP=2 gpt --device cuda 2>&1 && echo "(accepted)" || echo "(exit status $?)"
  } > $book/output/gpt-cuda-refused.txt
}
gpt_refused() {
  { for args in '--dp 2 --tp 2' '--heads 4' '--batch 16 --dp 3' '--resume'; do
      echo "\$ NP=3 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- $args"
      NP=3 gpt $args 2>&1 && echo "(accepted)" || echo "(exit status $?)"
    done; } > $book/output/gpt-refused.txt
}
# The checkpoints, in a temporary folder (its path taken out of the output): 30 steps
# straight at dp 2 x tp 2; 20 saved there every 10; resumed to 30 at dp 2 x tp 2 (the same
# numbers), at dp 1 x tp 2 and at dp 1 x tp 3 (other layouts: the same within rounding),
# each from its own copy (a resume saves at its end); then bad checkpoints refused.
ckpt_captures() {
  local ck; ck=$(mktemp -d)
  local cmd='cargo run --release -p ch09-tensor-parallel --features solution --bin gpt --'
  local run='--steps 30 --log-every 10 --sample 0'
  keep() { sed "s|$ck/||g" | grep -E '^(grid:|resumed| +step| +[0-9]+ )'; }
  { echo "\$ NP=4 $cmd --dp 2 --tp 2 $run"
    NP=4 gpt --dp 2 --tp 2 $run 2>&1 | keep
    echo "\$ NP=4 $cmd --dp 2 --tp 2 --steps 20 --log-every 10 --sample 0 --checkpoint ckpt --every 10"
    NP=4 gpt --dp 2 --tp 2 --steps 20 --log-every 10 --sample 0 --checkpoint $ck/ckpt --every 10 2>&1 | keep
    echo '$ ls -l ckpt'
    ls -l $ck/ckpt | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
    for grid in '4 2 2' '2 1 2' '3 1 3'; do
      set -- $grid
      cp -r $ck/ckpt $ck/ckpt-$1
      echo "\$ cp -r ckpt ckpt-$1"
      echo "\$ NP=$1 $cmd --dp $2 --tp $3 $run --checkpoint ckpt-$1 --resume"
      NP=$1 gpt --dp $2 --tp $3 $run --checkpoint $ck/ckpt-$1 --resume 2>&1 | keep
    done
  } > $book/output/gpt-checkpoints.txt
  cp -r $ck/ckpt $ck/flipped
  printf '\x55' | dd of=$(ls $ck/flipped/part-0-of-1-step-*.ckpt) bs=1 seek=200 conv=notrunc status=none
  cp -r $ck/ckpt $ck/lost; rm $ck/lost/part-0-of-1-step-*.ckpt
  { for args in 'flipped' 'lost' 'ckpt --layers 3' 'ckpt --steps 20'; do
      set -- $args; d=$1; shift
      echo "\$ NP=2 $cmd --checkpoint $d --resume${*:+ $*}"
      NP=2 gpt --checkpoint $ck/$d --resume "$@" 2>&1 | sed "s|$ck/||g" && echo "(accepted)" || echo "(exit status $?)"
    done; } > $book/output/gpt-checkpoints-refused.txt
  rm -rf "$ck"
  echo "outputs: wrote gpt-checkpoints.txt, gpt-checkpoints-refused.txt and gpt-refused.txt in $book/"
}
# The pipelined checkpoints, in a temporary folder (its path taken out): 30 steps straight
# at dp 2 x tp 1 x pp 2; 20 saved there every 10 (a part per stage); resumed to 30 at that
# layout (the same numbers), at dp 1 x tp 2 and at dp 1 x tp 1 (one stage: the same within
# rounding), each from its own copy; at 7 ranks, --pp 2 refused before MPI starts.
pp_ckpt_captures() {
  local ck; ck=$(mktemp -d)
  local cmd='cargo run --release -p ch09-tensor-parallel --features solution --bin gpt --'
  local run='--steps 30 --log-every 10 --sample 0'
  keep() { sed "s|$ck/||g" | grep -E '^(grid:|resumed| +step| +[0-9]+ )'; }
  { echo "\$ NP=4 $cmd --dp 2 --tp 1 --pp 2 $run"
    NP=4 gpt --dp 2 --tp 1 --pp 2 $run 2>&1 | keep
    echo "\$ NP=4 $cmd --dp 2 --tp 1 --pp 2 --steps 20 --log-every 10 --sample 0 --checkpoint ckpt --every 10"
    NP=4 gpt --dp 2 --tp 1 --pp 2 --steps 20 --log-every 10 --sample 0 --checkpoint $ck/ckpt --every 10 2>&1 | keep
    echo '$ ls -l ckpt'
    ls -l $ck/ckpt | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
    for grid in '4 2 1 2' '2 1 2 1' '1 1 1 1'; do
      set -- $grid
      cp -r $ck/ckpt $ck/ckpt-$1
      echo "\$ cp -r ckpt ckpt-$1"
      echo "\$ NP=$1 $cmd --dp $2 --tp $3 --pp $4 $run --checkpoint ckpt-$1 --resume"
      NP=$1 gpt --dp $2 --tp $3 --pp $4 $run --checkpoint $ck/ckpt-$1 --resume 2>&1 | keep
    done
    echo "\$ NP=7 $cmd --pp 2 $run --checkpoint ckpt --resume"
    NP=7 gpt --pp 2 $run --checkpoint $ck/ckpt --resume 2>&1 | sed "s|$ck/||g" && echo "(accepted)" || echo "(exit status $?)"
  } > $book/output/gpt-pp-checkpoints.txt
  rm -rf "$ck"
  echo "outputs: wrote gpt-pp-checkpoints.txt in $book/"
}
# The third axis: gpt on a dp 2 x tp 2 x pp 2 grid, its pipeline refusals, the trace of
# one step, the layouts benchmark at 4 ranks. `bash chapters/ch09-tensor-parallel/outputs.sh pipeline`: these only.
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
  # One step's communication on every rank, traced (--trace FILE writes FILE.json).
  local tr; tr=$(mktemp -d)
  { echo "\$ NP=8 cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --dp 2 --tp 2 --pp 2 --micro 2 --steps 20 --log-every 10 --sample 0 --trace step"
    NP=8 gpt --dp 2 --tp 2 --pp 2 --micro 2 --steps 20 --log-every 10 --sample 0 --trace $tr/step 2>&1 \
      | sed "s|$tr/||g" | grep -E '^(trace of|  rank )'; } > $book/output/gpt-trace.txt
  cp $tr/step.json $book/output/gpt-step-trace.json
  rm -rf "$tr"
  pp_ckpt_captures
  echo "outputs: wrote gpt-pp2.txt, gpt-pp-refused.txt, gpt-layouts.txt, gpt-trace.txt and gpt-step-trace.json in $book/"
}
if [ "${1:-}" = gpt ]; then gpt_captures; exit 0; fi
if [ "${1:-}" = ckpt ]; then gpt_refused; gpt_cuda_refused; ckpt_captures; exit 0; fi
if [ "${1:-}" = cuda ]; then gpt_cuda_refused; exit 0; fi
if [ "${1:-}" = pipeline ]; then pipeline_captures; exit 0; fi
if [ "${1:-}" = pp-ckpt ]; then pp_ckpt_captures; exit 0; fi
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
# The planted mistakes are shown as `make check` prints them: check-*.txt, written by
# `make check-the-check`.
# The benchmark: t = 1, 2, 4 for a compute-bound and a communication-bound block.
{ echo '$ make bench CH=09'
  cargo run -q --release -p ch09-tensor-parallel --features solution --bin tp_bench 2>&1 | grep -v ': running'; } \
  > $book/output/tp-bench.txt
gpt_captures
pipeline_captures
echo "outputs: wrote tp-block-np1.txt, tp-block-np3.txt, tp-block-f64.txt, tp-block-help.txt, tp-block-refused.txt and tp-bench.txt in $book/"
