#!/usr/bin/env bash
# Chapter 00's captures for the book beyond its labs' output:
#   the planted-fault reports and the check table.
# `make outputs CH=00` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
out=book/src/ch00-toolkit/output
rm -rf "$TARGET_DIR/workbook/planted"
cargo test -q -p toolkit --test planted_faults --test failure_reports --test flight_recorder >/dev/null
cargo test -q -p ch06-data-parallel --features solution --test main broadcast::planted_ >/dev/null
cp "$TARGET_DIR"/workbook/planted/*.txt $out/
{ echo '$ make check CH=00'; $MAKE -s --no-print-directory check CH=00 2>&1 || true; } > $out/check.txt
echo "outputs: wrote the planted-fault reports and check.txt"
