#!/usr/bin/env bash
# make slurm-test: the workbook under a real (one-node) Slurm, started by
# scripts/slurm/cluster.sh from Debian's packages (installed if missing).
#
#   1. a lab under srun: `MPIRUN=srun NP=4 hello` and `srun -n 4 hello` both give 4 ranks;
#   2. a property test with MPIRUN=srun: chapter 3's ex 3.3 at 1..8 ranks, one Slurm job each;
#   3. a job past its deadline under srun is cancelled whole (WORKBOOK_JOB_TIMEOUT=4);
#   4. `make sbatch CH=00` + `sbatch --wait`: chapter 0's check runs in a batch job and its
#      output lands in target/slurm/workbook-ch00-JOBID.out;
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

scripts/slurm/cluster.sh down
trap - EXIT
sleep 0.5
left=""
for name in slurmctld slurmd slurmstepd munged srun; do
  for pid in $(pgrep -x "$name" || true); do left="$left $name($pid)"; done
done
[ -z "$left" ] || fail "left running:$left"
echo "slurm-test: passed in $(elapsed "$START") s; Slurm and munge stopped, nothing left running"
