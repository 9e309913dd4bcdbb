#!/usr/bin/env bash
# Chapter 10's captures for the book beyond its labs' output at 8 ranks:
#   the slow_link lab at NP=3 with a slow link given by WORKBOOK_SLOW_LINK, and a bad
#   setting refused; the straggler lab at NP=3 with WORKBOOK_STRAGGLER, at NP=1, and two
#   bad straggler settings refused; the desync lab's third run (a hang, named);
#   `make diagnose` as it is, with a slow link, with a straggler, and at NP=1
#   (diagnose*.txt, for the checklist page).
# `make outputs CH=10` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
# `bash chapters/ch10-troubleshooting/outputs.sh diagnose` makes only the diagnose*.txt files.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch10-troubleshooting

# diagnose FILE NAME VALUE NP: `NAME=VALUE make diagnose NP=NP` (no setting when NAME is
# empty) into FILE, its command first.
diagnose() {
  local file=$book/output/$1 name=$2 value=$3 np=$4 setting=()
  if [ -n "$name" ]; then setting=("$name=$value"); fi
  { echo "\$ ${name:+$name='$value' }make diagnose NP=$np";
    env "${setting[@]}" $MAKE -s --no-print-directory diagnose NP="$np" 2>&1; } > "$file.tmp" \
    || { cat "$file.tmp"; rm -f "$file.tmp"; exit 1; }
  mv "$file.tmp" "$file"
}
diagnose diagnose.txt "" "" 4
diagnose diagnose-slow-link.txt WORKBOOK_SLOW_LINK 1-2:delay=1ms 4
diagnose diagnose-straggler.txt WORKBOOK_STRAGGLER 2:delay=3ms 4
diagnose diagnose-np1.txt "" "" 1
echo "outputs: wrote $book/output/diagnose.txt, diagnose-slow-link.txt, diagnose-straggler.txt, diagnose-np1.txt"
[ "${1:-}" != diagnose ] || exit 0
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
