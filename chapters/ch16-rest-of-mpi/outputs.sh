#!/usr/bin/env bash
# Chapter 16's captures for the book beyond its lab's output: the same lab under MPICH
# (its persistent allreduce has the MPI 4 name; its neighbourhood collectives pair the
# blocks of a short periodic axis the other way).
# `make outputs CH=16 NP=2` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
MAKE=${MAKE:-make}
book=book/src/ch16-rest-of-mpi
if ! command -v mpicc.mpich > /dev/null; then
  echo "outputs: MPICH is not installed (make test-mpich installs it): $book/output/exchanges-mpich.txt not retaken"
  exit 0
fi
cmd="make run CH=16 SOLUTION=1 NP=${NP:-2}"
{ echo "\$ MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich $cmd";
  MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich \
    $MAKE -s --no-print-directory run CH=16 SOLUTION=1 NP="${NP:-2}" 2>&1; } > $book/output/exchanges-mpich.txt
# The planted mistakes are shown as `make check` prints them: check-*.txt, written by
# `make check-the-check`.
echo "outputs: wrote the MPICH run of chapter 16's lab"
