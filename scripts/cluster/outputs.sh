#!/usr/bin/env bash
# make cluster-outputs: the figures of the book's "Running on a cluster" page, captured
# from real runs into book/src/cluster/output/ (each file starts with its command):
# hello on the two-node cluster, ping-pong within a node (shared memory) and between nodes
# (TCP), chapter 3's sweep on one node and across two, the summary table of them
# (between-nodes.txt), chapter 10's make diagnose across the nodes as they are and with
# node-b shaped by tc (diagnose-netns.txt, diagnose-tc.txt: the slow-links page shows
# them), chapter 12's hier lab across the nodes as they are and with both nodes' links
# shaped to 1 Gbit/s, and its less_bench, compress_cnn and compress_gpt with the links
# shaped to 100 Mbit/s (written to chapter 12's output folder: hier-netns.txt,
# hier-netns-1gbit.txt, less_bench-netns-100mbit.txt, compress_cnn-netns-100mbit.txt,
# compress_gpt-netns-100mbit.txt), and the full output of make cluster-test and make
# slurm-test; and chapter 10's ring_or_tree lab on four nodes, the link node-b - node-c
# as it is, slowed to 20 Gbit/s and to 1 Gbit/s (ring_or_tree-netns*.txt in chapter 10's
# output folder).
# Root only. Expect five to ten minutes on a 2-core machine.
# `scripts/cluster/outputs.sh diagnose` makes only the two diagnose files (seconds);
# `scripts/cluster/outputs.sh hier` only chapter 12's hier lab and less_bench (three);
# `scripts/cluster/outputs.sh compress` only compress_cnn's and compress_gpt's;
# `scripts/cluster/outputs.sh gpt` only compress_gpt's (about six minutes);
# `scripts/cluster/outputs.sh ring-or-tree` only chapter 10's ring_or_tree (seconds);
# `scripts/cluster/outputs.sh cluster-test` only make cluster-test's output (a minute),
# `... slurm-test` only make slurm-test's (about four).
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=book/src/cluster/output
mkdir -p "$DIR"
MAX=4194304 # the sweep up to 4 MiB: enough to see bandwidth, short enough over TCP
SWEEP="cargo run -q --release -p ch03-ring-allreduce --features solution --bin sweep -- --max-bytes $MAX"

# capture FILE CMD...: runs CMD (shown as the file's first line) into FILE.
capture() {
  local file=$DIR/$1; shift
  local shown="" a
  for a in "$@"; do
    if [[ $a == *" "* ]]; then shown+="${a%%=*}=\"${a#*=}\" "; else shown+="$a "; fi
  done
  echo "cluster-outputs: $shown"
  { echo "\$ ${shown% }"; env "$@" 2>&1; } > "$file.tmp" || { cat "$file.tmp"; rm -f "$file.tmp"; exit 1; }
  mv "$file.tmp" "$file"
}

# Chapter 10's diagnose at 4 ranks (0, 1 on node-a; 2, 3 on node-b): as the cluster is,
# then with what node-b sends shaped to 100 Mbit/s (tc tbf inside its namespace).
diagnose_captures() {
  capture diagnose-netns.txt make -s --no-print-directory diagnose CLUSTER=netns
  local shaped="scripts/cluster/netns.sh shape node-b rate=100mbit && make -s --no-print-directory diagnose"
  echo "cluster-outputs: scripts/cluster/netns.sh run bash -c '$shaped'"
  { echo "\$ scripts/cluster/netns.sh run bash -c '$shaped'";
    scripts/cluster/netns.sh run bash -c "$shaped" 2>&1; } > "$DIR/diagnose-tc.txt.tmp" \
    || { cat "$DIR/diagnose-tc.txt.tmp"; rm -f "$DIR/diagnose-tc.txt.tmp"; exit 1; }
  mv "$DIR/diagnose-tc.txt.tmp" "$DIR/diagnose-tc.txt"
}

# shell_capture FILE SCRIPT: runs the bash SCRIPT on the cluster (shown as the file's
# first line, with WB_NODES when it is set) into FILE, a path from the repository root.
shell_capture() {
  local file=$1 script=$2 nodes=${WB_NODES:+WB_NODES=$WB_NODES }
  echo "cluster-outputs: ${nodes}scripts/cluster/netns.sh run bash -c '$script'"
  { echo "\$ ${nodes}scripts/cluster/netns.sh run bash -c '$script'";
    scripts/cluster/netns.sh run bash -c "$script" 2>&1; } > "$file.tmp" \
    || { cat "$file.tmp"; rm -f "$file.tmp"; exit 1; }
  mv "$file.tmp" "$file"
}

# Chapter 12's hier lab with real nodes (split_shared: 0, 1 on node-a; 2, 3 on node-b):
# TCP over the bridge as it is, then with what each node sends shaped to 1 Gbit/s; then
# its side-by-side benchmark and the CNN lab with the links shaped to 100 Mbit/s (their
# emulated nodes of 2 are the real ones here).
hier_captures() {
  local ch12=book/src/ch12-communicating-less/output
  local lab="make -s --no-print-directory run CH=12 SOLUTION=1 ARGS='--nodes shared'"
  shell_capture $ch12/hier-netns.txt "$lab"
  local shape="scripts/cluster/netns.sh shape node-a rate=RATE && scripts/cluster/netns.sh shape node-b rate=RATE"
  shell_capture $ch12/hier-netns-1gbit.txt "${shape//RATE/1gbit} && $lab"
  shell_capture $ch12/less_bench-netns-100mbit.txt \
    "${shape//RATE/100mbit} && make -s --no-print-directory bench CH=12"
}

# Chapter 12's compression labs with both nodes' links shaped to 100 Mbit/s.
compress_captures() {
  local ch12=book/src/ch12-communicating-less/output
  local shape="scripts/cluster/netns.sh shape node-a rate=100mbit && scripts/cluster/netns.sh shape node-b rate=100mbit"
  shell_capture $ch12/compress_cnn-netns-100mbit.txt \
    "$shape && make -s --no-print-directory run CH=12 BIN=compress_cnn SOLUTION=1"
  gpt_capture
}

# Chapter 12's compress_gpt (chapter 9's GPT, dp 4) with both nodes' links shaped to
# 100 Mbit/s.
gpt_capture() {
  local ch12=book/src/ch12-communicating-less/output
  local shape="scripts/cluster/netns.sh shape node-a rate=100mbit && scripts/cluster/netns.sh shape node-b rate=100mbit"
  shell_capture $ch12/compress_gpt-netns-100mbit.txt \
    "$shape && make -s --no-print-directory run CH=12 BIN=compress_gpt SOLUTION=1"
}
# Chapter 10's ring_or_tree lab on four nodes (rank r on node r), the link between
# node-b and node-c (ranks 1 and 2) as it is, then slowed both ways by tc.
ring_or_tree_captures() {
  local ch10=book/src/ch10-troubleshooting/output
  local lab="make -s --no-print-directory run CH=10 BIN=ring_or_tree SOLUTION=1"
  local rate
  WB_NODES=4 shell_capture $ch10/ring_or_tree-netns.txt "$lab"
  for rate in 20gbit 1gbit; do
    WB_NODES=4 shell_capture $ch10/ring_or_tree-netns-$rate.txt \
      "scripts/cluster/netns.sh link node-b node-c rate=$rate && $lab"
  done
}
if [ "${1:-}" = diagnose ]; then diagnose_captures; exit 0; fi
if [ "${1:-}" = ring-or-tree ]; then ring_or_tree_captures; exit 0; fi
if [ "${1:-}" = hier ]; then hier_captures; exit 0; fi
if [ "${1:-}" = compress ]; then compress_captures; exit 0; fi
if [ "${1:-}" = gpt ]; then gpt_capture; exit 0; fi
if [ "${1:-}" = cluster-test ]; then capture cluster-test.txt make -s --no-print-directory cluster-test; exit 0; fi
if [ "${1:-}" = slurm-test ]; then capture slurm-test.txt make -s --no-print-directory slurm-test; exit 0; fi

capture hello-netns.txt make -s --no-print-directory run CH=00 CLUSTER=netns
# Ping-pong: 2 ranks for 2 cores, so each may spin (no yield), on one node and on two.
capture pingpong-one-node.txt NP=2 OMPI_MCA_mpi_yield_when_idle=0 \
  make -s --no-print-directory run CH=01 BIN=pingpong SOLUTION=1 CLUSTER=netns
capture pingpong-two-nodes.txt NP=2 OMPI_MCA_mpi_yield_when_idle=0 MPIRUN_ARGS="--map-by node" \
  make -s --no-print-directory run CH=01 BIN=pingpong SOLUTION=1 CLUSTER=netns
# The sweep with 2 ranks too: both on node-a, then one on each node. Its times are means
# over many calls, so idle ranks yield (the cluster's default): spinning ranks on a busy
# machine turned some means into milliseconds.
capture sweep-one-node.txt NP=2 scripts/cluster/netns.sh run $SWEEP
capture sweep-two-nodes.txt NP=2 MPIRUN_ARGS="--map-by node" \
  scripts/cluster/netns.sh run $SWEEP
diagnose_captures
ring_or_tree_captures
hier_captures
compress_captures
capture cluster-test.txt make -s --no-print-directory cluster-test
capture slurm-test.txt make -s --no-print-directory slurm-test
out=$(ls -t target/slurm/workbook-ch00-*.out | head -1)
{ echo "\$ cat $out   # written by the batch job of make slurm-test"; cat "$out"; } > "$DIR/sbatch-ch00.txt"

# The summary: alpha and beta, and allreduce times at three sizes, on one node and two.
# Read from the very files the book shows (ping-pong's alpha/beta line, the sweep's table),
# so the summary cannot disagree with them. A ping-pong line that no longer matches stops
# the script (`read` fails under set -e); a sweep row not found shows as an empty cell.
alpha_beta() { sed -n 's/^alpha = \([0-9.]*\) us.*beta = \([0-9.]*\) GB\/s.*/\1 \2/p' "$DIR/$1"; }
allreduce() { # file bytes algorithm -> time in us
  awk -v b="$2" -v a="$3" '$1 == b && $5 == a && NF >= 6 { print $6; exit }' "$DIR/$1"
}
read -r a1 b1 < <(alpha_beta pingpong-one-node.txt)
read -r a2 b2 < <(alpha_beta pingpong-two-nodes.txt)
{
  echo "\$ make cluster-outputs   # summary of pingpong-*.txt and sweep-*.txt: 2 ranks, on one node or one per node"
  printf "%-36s %16s %16s %8s\n" "" "one node (shm)" "two nodes (TCP)" "ratio"
  row() { printf "%-36s %16s %16s %8s\n" "$1" "$2" "$3" "$(awk -v x="$2" -v y="$3" 'BEGIN { if (x > 0) printf "%.1fx", y / x; else print "-" }')"; }
  row "ping-pong alpha (us)" "$a1" "$a2"
  row "ping-pong beta (GB/s)" "$b1" "$b2"
  for size in 8 32768 4194304; do
    for alg in MPI_Allreduce ring; do
      row "allreduce $size B, $alg (us)" "$(allreduce sweep-one-node.txt $size $alg)" "$(allreduce sweep-two-nodes.txt $size $alg)"
    done
  done
  echo "kill of a rank on node-b -> whole job ended after (s): $(cat "${CARGO_TARGET_DIR:-target}/cluster/kill-seconds.txt")"
  echo "load average of this 2-core machine at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work shares it)"
} > "$DIR/between-nodes.txt"
cat "$DIR/between-nodes.txt"
echo "cluster-outputs: wrote $DIR/"
