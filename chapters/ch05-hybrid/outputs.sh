#!/usr/bin/env bash
# Chapter 05's captures for the book beyond its labs' output:
#   the labs at the rank counts the pages discuss, the benchmarks, the plot, the planted
#   mistakes.
# `make outputs CH=05` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch05-hybrid
capture() { # capture FILE NP BIN [ENV=VALUE]: one lab's run at NP ranks
  local file=$1 np=$2 bin=$3 env=${4:-}
  { echo "\$ ${env:+$env }make run CH=05 BIN=$bin NP=$np SOLUTION=1";
    env $env NP=$np $MAKE -s --no-print-directory run CH=05 BIN=$bin SOLUTION=1 2>&1; } > $book/output/$file
}
capture threads-np1.txt 1 threads
capture hybrid.txt 1 hybrid
capture hybrid-unbound.txt 1 hybrid OMPI_MCA_hwloc_base_binding_policy=none
capture hybrid-np2.txt 2 hybrid
capture gpu.txt 2 gpu
{ echo '$ cargo run -q --release -p ch05-hybrid --features solution --bin hybrid_bench';
  cargo run -q --release -p ch05-hybrid --features solution --bin hybrid_bench 2>&1; } > $book/output/hybrid_bench.txt
mkdir -p $book/img
cp "$TARGET_DIR/workbook/ch05-hybrid-bench.svg" $book/img/
{ echo '$ make bench CH=05   # staging_bench';
  cargo run -q --release -p ch05-hybrid --features solution --bin staging_bench 2>&1; } > $book/output/staging_bench.txt
cp "$TARGET_DIR/workbook/ch05-staging-trace-np2.json" $book/output/
# Mistake 1 is caught on every run only with its forced order (its planted test); mistakes
# 2 and 3 are captured through `make check` by `make check-the-check`.
t=threads_sharing_a_communicator_get_each_others_messages
{ echo "\$ cargo test -p ch05-hybrid --features solution --test planted_mistakes $t -- --nocapture"
  cargo test -q -p ch05-hybrid --features solution --test planted_mistakes $t -- --nocapture 2>&1 | grep '^  rank'
} > $book/output/planted-shared-comm.txt
echo "outputs: wrote chapter 5's labs at NP=1 and 2, its benchmarks, plot and planted mistakes"
