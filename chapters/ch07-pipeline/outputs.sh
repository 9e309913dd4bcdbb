#!/usr/bin/env bash
# Chapter 07's captures for the book beyond its labs' output:
#   the planted deadlocks (the planted mistakes' make-check captures come from make
#   check-the-check), the benchmarks (pipe_bench, plan_bench, recompute_bench, transport_bench), the
#   trainer's runs with and without recomputation, its traced runs,
#   its checkpoint and resume runs, its interleaved and ZB-H1 runs, its refusals, and its
#   transports (transport_bench, the trainer by --transport).
# `make outputs CH=07` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch07-pipeline
{ echo '$ make bench CH=07';
  cargo run -q --release -p ch07-pipeline --features solution --bin pipe_bench 2>&1; } > $book/output/pipe_bench.txt
{ echo '$ cargo run --release -p ch07-pipeline --features solution --bin recompute_bench';
  cargo run -q --release -p ch07-pipeline --features solution --bin recompute_bench 2>&1; } > $book/output/recompute_bench.txt
{ echo '$ cargo run --release -p ch07-pipeline --features solution --bin plan_bench';
  cargo run -q --release -p ch07-pipeline --features solution --bin plan_bench 2>&1; } > $book/output/plan_bench.txt
# The trainer's runs the pages show: each command, then what it printed (exit status kept
# out: a refusal on purpose fails).
pipeline=(cargo run -q --release -p ch07-pipeline --features solution --bin pipeline --)
shown() { # shown NP ARGS...: one run of the pipeline lab at NP ranks
  local np=$1; shift
  echo "\$ NP=$np cargo run -q --release -p ch07-pipeline --features solution --bin pipeline -- $*"
  NP=$np "${pipeline[@]}" "$@" 2>&1 || true
}
{ echo '$ make run CH=07 NP=2 SOLUTION=1'; NP=2 $MAKE -s --no-print-directory run CH=07 SOLUTION=1 2>&1; } \
  > $book/output/train-np2.txt
shown 4 --dp 2 > $book/output/train-dp.txt
{ shown 2 --steps 1000 --report 250; echo; shown 2 --steps 1000 --report 250 --recompute stage; } \
  > $book/output/recompute-np2.txt
for s in 1f1b gpipe; do
  shown 4 --schedule $s --micro 8 --steps 20 --trace target/workbook/trace-$s > $book/output/trace-$s.txt
  cp target/workbook/trace-$s.svg $book/img/
done
# DP x PP: when each stage's data-parallel allreduce starts (the purple spans)
shown 4 --dp 2 --micro 4 --steps 20 --trace target/workbook/trace-dp > $book/output/trace-dp.txt
cp target/workbook/trace-dp.svg $book/img/
ckpt=target/workbook/ckpt07
rm -rf $ckpt
{ shown 4 --steps 300 --report 100 --checkpoint $ckpt --every 100; echo
  shown 4 --steps 600 --report 100 --checkpoint $ckpt --resume; echo
  shown 4 --steps 600 --report 100; echo
  echo "\$ ls $ckpt"; ls $ckpt; echo
  shown 2 --steps 600 --checkpoint $ckpt --resume; } > $book/output/resume.txt
# The plans by rank on the trainer: 1F1B, interleaved 1F1B and ZB-H1 on the same model,
# then an interleaved run stopped, resumed, and its files refused by another schedule.
{ for s in "1f1b" "interleaved --chunks 2" "zb-h1"; do
    shown 2 --schedule $s --steps 1000 --report 250; echo
  done; } > $book/output/train-chunked.txt
ckpt=target/workbook/ckpt07-chunked
rm -rf $ckpt
{ shown 2 --schedule interleaved --steps 300 --report 100 --checkpoint $ckpt --every 100; echo
  shown 2 --schedule interleaved --steps 600 --report 100 --checkpoint $ckpt --resume; echo
  shown 2 --schedule interleaved --steps 600 --report 100; echo
  echo "\$ ls $ckpt"; ls $ckpt; echo
  shown 2 --schedule zb-h1 --steps 600 --checkpoint $ckpt --resume; } > $book/output/resume-chunked.txt
{ shown 4 --device cuda; shown 4 --dp 3; shown 4 --depth 2; } > $book/output/refusals.txt
# The transports (book page "Moving micro-batches"): the benchmark, the trainer by each,
# and the refusals.
{ echo '$ cargo run --release -p ch07-pipeline --features solution --bin transport_bench';
  cargo run -q --release -p ch07-pipeline --features solution --bin transport_bench 2>&1; } > $book/output/transport_bench.txt
{ shown 2 --steps 1000 --report 500 --transport mpi; echo
  shown 2 --steps 1000 --report 500 --transport shm; } > $book/output/transport-np2.txt
{ shown 2 --transport ipc; shown 2 --transport shm --schedule interleaved; } > $book/output/transport-refusals.txt
{ echo '$ cargo test -p ch07-pipeline --features solution --test planted_mistakes -- --nocapture --test-threads=1 a_deadlocking_1f1b_order_is_named activations_to_the_wrong_stage_are_named'
  cargo test -q -p ch07-pipeline --features solution --test planted_mistakes -- --nocapture --test-threads=1 \
    a_deadlocking_1f1b_order_is_named activations_to_the_wrong_stage_are_named 2>&1 \
  | grep -E 'DEADLOCK|hint:|says:|\] ran `' | sed -E 's/^[. ]*//; s/^rank [0-9]+ \| +//; s/^/  /' \
  | awk '{ d = /DEADLOCK/ } NR > 1 && (/ran `/ || (d && !prev)) { print "" } { print; prev = d }'; } \
  > $book/output/planted-deadlocks.txt
echo "outputs: wrote chapter 7's planted mistakes, benchmarks, traces, checkpoint and refusal runs"
