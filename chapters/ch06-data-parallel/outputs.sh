#!/usr/bin/env bash
# Chapter 06's captures for the book beyond its labs' output:
#   the trainer's --help, its plots and the benchmarks (the planted mistakes' captures come from make check-the-check).
# `make outputs CH=06` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch06-data-parallel
{ echo '$ cargo run --release -p ch06-data-parallel --features solution --bin train -- --help';
  cargo run -q --release -p ch06-data-parallel --features solution --bin train -- --help; } > $book/output/train-help.txt
mkdir -p $book/img
cp "$TARGET_DIR/workbook/ch06/train-loss.svg" "$TARGET_DIR/workbook/ch06/train-accuracy.svg" $book/img/
{ echo '$ make bench CH=06';
  cargo run -q --release -p ch06-data-parallel --features solution --bin dp_bench 2>&1; } > $book/output/dp_bench.txt
{ echo '$ cargo run --release -p ch06-data-parallel --features solution --bin bridge_bench';
  cargo run -q --release -p ch06-data-parallel --features solution --bin bridge_bench 2>&1; } > $book/output/bridge_bench.txt
echo "outputs: wrote the plots, dp_bench.txt and bridge_bench.txt in $book/"
