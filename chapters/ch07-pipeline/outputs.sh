#!/usr/bin/env bash
# Chapter 07's captures for the book beyond its labs' output:
#   the planted schedule mistakes and the benchmarks (pipe_bench, plan_bench).
# `make outputs CH=07` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch07-pipeline
{ echo '$ cargo test -p ch07-pipeline --features solution --test planted_schedule_mistakes -- --nocapture';
  cargo test -q -p ch07-pipeline --features solution --test planted_schedule_mistakes -- --nocapture --test-threads=1 2>&1 \
  | sed 's/^\.*//' | grep -v -e '^running ' -e '^test result' \
  | awk 'NF { for (; n > 0; n--) print ""; print; next } { n++ }'; } > $book/output/planted-schedules.txt
{ echo '$ make bench CH=07';
  cargo run -q --release -p ch07-pipeline --features solution --bin pipe_bench 2>&1; } > $book/output/pipe_bench.txt
{ echo '$ cargo run --release -p ch07-pipeline --features solution --bin plan_bench';
  cargo run -q --release -p ch07-pipeline --features solution --bin plan_bench 2>&1; } > $book/output/plan_bench.txt
echo "outputs: wrote chapter 7's planted schedule mistakes and the benchmarks"
