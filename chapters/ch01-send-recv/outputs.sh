#!/usr/bin/env bash
# Chapter 01's captures for the book beyond its labs' output:
#   the deadlock lab broken on purpose, and the planted mistakes' reports.
# `make outputs CH=01` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
# One lab under mpirun with the solutions (make run ... SOLUTION=1).
run_lab() { $MAKE -s --no-print-directory run "$@" SOLUTION=1; }
out=book/src/ch01-send-recv/output
{ echo "\$ BROKEN=1 make run CH=01 BIN=deadlock NP=$NP SOLUTION=1"; \
  BROKEN=1 run_lab CH=01 BIN=deadlock 2>&1 || true; } > $out/deadlock-broken.txt
echo "outputs: wrote $out/deadlock-broken.txt (the deadlock, on purpose)"
# What the checks say about a learner's first wrong attempts (the planted mistakes run
# with WORKBOOK_CASE_TIMEOUT=3; a learner's check waits the default, 20 s).
for t in a_receive_without_a_send_is_named:open-ring \
  sending_first_to_yourself_deadlocks_at_one_rank:shift-1-rank \
  everyone_sending_first_deadlocks_and_is_named:shift-3-ranks a_wrong_neighbour_is_named:wrong-neighbour; do
  { echo "\$ cargo test -p ch01-send-recv --features solution --test planted_mistakes ${t%%:*} -- --nocapture";
    cargo test -q -p ch01-send-recv --features solution --test planted_mistakes "${t%%:*}" -- --nocapture 2>&1 \
    | grep -E 'DEADLOCK|minimal failing|says:' | sed 's/^rank [0-9]* | //'; } > "$out/planted-${t##*:}.txt"
done
echo "outputs: wrote the planted mistakes' reports, $out/planted-*.txt"
