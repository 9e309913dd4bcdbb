#!/usr/bin/env bash
# make cluster-test: the workbook on a two-node cluster (scripts/cluster/netns.sh), for real.
#
# Builds what it needs, brings the cluster up, and checks, each step with its own deadline:
#   1. hello at NP=4 reports ranks 0, 1 on node-a and 2, 3 on node-b, local ranks 0, 1 on each;
#   2. a chapter 3 property test (ex 3.3 at 1..8 ranks) passes with ranks on both nodes;
#   3. the chapter 6 trainer (2 epochs) trains across the two nodes;
#   4. a rank killed on node-b ends the whole job on node-a, in seconds (measured);
#   5. a job past WORKBOOK_JOB_TIMEOUT is stopped on both nodes;
#   6. node-b's interface shaped with tc (`netns.sh shape node-b rate=100mbit`, for this
#      step only): chapter 10's diagnose at NP=4 finds exactly the links that cross the
#      nodes (0-2, 0-3, 1-2, 1-3), not 0-1 or 2-3 (skipped, saying why, without tc or tbf);
#   7. four nodes (WB_NODES=4), one rank each, and one link slowed both ways
#      (`netns.sh link node-b node-c rate=1gbit`): diagnose finds that link, 1-2, alone
#      (skipped, saying why, without htb or u32);
#   8. an elastic restart (chapter 15): chapter 8's trainer on 4 ranks under `supervise`,
#      node-b lost mid-training (its namespace removed, its processes killed); the
#      supervisor finds node-a alone answers, relaunches on its 2 slots from the last
#      checkpoint, and the run is bit for bit one from the same checkpoint on 2 ranks;
# then removes the cluster (always, even on failure: a node's qdisc goes with its
# namespace) and checks nothing is left running and no shaping is left.
# Root only. Expect about a minute after the build; output under target/cluster/.
set -euo pipefail
# Ctrl-C (SIGINT to the whole process group) or SIGTERM ends the script at once, through
# its EXIT trap (the teardown); every `timeout` here runs in the foreground, so the signal
# reaches the step that is running too.
trap 'echo "$(basename "$0"): interrupted" >&2; exit 130' INT
trap 'echo "$(basename "$0"): terminated" >&2; exit 143' TERM
cd "$(dirname "$0")/../.."
TARGET=${CARGO_TARGET_DIR:-target}
OUT=$TARGET/cluster
mkdir -p "$OUT"
START=$(date +%s)
WATCH=""
SUPERVISOR=""

fail() { echo "cluster-test: FAILED: $*" >&2; exit 1; }
elapsed() { echo $(( $(date +%s) - $1 )); }
teardown() {
  if [ -n "$WATCH" ]; then kill "$WATCH" 2>/dev/null || true; fi
  # Step 8's supervisor runs in the background, where a Ctrl-C does not reach it.
  if [ -n "$SUPERVISOR" ]; then kill -TERM "$SUPERVISOR" 2>/dev/null || true; wait "$SUPERVISOR" 2>/dev/null || true; SUPERVISOR=""; fi
  # Interrupted, a job ends on its own: its reaper asks mpirun to stop, and mpirun has each
  # node's daemon end its ranks and remove its files. The nodes go when they are empty,
  # or after the reaper's grace (3 s) and a second more.
  for _ in $(seq 40); do
    [ -z "$(for n in a b c d; do ip netns pids "wb-node-$n" 2>/dev/null; done)" ] && break
    sleep 0.1
  done
  scripts/cluster/netns.sh down >/dev/null
}

# Records the command names of processes inside node $1 into file $2, 5 times a second.
watch_node() {
  while :; do
    for p in $(ip netns pids "wb-$1" 2>/dev/null); do cat "/proc/$p/comm" 2>/dev/null || true; done
    sleep 0.2
  done >> "$2"
}
start_watch() { : > "$2"; watch_node "$1" "$2" & WATCH=$!; }
stop_watch() { kill "$WATCH" 2>/dev/null || true; wait "$WATCH" 2>/dev/null || true; WATCH=""; }

t=$(date +%s)
echo "cluster-test: building hello, train, diagnose and chapter 3's allreduce test (release)"
cargo build -q --release -p ch00-toolkit --bin hello
cargo build -q --release -p ch10-troubleshooting --features solution --bin diagnose
cargo build -q --release -p ch06-data-parallel --features solution --bin train
cargo build -q --release -p ch15-failures --features solution --bin supervise
cargo build -q --release -p ch08-sharded --features solution --bin zero
cargo test -q --release -p ch03-ring-allreduce --features solution --test main allreduce:: --no-run 2>/dev/null
echo "cluster-test: built in $(elapsed "$t") s"

t=$(date +%s)
trap teardown EXIT
scripts/cluster/netns.sh up
eval "$(scripts/cluster/netns.sh env)"

# 1. hello: two nodes, local ranks 0..1 on each.
t=$(date +%s)
NP=4 timeout --foreground 60 "$TARGET/release/hello" > "$OUT/hello.txt" 2>&1 || { cat "$OUT/hello.txt"; fail "hello"; }
grep -q "node node-a: ranks 0, 1$" "$OUT/hello.txt" || fail "hello: no 'node node-a: ranks 0, 1' in $OUT/hello.txt"
grep -q "node node-b: ranks 2, 3$" "$OUT/hello.txt" || fail "hello: no 'node node-b: ranks 2, 3' in $OUT/hello.txt"
for rank_local in "2 .*node-b .* 0 " "3 .*node-b .* 1 "; do
  grep -Eq "│ $rank_local" "$OUT/hello.txt" || fail "hello: rank/local rank '$rank_local' missing"
done
echo "cluster-test: 1. hello: ranks 0, 1 on node-a and 2, 3 on node-b, local ranks 0, 1 on each ($(elapsed "$t") s)"

# 2. chapter 3's property test, its ranks seen running on node-b.
t=$(date +%s)
start_watch node-b "$OUT/node-b-ch03.txt"
timeout --foreground 600 cargo test -q --release -p ch03-ring-allreduce --features solution --test main allreduce::ex3_3 \
  > "$OUT/ch03.txt" 2>&1 || { stop_watch; cat "$OUT/ch03.txt"; fail "chapter 3 property test"; }
stop_watch
grep -q "test result: ok. 1 passed" "$OUT/ch03.txt" || fail "chapter 3: no passing test in $OUT/ch03.txt"
grep -q "^main-" "$OUT/node-b-ch03.txt" || fail "chapter 3: no rank of the test ever ran on node-b"
echo "cluster-test: 2. chapter 3 ex 3.3 property (1..8 ranks) passed, ranks ran on node-b ($(elapsed "$t") s)"

# 3. chapter 6's trainer across the nodes.
t=$(date +%s)
start_watch node-b "$OUT/node-b-train.txt"
WORKBOOK_OUT="$OUT/train-out" NP=4 timeout --foreground 180 "$TARGET/release/train" --model mlp --epochs 2 \
  > "$OUT/train.txt" 2>&1 \
  || { stop_watch; cat "$OUT/train.txt"; fail "the trainer"; }
stop_watch
grep -q "2 ranks on this node" "$OUT/train.txt" || fail "trainer: threads not planned per node (no '2 ranks on this node')"
# The accuracy is read from the trainer's table, train.csv (column "test acc %", the row of
# epoch 2), which rank 0 writes under WORKBOOK_OUT. A missing file or column fails loudly.
csv="$OUT/train-out/ch06/train.csv"
acc=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "test acc %") col = i; next }
  $1 == 2 && col { print $col }' "$csv" 2>/dev/null || true)
[ -n "$acc" ] && awk "BEGIN { exit !($acc > 80) }" || fail "trainer: epoch 2 test accuracy '$acc' in $csv (expected > 80%)"
grep -q "^train" "$OUT/node-b-train.txt" || fail "trainer: no rank ran on node-b"
echo "cluster-test: 3. trainer across node-a and node-b: test accuracy $acc% after 2 epochs ($(elapsed "$t") s)"

# 4. a rank killed on node-b ends the job on node-a.
t=$(date +%s)
( rc=0; NP=4 timeout --foreground 120 "$TARGET/release/train" --model mlp --epochs 100000 > "$OUT/kill.txt" 2>&1 || rc=$?
  echo "$rc" > "$OUT/kill.rc" ) &
JOB=$!
victim=""
for _ in $(seq 100); do
  if grep -q "^epoch" "$OUT/kill.txt" 2>/dev/null; then
    for p in $(ip netns pids wb-node-b); do
      if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = train ]; then victim=$p; break; fi
    done
  fi
  if [ -n "$victim" ]; then break; fi
  sleep 0.2
done
[ -n "$victim" ] || { kill "$JOB" 2>/dev/null; fail "no trainer rank found on node-b to kill"; }
k0=$(date +%s.%N)
kill -KILL "$victim"
wait "$JOB"
k1=$(date +%s.%N)
secs=$(awk "BEGIN { printf \"%.2f\", $k1 - $k0 }")
[ "$(cat "$OUT/kill.rc")" != 0 ] || fail "the job survived the kill of rank pid $victim"
awk "BEGIN { exit !($secs < 10) }" || fail "the job took $secs s to end after the kill"
echo "cluster-test: 4. SIGKILL to a rank on node-b (pid $victim): the whole job ended $secs s later, exit $(cat "$OUT/kill.rc")"
echo "$secs" > "$OUT/kill-seconds.txt"

# 5. past its deadline, the job is stopped on both nodes.
t=$(date +%s)
rc=0
WORKBOOK_JOB_TIMEOUT=4 NP=4 timeout --foreground 60 "$TARGET/release/train" --model mlp --epochs 100000 \
  > "$OUT/deadline.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "the job past its deadline exited 0"
grep -q "ran past its 4 s deadline" "$OUT/deadline.txt" || { cat "$OUT/deadline.txt"; fail "no deadline message"; }
echo "cluster-test: 5. a trainer past WORKBOOK_JOB_TIMEOUT=4 was stopped on both nodes after $(elapsed "$t") s"

# 6. a slow network between the nodes, made with tc: chapter 10's link matrix finds it.
# The qdisc is on node-b's own eth0, inside its namespace: teardown removes it with the
# node, even if this step fails midway.
t=$(date +%s)
RATE=100mbit
shaped=0
if ! command -v tc >/dev/null; then
  echo "cluster-test: 6. skipped: no 'tc' command (apt-get install iproute2), so no shaping"
elif ! timeout --foreground 20 scripts/cluster/netns.sh shape node-b rate=$RATE > "$OUT/shape.txt" 2>&1; then
  cat "$OUT/shape.txt"
  grep -q "qdisc kind is unknown" "$OUT/shape.txt" || fail "tc could not shape node-b"
  echo "cluster-test: 6. skipped: this kernel has no tbf qdisc (CONFIG_NET_SCH_TBF), so no shaping"
else
  shaped=1
  NP=4 timeout --foreground 120 "$TARGET/release/diagnose" > "$OUT/diagnose-shaped.txt" 2>&1 \
    || { cat "$OUT/diagnose-shaped.txt"; fail "diagnose with node-b shaped"; }
  timeout --foreground 20 scripts/cluster/netns.sh unshape node-b > /dev/null
fi
if [ "$shaped" = 1 ]; then
  left=$(timeout --foreground 20 scripts/cluster/netns.sh shaped | grep -v ': none$' || true)
  [ -z "$left" ] || fail "shaping left after unshape: $left"
  verdict=$(sed -n 's/^verdict, links: //p' "$OUT/diagnose-shaped.txt")
  found=$(echo "$verdict" | sed -n 's/^slow links: //p' | grep -oE '[0-9]+-[0-9]+ at' | cut -d' ' -f1 | sort | xargs)
  [ "$found" = "0-2 0-3 1-2 1-3" ] \
    || { cat "$OUT/diagnose-shaped.txt"; fail "shaped: slow links '$found', expected exactly 0-2 0-3 1-2 1-3"; }
  # The shaping did it: unshaped, a 256 KiB message crosses the veth link in 0.1-0.3 ms
  # (measured); at 100 Mbit/s it takes milliseconds.
  median=$(sed -n 's/^median link: \([0-9]*\) µs$/\1/p' "$OUT/diagnose-shaped.txt")
  [ -n "$median" ] && [ "$median" -ge 1000 ] || fail "shaped: median link '$median' µs, expected >= 1000"
  echo "cluster-test: 6. node-b shaped to $RATE (tc tbf): slow links 0-2, 0-3, 1-2, 1-3 found, not 0-1 or 2-3 (median link $median µs); shaping removed ($(elapsed "$t") s)"
fi

# 7. four nodes, one rank on each, and one slow link between node-b and node-c (ranks 1
# and 2): chapter 10's ring_or_tree lab's network.
t=$(date +%s)
teardown
WB_NODES=4 scripts/cluster/netns.sh up > "$OUT/up4.txt"
eval "$(WB_NODES=4 scripts/cluster/netns.sh env)"
if [ "$shaped" = 0 ]; then
  echo "cluster-test: 7. skipped: no shaping (step 6)"
elif ! timeout --foreground 20 scripts/cluster/netns.sh link node-b node-c rate=1gbit > "$OUT/link.txt" 2>&1; then
  cat "$OUT/link.txt"
  grep -q "kind is unknown\|no cls_u32" "$OUT/link.txt" || fail "tc could not slow the link node-b - node-c"
  echo "cluster-test: 7. skipped: this kernel has no htb qdisc or u32 filter, so no single slow link"
else
  NP=4 timeout --foreground 120 "$TARGET/release/diagnose" > "$OUT/diagnose-link.txt" 2>&1 \
    || { cat "$OUT/diagnose-link.txt"; fail "diagnose with the link node-b - node-c slowed"; }
  found=$(sed -n 's/^verdict, links: slow links: //p' "$OUT/diagnose-link.txt" | grep -oE '[0-9]+-[0-9]+ at' | cut -d' ' -f1 | xargs)
  [ "$found" = "1-2" ] || { cat "$OUT/diagnose-link.txt"; fail "link slowed: slow links '$found', expected exactly 1-2"; }
  echo "cluster-test: 7. four nodes, link node-b - node-c slowed to 1gbit (tc htb): slow link 1-2 found, alone ($(elapsed "$t") s)"
fi

# 8. an elastic restart: node-b lost mid-training, the job goes on on node-a.
t=$(date +%s)
teardown
scripts/cluster/netns.sh up > "$OUT/up2.txt"
eval "$(scripts/cluster/netns.sh env)"
ckpt="$OUT/elastic-ckpt"
rm -rf "$ckpt" "$ckpt.restart"
NP=4 timeout --foreground 300 "$TARGET/release/supervise" --verify -- "$TARGET/release/zero" \
  --model mlp --max-steps 300 --every 10 --collectives mpi --quiet --losses --threads 1 --checkpoint "$ckpt" \
  > "$OUT/elastic.txt" 2>&1 &
SUPERVISOR=$!   # timeout's pid: a TERM to it reaches the supervisor, whose jobs end with it
# The supervisor prints a launch's lines when it ends: the first checkpoint on disk says
# the training is under way.
for _ in $(seq 600); do
  [ -e "$ckpt/manifest.ckpt" ] && break
  sleep 0.05
done
[ -e "$ckpt/manifest.ckpt" ] || { cat "$OUT/elastic.txt"; fail "elastic: no checkpoint in $ckpt after 30 s"; }
# node-b dies: its name goes first (its remote shell then fails at once), then its processes.
pids=$(ip netns pids wb-node-b)
ip netns del wb-node-b
for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
rc=0
wait "$SUPERVISOR" || rc=$?
SUPERVISOR=""
[ "$rc" = 0 ] || { cat "$OUT/elastic.txt"; fail "elastic: the supervisor did not finish the training (exit $rc)"; }
for line in "launch 1 failed" "hosts that answer: 10.77.0.1 (2); lost: 10.77.0.2; restarting on 2 of them" \
    "launch 2: 2 ranks, resumed from the checkpoint" "verify: the same, bit for bit" "done after 2 launches"; do
  grep -qF "supervise: $line" "$OUT/elastic.txt" || { cat "$OUT/elastic.txt"; fail "elastic: no 'supervise: $line' in $OUT/elastic.txt"; }
done
resumed=$(sed -n 's/^  | resumed at step \([0-9]*\).*/\1/p' "$OUT/elastic.txt" | head -1)
echo "cluster-test: 8. node-b lost after the first checkpoint: the supervisor went on on node-a's 2 slots from the checkpoint of step $resumed, bit for bit a run from that checkpoint on 2 ranks ($(elapsed "$t") s)"

# Nothing of the jobs is left on any node or on this machine, and no shaping.
sleep 0.5
for node in node-a node-b node-c node-d; do
  left=$(ip netns pids "wb-$node" 2>/dev/null | tr '\n' ' ' || true)
  [ -z "$left" ] || fail "processes left on $node: $left"
done
teardown
trap - EXIT
if ip netns list | grep -q "wb-node"; then fail "a namespace is left"; fi
left=$(tc qdisc show 2>/dev/null | grep -E "netem|tbf|htb" | grep -E "dev wb" || true)
[ -z "$left" ] || fail "a shaping qdisc is left: $left"
echo "cluster-test: passed in $(elapsed "$START") s; cluster removed, nothing left running, no shaping left"
