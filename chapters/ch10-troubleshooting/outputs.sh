#!/usr/bin/env bash
# Chapter 10's captures for the book beyond its labs' output at 8 ranks:
#   the slow_link lab at NP=3 with a slow link given by WORKBOOK_SLOW_LINK, and a bad
#   setting refused; the straggler lab at NP=3 with WORKBOOK_STRAGGLER, at NP=1, and two
#   bad straggler settings refused; the desync lab's third run (a hang, named).
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
# Part 2: stragglers.
{ echo "\$ WORKBOOK_STRAGGLER='0:delay=3ms' make run CH=10 BIN=straggler NP=3 SOLUTION=1";
  WORKBOOK_STRAGGLER='0:delay=3ms' $MAKE -s --no-print-directory run CH=10 BIN=straggler NP=3 SOLUTION=1 2>&1; } > $book/output/straggler-np3.txt
{ echo "\$ make run CH=10 BIN=straggler NP=1 SOLUTION=1";
  $MAKE -s --no-print-directory run CH=10 BIN=straggler NP=1 SOLUTION=1 2>&1; } > $book/output/straggler-np1.txt
# A rank the job does not have, and a rule without delay=: one line each, exit 2.
{ for rule in '9:delay=2ms' '5:2ms'; do
    echo "\$ WORKBOOK_STRAGGLER='$rule' make run CH=10 BIN=straggler SOLUTION=1";
    WORKBOOK_STRAGGLER=$rule $MAKE -s --no-print-directory run CH=10 BIN=straggler SOLUTION=1 2>&1 || true;
  done; } > $book/output/bad-straggler.txt
# Part 3: the skipped broadcast without the check: the watchdog and the flight recorder.
{ echo "\$ make run CH=10 BIN=desync ARGS=--hang SOLUTION=1";
  $MAKE -s --no-print-directory run CH=10 BIN=desync ARGS=--hang SOLUTION=1 2>&1 || true; } > $book/output/desync-hang.txt
echo "outputs: wrote $book/output/slow_link-np3.txt, bad-setting.txt, straggler-np3.txt, straggler-np1.txt, bad-straggler.txt, desync-hang.txt"
