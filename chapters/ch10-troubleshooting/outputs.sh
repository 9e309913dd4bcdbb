#!/usr/bin/env bash
# Chapter 10's captures for the book beyond its lab's output at 8 ranks:
#   the lab at NP=3 with a slow link given by WORKBOOK_SLOW_LINK, and a bad setting refused.
# `make outputs CH=10` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch10-troubleshooting
{ echo "\$ WORKBOOK_SLOW_LINK='1-2:delay=1ms,rate=20MB/s' make run CH=10 NP=3 SOLUTION=1";
  WORKBOOK_SLOW_LINK='1-2:delay=1ms,rate=20MB/s' $MAKE -s --no-print-directory run CH=10 NP=3 SOLUTION=1 2>&1; } > $book/output/slow_link-np3.txt
# A rank the job does not have: refused in one line before any communication (exit 2).
{ echo "\$ WORKBOOK_SLOW_LINK='2-9:delay=1ms' make run CH=10 SOLUTION=1";
  WORKBOOK_SLOW_LINK='2-9:delay=1ms' $MAKE -s --no-print-directory run CH=10 SOLUTION=1 2>&1 || true; } > $book/output/bad-setting.txt
echo "outputs: wrote $book/output/slow_link-np3.txt, bad-setting.txt"
