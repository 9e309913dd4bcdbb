#!/usr/bin/env bash
# Chapter 04's captures for the book beyond its labs' output:
#   the heat map, the benchmark and its plots.
# `make outputs CH=04` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch04-halo-exchange
mkdir -p $book/img
cp "$TARGET_DIR/workbook/ch04-heat.svg" $book/img/
{ echo '$ cargo run --release -p ch04-halo-exchange --features solution --bin halo_bench -- --runs 3';
  cargo run -q --release -p ch04-halo-exchange --features solution --bin halo_bench -- --runs 3 2>&1 | grep -v '^halo_bench: running'; } \
  > $book/output/halo_bench.txt
cp "$TARGET_DIR/workbook/ch04-strong.svg" "$TARGET_DIR/workbook/ch04-weak.svg" $book/img/
# The planted mistakes are shown as `make check` prints them: check-*.txt, written by
# `make check-the-check`.
echo "outputs: wrote the heat map, the benchmark output and its plots for chapter 4"
