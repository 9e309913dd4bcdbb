#!/usr/bin/env bash
# Chapter 15's captures for the book beyond its lab's own (async_ckpt.txt at NP=4): the
# lab with a save every 3 steps (the writes longer than the interval between saves), and
# the lab with rank 1's writer killed half-way through save 3, then the checkpoint
# folder it leaves; chapter 6's trainer stopped by --collective-timeout; chapter 8's under
# the elastic supervisor at a batch of 64; what the installed MPIs offer for in-job recovery.
# `make outputs CH=15` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
TARGET_DIR=${TARGET_DIR:-target}
book=book/src/ch15-failures
{ echo "\$ make run CH=15 SOLUTION=1 ARGS='--sizes 1,4,16 --every 3 --steps 12'";
  $MAKE -s --no-print-directory run CH=15 SOLUTION=1 ARGS='--sizes 1,4,16 --every 3 --steps 12' 2>&1; } > $book/output/async_ckpt-every3.txt
# The killed run ends with the job's status (137): its lines are the capture.
args='--sizes 1 --steps 12 --every 3 --kill-at-save 3'
{ echo "\$ make run CH=15 NP=3 SOLUTION=1 ARGS='$args'";
  $MAKE -s --no-print-directory run CH=15 NP=3 SOLUTION=1 ARGS="$args" 2>&1 | grep -v '^make' || true;
  echo "\$ ls -l target/workbook/ch15-async/ | awk '{print \$5, \$9}'";
  ls -l "${WORKBOOK_OUT:-$TARGET_DIR/workbook}/ch15-async/" | awk 'NR > 1 {print $5, $9}'; } > $book/output/async_ckpt-killed.txt
# A collective timeout in a real trainer: chapter 6's, rank 1 late by 5 s to every
# collective (WORKBOOK_STRAGGLER), a limit of 1 s. The job ends with status 124.
args='--model mlp --epochs 1 --batch 48 --threads 1 --collective-timeout 1'
{ echo "\$ WORKBOOK_STRAGGLER=1:delay=5s make run CH=06 NP=3 SOLUTION=1 ARGS='$args'";
  WORKBOOK_STRAGGLER=1:delay=5s $MAKE -s --no-print-directory run CH=06 NP=3 SOLUTION=1 ARGS="$args" 2>&1 \
    | grep -v '^make' || true; } > $book/output/timeout.txt
# The elastic supervisor over chapter 8's trainer at a global batch of 64: rank 3 killed
# at step 12, 3 ranks left, of which 2 split the batch (ex 15.3). The step lines are left
# out here (the lab's own capture, supervise.txt, has them).
args="--model mlp --max-steps 20 --every 5 --batch 64 --quiet --losses --checkpoint $TARGET_DIR/workbook/ch15-elastic-64"
{ echo "\$ CH08_KILL_RANK=3 CH08_KILL_AT_STEP=12 make run CH=08 NP=4 SOLUTION=1 ELASTIC=1 ARGS='$args' | grep -v '  | step '";
  rm -rf "$TARGET_DIR/workbook/ch15-elastic-64";
  CH08_KILL_RANK=3 CH08_KILL_AT_STEP=12 NP=4 $MAKE -s --no-print-directory run CH=08 SOLUTION=1 ELASTIC=1 ARGS="$args" 2>&1 \
    | grep -v '  | step '; } > $book/output/elastic-batch64.txt
# In-job recovery (ULFM): what Open MPI says, and MPICH where it is installed (its own build).
{ echo "\$ make run CH=15 BIN=failures SOLUTION=1 ARGS=--in-job";
  $MAKE -s --no-print-directory run CH=15 BIN=failures SOLUTION=1 ARGS=--in-job 2>&1;
  if command -v mpicc.mpich >/dev/null; then
    echo "\$ MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich make run CH=15 BIN=failures SOLUTION=1 ARGS=--in-job";
    MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=$TARGET_DIR/mpich \
      $MAKE -s --no-print-directory run CH=15 BIN=failures SOLUTION=1 ARGS=--in-job 2>&1;
  fi; } > $book/output/in-job.txt
echo "outputs: wrote $book/output/async_ckpt-every3.txt, async_ckpt-killed.txt, timeout.txt, elastic-batch64.txt, in-job.txt"
