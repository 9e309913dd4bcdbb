#!/usr/bin/env bash
# Chapter 08's captures for the book beyond its lab's output: the lab's traced figure, its
# --help, stages 0 and 1 at 4 ranks, the bytes per rank against N (a table, and a plot at
# N = 1..8), sharded checkpoints (saved, resumed, resharded, refused; at stages 2 and 3; as one
# MPI-IO file, and its benchmark against the per-rank files), and the planted
# staged-step fault; ZeRO-3: stage 3 at 4 ranks, its traced step, its bytes against stage 2's, the
# memory budget (--max-mem), the benchmark (zero_bench); stages 1 and 2 profiled on TCP
# and shared memory, idle and under load.
# `make outputs CH=08` runs the lab, then this script from the repository root
# (environment: NP, TARGET_DIR, MAKE). Each file it writes starts with the command that made it.
set -euo pipefail
TARGET_DIR=${TARGET_DIR:-target}
book=book/src/ch08-sharded
# The figure the lab's run (make outputs ran it just before) drew from its traced messages.
mkdir -p $book/img
cp "$TARGET_DIR/workbook/ch08/zero-step-2.svg" $book/img/
zero() { cargo run -q --release -p ch08-sharded --features solution --bin zero -- "$@"; }
{ echo '$ cargo run --release -p ch08-sharded --features solution --bin zero -- --help';
  zero --help; } > $book/output/zero-help.txt
for s in 0 1; do
  { echo "\$ NP=4 cargo run --release -p ch08-sharded --features solution --bin zero -- --stage $s --epochs 1";
    NP=4 zero --stage $s --epochs 1 2>&1; } > $book/output/zero-stage$s.txt
done
cp "$TARGET_DIR/workbook/ch08/zero-step-1.svg" $book/img/   # the stage 1 run's figure
# Rank 0's row of the lab's table, for every stage at N = 1, 2, 4, 8 (one step each).
{ echo '$ for N in 1 2 4 8; do for s in 0 1 2; do NP=$N cargo run --release -p ch08-sharded --features solution --bin zero -- --stage $s --max-steps 1 --quiet; done; done   # rank 0 of each'
  printf '%-9s %2s %10s %10s %12s %12s %14s\n' stage N 'held B' 'formula B' 'held-formula' 'sent/step B' '2P(N-1)/N x 4'
  for n in 1 2 4 8; do
    for s in 0 1 2; do
      out=$(NP=$n zero --stage $s --max-steps 1 --quiet 2>&1)
      name=$(echo "$out" | sed -n 's/^zero: stage [0-9] (\([^)]*\)).*/\1/p')
      echo "$out" | grep '^│ 0 ' | awk -F'│' -v s="$name" -v n=$n '{
        gsub(/ /, "", $6); gsub(/ /, "", $7); gsub(/ /, "", $8); gsub(/ /, "", $9); gsub(/ /, "", $10);
        printf "%-9s %2s %10s %10s %12s %12s %14s\n", s, n, $6, $7, $8, $9, $10 }'
    done
  done; } > $book/output/memory.txt
# The memory plot: every stage of memory.rs at N = 1..8, measured by the lab (rank 0).
{ echo '$ cargo run --release -p ch08-sharded --features solution --bin memory_plot -- img/memory-per-rank.svg'
  cargo run -q --release -p ch08-sharded --features solution --bin memory_plot -- \
    $book/img/memory-per-rank.svg | sed "s|$book/||"; } > $book/output/memory-by-n.txt
# Sharded checkpoints: 40 steps straight; 20 saved at 2 ranks, then resumed at 2 ranks (the
# same fingerprint) and at 3 (resharded); then three bad checkpoints refused.
ck=$(mktemp -d)
cmd='cargo run --release -p ch08-sharded --features solution --bin zero --'
keep() { sed "s|$ck/||g" | grep -E '^(zero:|resumed|after|checkpoint)'; }
{ echo "\$ NP=2 $cmd --model mlp --max-steps 40 --checkpoint straight --quiet"
  NP=2 zero --model mlp --max-steps 40 --checkpoint $ck/straight --quiet 2>&1 | keep
  echo "\$ NP=2 $cmd --model mlp --max-steps 20 --checkpoint ckpt --quiet"
  NP=2 zero --model mlp --max-steps 20 --checkpoint $ck/ckpt --quiet 2>&1 | keep
  echo '$ ls -l ckpt'
  ls -l $ck/ckpt | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
  echo '$ cp -r ckpt ckpt3'
  cp -r $ck/ckpt $ck/ckpt3
  echo "\$ NP=2 $cmd --model mlp --max-steps 40 --checkpoint ckpt --resume --quiet"
  NP=2 zero --model mlp --max-steps 40 --checkpoint $ck/ckpt --resume --quiet 2>&1 | keep
  echo "\$ NP=3 $cmd --model mlp --max-steps 40 --checkpoint ckpt3 --resume --quiet"
  NP=3 zero --model mlp --max-steps 40 --checkpoint $ck/ckpt3 --resume --quiet 2>&1 | keep
} > $book/output/checkpoints.txt
cp -r $ck/ckpt3 $ck/flipped; printf '\x55' | dd of=$(ls $ck/flipped/shard-1-of-3-step-*.ckpt) bs=1 seek=200 conv=notrunc status=none
cp -r $ck/ckpt3 $ck/lost; rm $ck/lost/shard-2-of-3-step-*.ckpt
{ for case in 'flipped --model mlp' 'lost --model mlp' 'ckpt3 --model cnn'; do
    set -- $case
    echo "\$ NP=4 $cmd $2 $3 --checkpoint $1 --resume; echo \"exit \$?\""
    NP=4 zero $2 $3 --checkpoint $ck/$1 --resume 2>&1 | sed "s|$ck/||g" || echo "exit $?"
  done; } > $book/output/checkpoint-refusals.txt
# Stage 3's checkpoints (a unit per layer): 40 steps straight; 20 saved at 2 ranks, resumed
# at 2 (the same fingerprint) and at 3 (resharded layer by layer); then a checkpoint of
# one kind of stage refused at the other.
{ for args in 'straight3|40|' 'ckpt3s|20|' 'ls' 'ckpt3s|40|--resume' 'ckpt3s3|40|--resume|3'; do
    if [ "$args" = ls ]; then
      echo '$ ls -l ckpt3s'
      ls -l $ck/ckpt3s | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
      echo '$ cp -r ckpt3s ckpt3s3'
      cp -r $ck/ckpt3s $ck/ckpt3s3
      continue
    fi
    IFS='|' read -r dir steps more np <<< "$args"; np=${np:-2}
    echo "\$ NP=$np $cmd --stage 3 --model mlp --max-steps $steps --checkpoint $dir $more --quiet" | sed 's/  */ /g'
    NP=$np zero --stage 3 --model mlp --max-steps $steps --checkpoint $ck/$dir $more --quiet 2>&1 | keep
  done; } > $book/output/checkpoints3.txt
{ for case in 'ckpt3s --model mlp' 'ckpt3 --model mlp --stage 3'; do
    set -- $case
    echo "\$ NP=2 $cmd ${*:2} --checkpoint $1 --resume; echo \"exit \$?\""
    NP=2 zero "${@:2}" --checkpoint $ck/$1 --resume 2>&1 | sed "s|$ck/||g" || echo "exit $?"
  done; } > $book/output/checkpoint-refusals3.txt
# The same checkpoint as one file (--checkpoint-format one-file, MPI-IO): saved at 2 ranks,
# resumed at 2 (the fingerprint of the 40 steps straight above) and at 3 (that of the shards
# resumed at 3 above); then a flipped byte and the other format's folder, refused.
{ echo "\$ NP=2 $cmd --model mlp --max-steps 20 --checkpoint one --checkpoint-format one-file --quiet"
  NP=2 zero --model mlp --max-steps 20 --checkpoint $ck/one --checkpoint-format one-file --quiet 2>&1 | keep
  echo '$ ls -l one'
  ls -l $ck/one | awk 'NR > 1 { printf "%9s  %s\n", $5, $9 }'
  echo '$ cp -r one one3'
  cp -r $ck/one $ck/one3
  for np in 2 3; do
    d=one; [ $np = 3 ] && d=one3
    echo "\$ NP=$np $cmd --model mlp --max-steps 40 --checkpoint $d --checkpoint-format one-file --resume --quiet"
    NP=$np zero --model mlp --max-steps 40 --checkpoint $ck/$d --checkpoint-format one-file --resume --quiet 2>&1 | keep
  done; } > $book/output/checkpoints-one-file.txt
cp -r $ck/one3 $ck/flipped1; printf '\x55' | dd of=$ck/flipped1/one-file.ckpt bs=1 seek=200000 conv=notrunc status=none
{ for case in 'flipped1 one-file' 'ckpt3 one-file' 'one3 shards'; do
    set -- $case
    echo "\$ NP=4 $cmd --model mlp --checkpoint $1 --checkpoint-format $2 --resume; echo \"exit \$?\""
    NP=4 zero --model mlp --checkpoint $ck/$1 --checkpoint-format $2 --resume 2>&1 | sed "s|$ck/||g" || echo "exit $?"
  done; } > $book/output/checkpoint-refusals-one-file.txt
rm -rf "$ck"
# The planted mistake of the staged ZeRO-3 step (given code): what its test pins. The
# exercises' mistakes are shown as `make check` prints them: check-*.txt, written by
# `make check-the-check`.
cmd='$ cargo test -p ch08-sharded --features solution --test planted_mistakes -- --nocapture'
said=$(cargo test -q -p ch08-sharded --features solution --test planted_mistakes -- --nocapture 2>&1 \
  | sed 's/^[.i]*//; s/^rank [0-9]* | //' | sort -u)
for pair in 'staged3:^rank 0 says: step 1, staged on'; do
  { echo "$cmd"; echo "$said" | grep -E "${pair#*:}"; } > $book/output/planted-${pair%%:*}.txt
done
# ZeRO-3: the lab at 4 ranks and its first step on the ring, drawn; its layers apart.
{ echo '$ NP=4 cargo run --release -p ch08-sharded --features solution --bin zero -- --stage 3 --epochs 1';
  NP=4 zero --stage 3 --epochs 1 2>&1; } > $book/output/zero-stage3.txt
cp "$TARGET_DIR/workbook/ch08/zero-step-3.svg" $book/img/
{ head -1 $book/output/zero-stage3.txt; grep -E '^(zero: stage 3|  layer )' $book/output/zero-stage3.txt; } \
  > $book/output/zero3-layers.txt
# Stages 2 and 3, the CNN and the 30-layer MLP, N = 1, 2, 4, 8: rank 0's row of each run.
{ echo '$ for m in cnn deep-mlp; do for N in 1 2 4 8; do for s in 2 3; do NP=$N cargo run --release -p ch08-sharded --features solution --bin zero -- --model $m --stage $s --max-steps 1 --quiet; done; done; done   # rank 0 of each'
  printf '%-9s %-7s %2s %9s %9s %11s %15s %9s %10s\n' model stage N 'params B' 'grads B' 'Adam m+v B' 'gathered peak B' 'held B' 'formula B'
  for m in cnn deep-mlp; do
    for n in 1 2 4 8; do
      for s in 2 3; do
        out=$(NP=$n zero --model $m --stage $s --max-steps 1 --quiet 2>&1)
        echo "$out" | grep '^│ 0 ' | awk -F'│' -v m=$m -v s="ZeRO-$s" -v n=$n '{
          for (i = 2; i <= 11; i++) gsub(/ /, "", $i);
          printf "%-9s %-7s %2s %9s %9s %11s %15s %9s %10s\n", m, s, n, $3, $4, $5, $11, $6, $7 }'
      done
    done
  done; } > $book/output/memory3.txt
# The memory budget: refused at stage 2 (4 ranks), refused at 3 ranks, run at stage 3.
{ for args in 'NP=4|--model deep-mlp --max-mem 160000' 'NP=3|--model deep-mlp --max-mem 160000 --stage 3' \
      'NP=4|--model deep-mlp --max-mem 160000 --stage 3 --collectives mpi --epochs 10'; do
    np=${args%%|*}; flags=${args#*|}
    echo "\$ $np cargo run --release -p ch08-sharded --features solution --bin zero -- $flags"
    env $np cargo run -q --release -p ch08-sharded --features solution --bin zero -- $flags 2>&1 \
      | grep -v '^\[workbook\] zero: not started by mpirun' || true
  done; } > $book/output/max-mem.txt
# The benchmark: every stage and chapter 6's trainer at N = 2 and 4, in one run.
{ echo '$ make bench CH=08'
  cargo run -q --release -p ch08-sharded --features solution --bin zero_bench 2>&1 | grep -v ': running'; } \
  > $book/output/zero-bench.txt
# The two checkpoint formats, saved and loaded side by side at N = 2 and 4.
{ echo '$ cargo run --release -p ch08-sharded --features solution --bin ckpt_bench'
  cargo run -q --release -p ch08-sharded --features solution --bin ckpt_bench 2>&1 | grep -v ': running'; } \
  > $book/output/ckpt-bench.txt
# Stages 1 and 2 at cnn:4 on 2 ranks, profiled (--profile: the part of a step inside its
# collectives), over shared memory and over TCP, on an idle machine and under a second job
# that takes both cores (scripts/anchors/load.py, one per core, each in a session of its
# own, as `make anchors LOAD=1` runs them): where ours on TCP under load spends its step.
profiled() { # label, then environment assignments for the run
  local label=$1; shift
  for s in 1 2; do
    echo "--- $label, stage $s"
    env "$@" NP=2 cargo run -q --release -p ch08-sharded --features solution --bin zero -- \
      --stage $s --model cnn:4 --epochs 4 --profile 2>&1 | grep -E '^epoch  4|^profile'
  done; }
tcp=(OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo)
{ echo '$ NP=2 cargo run --release -p ch08-sharded --features solution --bin zero -- --stage S --model cnn:4 --epochs 4 --profile   # S = 1, 2; shared memory, then TCP (OMPI_MCA_btl=tcp,self); idle, then under load'
  profiled "shared memory, idle"
  profiled "TCP, idle" "${tcp[@]}"
  loads=(); for c in $(seq "$(nproc)"); do setsid python3 scripts/anchors/load.py "$c" & loads+=($!); done
  sleep 2
  profiled "shared memory, under load"
  profiled "TCP, under load" "${tcp[@]}"
  kill "${loads[@]}"; } > $book/output/profile.txt
echo "outputs: wrote img/zero-step-1.svg, img/zero-step-2.svg, img/zero-step-3.svg, zero-help.txt, zero-stage0.txt, zero-stage1.txt, zero-stage3.txt, memory.txt, memory3.txt, max-mem.txt, zero-bench.txt, profile.txt, img/memory-per-rank.svg, memory-by-n.txt, checkpoints.txt, checkpoint-refusals.txt, checkpoints3.txt, checkpoint-refusals3.txt, checkpoints-one-file.txt, checkpoint-refusals-one-file.txt, ckpt-bench.txt and planted-staged3.txt in $book/"
