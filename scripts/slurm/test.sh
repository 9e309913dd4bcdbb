#!/usr/bin/env bash
# make slurm-test: the workbook under a real (one-node) Slurm, started by
# scripts/slurm/cluster.sh from Debian's packages (installed if missing).
#
#   1. a lab under srun: `MPIRUN=srun NP=4 hello` and `srun -n 4 hello` both give 4 ranks;
#   2. a property test with MPIRUN=srun: chapter 3's ex 3.3 at 1..8 ranks, one Slurm job each;
#   3. a job past its deadline under srun is cancelled whole (WORKBOOK_JOB_TIMEOUT=4);
#   4. `make sbatch CH=00` + `sbatch --wait`: chapter 0's check runs in a batch job and its
#      output lands in target/slurm/workbook-ch00-JOBID.out;
#   5. chapter 15's supervisor with MPIRUN=srun: chapter 8's trainer on 4 tasks, task 3
#      killed at step 12, relaunched on 3 from the checkpoint, bit for bit (--verify);
#   6. a requeue: chapter 8's trainer as a batch job with --requeue, `scontrol requeue` once
#      its first checkpoint is on disk; the job runs again and resumes from the checkpoint,
#      and ends with the losses and parameters of a run from a copy of that checkpoint;
# then stops Slurm and munge (always) and checks that nothing of them is left running.
# Root only. Expect about two minutes after the build.
set -euo pipefail
# Ctrl-C (SIGINT to the whole process group) or SIGTERM ends the script at once, through
# its EXIT trap (the teardown); every `timeout` here runs in the foreground, so the signal
# reaches the step that is running too.
trap 'echo "$(basename "$0"): interrupted" >&2; exit 130' INT
trap 'echo "$(basename "$0"): terminated" >&2; exit 143' TERM
cd "$(dirname "$0")/../.."
TARGET=${CARGO_TARGET_DIR:-target}
OUT=$TARGET/slurm-test
mkdir -p "$OUT" target/slurm
START=$(date +%s)
fail() { echo "slurm-test: FAILED: $*" >&2; exit 1; }
elapsed() { echo $(( $(date +%s) - $1 )); }
jobs_so_far() { grep -c "_slurm_rpc_allocate_resources JobId=\|_slurm_rpc_submit_batch_job: JobId=" /run/workbook-slurm/slurmctld.log || true; }

t=$(date +%s)
echo "slurm-test: building hello, train and chapter 3's allreduce test (release)"
cargo build -q --release -p ch00-toolkit --bin hello
cargo build -q --release -p ch06-data-parallel --features solution --bin train
cargo build -q --release -p ch15-failures --features solution --bin supervise
cargo build -q --release -p ch08-sharded --features solution --bin zero
cargo test -q --release -p ch03-ring-allreduce --features solution --test main allreduce:: --no-run 2>/dev/null
cargo test -q -p ch00-toolkit --no-run 2>/dev/null
echo "slurm-test: built in $(elapsed "$t") s"

t=$(date +%s)
trap 'scripts/slurm/cluster.sh down >/dev/null' EXIT
scripts/slurm/cluster.sh up
eval "$(scripts/slurm/cluster.sh env)"
echo "slurm-test: Slurm started in $(elapsed "$t") s"

# 1. a lab, re-launched through srun, and started by srun directly.
t=$(date +%s)
MPIRUN=srun NP=4 timeout --foreground 60 "$TARGET/release/hello" > "$OUT/hello-relaunch.txt" 2>&1 \
  || { cat "$OUT/hello-relaunch.txt"; fail "MPIRUN=srun hello"; }
grep -q "hello: 4 ranks answered" "$OUT/hello-relaunch.txt" || fail "MPIRUN=srun hello: not 4 ranks"
timeout --foreground 60 srun -n 4 --mpi=pmix "$TARGET/release/hello" > "$OUT/hello-srun.txt" 2>&1 \
  || { cat "$OUT/hello-srun.txt"; fail "srun -n 4 hello"; }
grep -q "hello: 4 ranks answered" "$OUT/hello-srun.txt" || fail "srun -n 4 hello: not 4 ranks"
echo "slurm-test: 1. MPIRUN=srun NP=4 hello and srun -n 4 hello: 4 ranks each ($(elapsed "$t") s)"

# 2. a property test through srun: its six rank counts in one job (one launch at 8 ranks,
#    each count on a communicator of its own: toolkit::sizes).
t=$(date +%s)
before=$(jobs_so_far)
MPIRUN=srun timeout --foreground 600 cargo test -q --release -p ch03-ring-allreduce --features solution --test main allreduce::ex3_3 \
  > "$OUT/ch03.txt" 2>&1 || { cat "$OUT/ch03.txt"; fail "MPIRUN=srun chapter 3 property test"; }
grep -q "test result: ok. 1 passed" "$OUT/ch03.txt" || fail "chapter 3: no passing test"
jobs=$(( $(jobs_so_far) - before ))
[ "$jobs" -ge 1 ] || fail "chapter 3 ran no Slurm job; expected one launch for its six rank counts"
echo "slurm-test: 2. MPIRUN=srun ex 3.3 property passed at 1..8 ranks, $jobs Slurm job(s) ($(elapsed "$t") s)"

# 3. past its deadline, a job under srun is cancelled on every rank.
t=$(date +%s)
rc=0
WORKBOOK_JOB_TIMEOUT=4 MPIRUN=srun NP=4 timeout --foreground 60 "$TARGET/release/train" --model mlp --epochs 100000 \
  > "$OUT/deadline.txt" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "the job past its deadline exited 0"
grep -q "ran past its 4 s deadline" "$OUT/deadline.txt" || { cat "$OUT/deadline.txt"; fail "no deadline message"; }
for _ in $(seq 50); do pgrep -x train >/dev/null || break; sleep 0.2; done
pgrep -x train >/dev/null && fail "trainer ranks left running after the deadline: $(pgrep -x train | tr '\n' ' ')"
echo "slurm-test: 3. a trainer past WORKBOOK_JOB_TIMEOUT=4 was cancelled whole; ended after $(elapsed "$t") s"

# 4. a chapter's check as a batch job; the output lands where the book says.
t=$(date +%s)
make -s sbatch CH=00 >/dev/null
rm -f target/slurm/workbook-ch00-*.out
timeout --foreground 900 sbatch --wait target/slurm/ch00.sbatch > "$OUT/sbatch.txt" 2>&1 || { cat "$OUT/sbatch.txt"; fail "sbatch --wait"; }
id=$(sed -n 's/^Submitted batch job \([0-9]*\)/\1/p' "$OUT/sbatch.txt")
out="target/slurm/workbook-ch00-$id.out"
[ -f "$out" ] || fail "no $out"
grep -q "MPIRUN=srun" "$out" || fail "$out: the job did not say MPIRUN=srun"
grep -q "exercises passed" "$out" || { cat "$out"; fail "$out: no check table"; }
echo "slurm-test: 4. sbatch target/slurm/ch00.sbatch: job $id's check table is in $out ($(elapsed "$t") s)"

# 5. the elastic supervisor under srun: each launch a Slurm job of its own.
t=$(date +%s)
ckpt="$OUT/elastic-ckpt"
rm -rf "$ckpt" "$ckpt.restart"
MPIRUN=srun CH08_KILL_RANK=3 CH08_KILL_AT_STEP=12 timeout --foreground 300 "$TARGET/release/supervise" --np 4 --verify \
  -- "$TARGET/release/zero" --model mlp --max-steps 20 --every 5 --collectives mpi --quiet --losses --threads 1 \
  --checkpoint "$ckpt" > "$OUT/elastic.txt" 2>&1 || { cat "$OUT/elastic.txt"; fail "supervise under srun"; }
for line in "launch 1 failed" "launch 2: 3 ranks, resumed from the checkpoint" "verify: the same, bit for bit" "done after 2 launches"; do
  grep -qF "supervise: $line" "$OUT/elastic.txt" || { cat "$OUT/elastic.txt"; fail "supervise under srun: no 'supervise: $line'"; }
done
echo "slurm-test: 5. supervise with MPIRUN=srun: task 3 killed at step 12, relaunched on 3 tasks from step 10, bit for bit ($(elapsed "$t") s)"

# 6. a requeue: Slurm itself runs the job again, which resumes from its checkpoint.
t=$(date +%s)
ckpt="$OUT/requeue-ckpt"
rm -rf "$ckpt" "$ckpt.restart" "$OUT"/requeue-*.out   # job ids start again with Slurm
zero="$TARGET/release/zero --model mlp --max-steps 300 --every 10 --collectives mpi --quiet --losses --threads 1"
cat > target/slurm/requeue.sbatch <<SCRIPT
#!/bin/bash
#SBATCH --job-name=workbook-requeue
#SBATCH --ntasks=4
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=$OUT/requeue-%j.out
set -euo pipefail
cd "\$SLURM_SUBMIT_DIR"
export MPIRUN=srun NP=\$SLURM_NTASKS
echo "run \${SLURM_RESTART_COUNT:-0} of job \$SLURM_JOB_ID"
resume=""
if [ -e "$ckpt/manifest.ckpt" ]; then
  rm -rf "$ckpt.restart"; cp -r "$ckpt" "$ckpt.restart"; resume=--resume
fi
$zero --checkpoint "$ckpt" \$resume
SCRIPT
id=$(sbatch --parsable target/slurm/requeue.sbatch)
for _ in $(seq 600); do [ -e "$ckpt/manifest.ckpt" ] && break; sleep 0.05; done
[ -e "$ckpt/manifest.ckpt" ] || fail "requeue: job $id wrote no checkpoint in 30 s"
scontrol requeue "$id"
# A requeued job waits before it may start again (its begin time is set ahead); start it
# as soon as it is pending.
for _ in $(seq 100); do
  state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [ "$state" = PENDING ] && { scontrol update JobId="$id" StartTime=now 2>/dev/null || true; break; }
  sleep 0.1
done
for _ in $(seq 900); do
  state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [ "$state" = COMPLETED ] || [ "$state" = FAILED ] && break
  sleep 0.2
done
out="$OUT/requeue-$id.out"
[ "$state" = COMPLETED ] || { cat "$out" 2>/dev/null; fail "requeue: job $id ended $state"; }
grep -q "^run 1 of job $id" "$out" || { cat "$out"; fail "requeue: job $id did not run a second time"; }
from=$(sed -n 's/^resumed at step \([0-9]*\).*/\1/p' "$out" | tail -1)
[ -n "$from" ] || { cat "$out"; fail "requeue: the second run did not resume"; }
# The second run against a run from a copy of the same checkpoint, outside the batch job.
MPIRUN=srun NP=4 timeout --foreground 120 $zero --checkpoint "$ckpt.restart" --resume > "$OUT/requeue-again.txt" 2>&1 \
  || { cat "$OUT/requeue-again.txt"; fail "requeue: the run from the copy"; }
pick() { sed -n '/^run 1 of job/,$p' "$1" | grep -E '^step [0-9]+: loss |fingerprint' | sed 's/ in [^ ]* (/ (/'; }
pick "$out" > "$OUT/requeue-second.lines"
{ echo "run 1 of job (the copy)"; cat "$OUT/requeue-again.txt"; } | pick /dev/stdin > "$OUT/requeue-again.lines"
[ -s "$OUT/requeue-second.lines" ] && cmp -s "$OUT/requeue-second.lines" "$OUT/requeue-again.lines" \
  || { diff "$OUT/requeue-second.lines" "$OUT/requeue-again.lines" | head; fail "requeue: the second run differs from a run from the same checkpoint"; }
echo "slurm-test: 6. job $id requeued after its first checkpoint: run 1 resumed at step $from, its $(wc -l < "$OUT/requeue-second.lines") loss and fingerprint lines bit for bit a run from that checkpoint ($(elapsed "$t") s)"

scripts/slurm/cluster.sh down
trap - EXIT
sleep 0.5
left=""
for name in slurmctld slurmd slurmstepd munged srun; do
  for pid in $(pgrep -x "$name" || true); do left="$left $name($pid)"; done
done
[ -z "$left" ] || fail "left running:$left"
echo "slurm-test: passed in $(elapsed "$START") s; Slurm and munge stopped, nothing left running"
