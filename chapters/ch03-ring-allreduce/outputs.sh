#!/usr/bin/env bash
# Chapter 03's captures for the book beyond its labs' output:
#   the sweep at NP=2 and NP=4, the trees beside it at NP=2, 3 and 4, the model and busbw
#   plots, the ring's traced messages.
# `make outputs CH=03` runs the labs, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
MAKE=${MAKE:-make}
book=book/src/ch03-ring-allreduce
# The sweep three times (--runs 3: the table once, then min/median/max of the targets), at
# NP=2 (one rank per core) and at NP=4 (oversubscribed); NP=4 last: its busbw plot is the book's.
for np in 2 4; do
  file=$book/output/sweep$([ $np = 2 ] && echo -np2 || true).txt
  { echo "\$ NP=$np cargo run --release -p ch03-ring-allreduce --features solution --bin sweep -- --runs 3";
    NP=$np cargo run -q --release -p ch03-ring-allreduce --features solution --bin sweep -- --runs 3 2>&1; } > "$file"
done
# The trees of ex 3.6 and 3.7 next to MPI_Allreduce, the ring and recursive doubling (one
# run; the other rows of the table left out), at NP=2, NP=3 (not a power of two) and NP=4.
for np in 2 3 4; do
  sleep 60 # the load average of the run before falls back
  { echo "\$ NP=$np cargo run --release -p ch03-ring-allreduce --features solution --bin sweep -- --with tree,rabenseifner   # some rows";
    NP=$np cargo run -q --release -p ch03-ring-allreduce --features solution --bin sweep -- --with tree,rabenseifner 2>&1 \
      | sed -n '1,/^# calibration/p' | grep -vE 'segmented ring|reduce\+bcast|auto \(ex 3.5\)|^# calibration'; } > $book/output/trees-np$np.txt
done
# Ex 3.7's double binary tree next to the others and to MPI_Allreduce, at NP=4 and NP=8
# (8 ranks on 2 cores: oversubscribed), with the model carried to 64 and 512 ranks.
for np in 4 8; do
  sleep 60
  { echo "\$ NP=$np cargo run --release -p ch03-ring-allreduce --features solution --bin sweep -- --with rabenseifner,dtree   # some rows";
    NP=$np cargo run -q --release -p ch03-ring-allreduce --features solution --bin sweep -- --with rabenseifner,dtree 2>&1 \
      | awk '/^# [0-9]+ ranks,/ || (!/^#/ && !/segmented ring|reduce\+bcast|auto \(ex 3.5\)/) { print }
             /^# the model at more ranks/ { m = 7 } m > 0 { print; m-- }'; } > $book/output/dtree-np$np.txt
done
# MPI_Allreduce forced to each algorithm of Open MPI's tuned component (0: its own choice),
# next to ours, at NP=2 and NP=4: the time (us) of each sweep's MPI_Allreduce row, ours
# from the first run. One column per run, one row per size.
forced() { # NP
  echo "\$ for k in 0 1 2 3 4 5 6; do OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=\$k NP=$1 cargo run --release -p ch03-ring-allreduce --features solution --bin sweep -- --max-bytes 8388608 --with rabenseifner; done   # time(us) per size"
  for k in 0 1 2 3 4 5 6; do
    sleep 20
    OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=$k NP=$1 \
      cargo run -q --release -p ch03-ring-allreduce --features solution --bin sweep -- --max-bytes 8388608 --with rabenseifner 2>&1 \
      | awk -v k=$k '$1 ~ /^[0-9]+$/ && $5 == "MPI_Allreduce" { print k, $1, $6 }
          $1 ~ /^[0-9]+$/ && k == 0 && $5 == "ring" { print "ring", $1, $6 }
          $1 ~ /^[0-9]+$/ && k == 0 && $5 == "rec." { print "doubling", $1, $7 }
          $1 ~ /^[0-9]+$/ && k == 0 && $5 == "Rabenseifner" { print "rabenseifner", $1, $6 }'
  done | awk 'BEGIN { n = split("0 1 2 3 4 5 6 ring doubling rabenseifner", col, " ")
                      split("auto linear red+bcast rec.dbl ring seg.ring Raben. | ours:ring rec.dbl Raben.", head, " ") }
              { t[$1 "," $2] = $3; if (!($2 in seen)) { seen[$2] = 1; size[++m] = $2 } }
              END { printf "# %d ranks; Open MPI forced to algorithm 0-6 (coll_tuned_allreduce_algorithm), then ours\n", np
                    printf "%9s", "size(B)"; for (i = 1; i <= 7; i++) printf " %9s", head[i]; printf " %9s %9s %9s\n", head[9], head[10], head[11]
                    for (j = 1; j <= m; j++) { printf "%9s", size[j]; for (i = 1; i <= n; i++) printf " %9s", t[col[i] "," size[j]]; printf "\n" } }' np=$1
}
for np in 2 4; do forced $np > $book/output/ompi-forced-np$np.txt; done
# The tuner: MPI_Allreduce forced to each of Open MPI's algorithms, the rules file it
# writes, MPI_Allreduce with that file and ours beside it, at 2, 3 and 4 ranks.
sleep 60
{ echo "\$ cargo run --release -p ch03-ring-allreduce --features solution --bin tune -- --ranks 2,3,4";
  cargo run -q --release -p ch03-ring-allreduce --features solution --bin tune -- --ranks 2,3,4 2>&1; } > $book/output/tune.txt
# The same tuner under MPICH (its own build folder), at the rank counts that fit the cores.
if command -v mpirun.mpich > /dev/null; then
  sleep 20
  { echo "\$ MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich cargo run --release -p ch03-ring-allreduce --features solution --bin tune";
    MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR="$TARGET_DIR/mpich" \
      cargo run -q --release -p ch03-ring-allreduce --features solution --bin tune 2>&1; } > $book/output/tune-mpich.txt
fi
# The allreduce algorithms of Open MPI's tuned component, as ompi_info lists them.
if command -v ompi_info > /dev/null; then
  { echo "\$ ompi_info --version | head -1"; ompi_info --version | head -1;
    echo "\$ ompi_info --param coll tuned --level 9 | grep -A2 '\"coll_tuned_allreduce_algorithm\"'";
    ompi_info --param coll tuned --level 9 | grep -A2 '"coll_tuned_allreduce_algorithm"' | sed 's/^ *//'; } > $book/output/ompi-allreduce-algorithms.txt
fi
mkdir -p $book/img
# The ring's messages (ch03-reduce-scatter/allgather.svg) were traced by the ring_steps lab.
for f in busbw model-np2 model-np4 reduce-scatter allgather; do cp "$TARGET_DIR/workbook/ch03-$f.svg" $book/img/; done
echo "outputs: wrote $book/output/sweep{,-np2}.txt, trees-np{2,3,4}.txt, dtree-np{4,8}.txt, tune.txt, tune-mpich.txt, ompi-forced-np{2,4}.txt, ompi-allreduce-algorithms.txt, the model and busbw plots, ch03-reduce-scatter.svg, ch03-allgather.svg"
