#!/usr/bin/env bash
# The GPU check, carried by the GPU kit (`make gpu-kit` builds the kit around this script).
# Runs on a machine with a GPU and a PyTorch 2.11 (CUDA) but no Rust, no MPI, no network:
#   bash run.sh [--results DIR]
# or here, without a GPU, to debug it before GPU minutes are spent (`make gpu-kit-dry`):
#   bash run.sh --dry [--torch-lib DIR]    (DIR: a CPU LibTorch 2.11 lib folder)
# It finds the machine's LibTorch and CUDA libraries (python3's torch), uses the kit's Open
# MPI, and runs: the toolchain smoke test on CUDA tensors; chapter 5's placement and staging
# tests (tensors on the GPU), its CUDA IPC path's test, its GPU lab (host, staged, IPC)
# and staging benchmark (pinned host slots,
# non-blocking copies, the overlap model against the measured time, a Perfetto timeline); chapter 6's GPU test and
# the trainer with --device cuda at 1, 2 and 4 ranks sharing the GPU (and on the CPU for
# comparison), and its CNN 8 times wider; the trainer kit's CUDA IPC test (two ranks, device
# to device); chapter 7's pipeline with its stages on the GPU; chapter 8's ZeRO-2 and ZeRO-3
# on the GPU (collectives staged through host buffers) and their staged-step tests; chapter 9's
# GPT at dp 1 x tp 2 on the GPU and its device test; chapter 11's MoE layer on the GPU and
# the CPU and its test against one process; and the PyTorch anchors
# (anchors/: the same models, batches and optimizers in PyTorch eager, one process on the
# same GPU, with python3's torch), whose ratios go into figures.txt. Every step has a deadline.
# Expect: under 8 minutes; RESULTS/report.txt (one line per step, then the figures) and one
# file per step. With --dry the GPU steps must end in their one-line "no GPU" reason instead.
set -uo pipefail
KIT=$(cd "$(dirname "$0")" && pwd)
DRY=0 RESULTS=$KIT/results TORCH_LIB=""
while [ $# -gt 0 ]; do
  case $1 in
    --dry) DRY=1 ;;
    --results) RESULTS=$2; shift ;;
    --torch-lib) TORCH_LIB=$2; shift ;;
    *) echo "run.sh: unknown argument $1 (--dry, --results DIR, --torch-lib DIR)"; exit 2 ;;
  esac
  shift
done
rm -rf "$RESULTS" && mkdir -p "$RESULTS/workbook" && RESULTS=$(cd "$RESULTS" && pwd)
REPORT=$RESULTS/report.txt
say() { echo "$*" | tee -a "$REPORT"; }
T0=$(date +%s)

# --- LibTorch: the machine's own (real run), or a CPU one with stand-ins for CUDA (dry) ----
if [ $DRY = 1 ]; then
  TORCH_LIB=${TORCH_LIB:-$KIT/../../../libtorch/lib}
  stubs=$RESULTS/stubs && mkdir -p "$stubs"
  # Empty libraries under the CUDA names: the binaries load, and CUDA is simply absent.
  for lib in libtorch_cuda.so libc10_cuda.so; do
    echo | cc -shared -x c - -o "$stubs/$lib" -Wl,-soname,$lib || exit 1
  done
  TORCH_LIB=$stubs:$(cd "$TORCH_LIB" && pwd)
  say "gpu-kit check (DRY RUN: no GPU; CUDA libraries are empty stand-ins)"
else
  TORCH_LIB=${TORCH_LIB:-$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')} \
    || { say "no python3 torch here: give --torch-lib DIR (a CUDA LibTorch 2.11 lib folder)"; exit 1; }
  say "gpu-kit check on $(hostname): $(nvidia-smi -L 2>/dev/null | head -n 1 || echo 'nvidia-smi: none')"
  say "python3 torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>&1 | tail -n 1)"
fi
[ -f "${TORCH_LIB##*:}/libtorch_cpu.so" ] || { say "no libtorch_cpu.so in ${TORCH_LIB##*:}"; exit 1; }
export LD_LIBRARY_PATH=$TORCH_LIB:$KIT/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$KIT/openmpi/bin:$PATH MPIRUN=$KIT/openmpi/bin/mpirun WORKBOOK_OUT=$RESULTS/workbook WORKBOOK_DATA=$KIT/data
# Shared memory and TCP between the ranks of this one node (no UCX: nothing to gain here).
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,sm,tcp
[ $DRY = 1 ] || export WORKBOOK_REQUIRE_GPU=1
say "LibTorch: ${TORCH_LIB##*:}; MPI: $("$MPIRUN" --version 2>&1 | head -n 1)"
say "CUDA-aware MPI: $(ompi_info --parsable --all 2>/dev/null | grep -m1 'mpi_built_with_cuda_support:value' || echo unknown)"
[ $DRY = 1 ] || nvidia-smi >"$RESULTS/nvidia-smi.txt" 2>&1
say "cores: $(nproc)"

# --- steps ----------------------------------------------------------------------------------
FAILED=0
# step NAME SECONDS EXPECT COMMAND...: EXPECT is ok (exit 0) or nogpu (dry run: exit != 0
# with the one-line reason, which names LibTorch's CUDA).
step() {
  local name=$1 secs=$2 expect=$3; shift 3
  local out=$RESULTS/$name.txt start=$(date +%s) rc
  echo "\$ $*" >"$out"
  timeout -k 5 "$secs" "$@" >>"$out" 2>&1; rc=$?
  # The book shows these files: the kit's and the results' folders as `kit/` and
  # `results/`, never this machine's paths (a test fails on them).
  local text; text=$(<"$out"); text=${text//"$KIT/"/kit/}; text=${text//"$RESULTS/"/results/}
  printf '%s\n' "$text" >"$out"
  local took=$(( $(date +%s) - start )) verdict
  if [ $rc = 0 ] && [ "$expect" = ok ]; then verdict=ok
  elif [ $rc != 0 ] && [ "$expect" = nogpu ] && grep -q -e 'no CUDA' -e 'CUDA, but' -e 'no driver' "$out"; then verdict="ok (refused without a GPU, as expected)"
  elif [ $rc = 124 ] || [ $rc = 137 ]; then verdict="FAILED: no end within ${secs} s"; FAILED=1
  else verdict="FAILED: exit $rc (see $name.txt)"; FAILED=1
  fi
  say "$(printf '%-22s %4s s  %s' "$name" "$took" "$verdict")"
}
cuda=ok; [ $DRY = 1 ] && cuda=nogpu
B=$KIT/bin
NP=2 step smoke-cpu 60 ok "$B/torch_smoke"
if ! grep -q 'as expected' "$RESULTS/smoke-cpu.txt"; then
  # A sandboxed machine may refuse shared memory or core binding: TCP, unbound, then again.
  export OMPI_MCA_btl=self,tcp OMPI_MCA_hwloc_base_binding_policy=none PRTE_MCA_hwloc_default_binding_policy=none
  say "retrying with MPI over TCP and no core binding"
  FAILED=0
  NP=2 step smoke-cpu 60 ok "$B/torch_smoke"
fi
NP=2 step smoke-cuda 60 $cuda "$B/torch_smoke" --device cuda
step ch05-placement 120 ok "$B/ch05-hybrid-main" placement:: --test-threads=1
step ch05-staging 240 ok "$B/ch05-hybrid-main" staging:: --test-threads=1
NP=2 step ch05-gpu-lab 120 ok "$B/gpu" --share
# The lab's third path, CUDA IPC between two ranks (both ways); the dry run checks the reason.
step ch05-ipc 120 ok "$B/ch05-hybrid-main" ipc_path:: --test-threads=1
step ch05-staging-bench 150 ok "$B/staging_bench"
step ch06-bridge 120 ok "$B/ch06-data-parallel-main" bridge:: --test-threads=1
for np in 1 2 4; do
  NP=$np step ch06-train-cuda-np$np 120 $cuda "$B/train" --device cuda --epochs 5
done
NP=4 step ch06-train-cpu-np4 120 ok "$B/train" --device cpu --epochs 5
# A batch 16x larger, where the GPU's arithmetic starts to count: one rank, GPU vs all cores.
NP=1 step ch06-train-b1024-cuda 120 $cuda "$B/train" --device cuda --batch 1024 --epochs 20
NP=1 step ch06-train-b1024-cpu 120 ok "$B/train" --device cpu --batch 1024 --epochs 20
# The CNN 8 times wider (--model cnn:8, about 64x the arithmetic): a size a big GPU computes.
NP=1 step ch06-train-cnn8-cuda 150 $cuda "$B/train" --device cuda --model cnn:8 --batch 1024 --epochs 10
NP=1 step ch06-train-cnn8-cpu 150 ok "$B/train" --device cpu --model cnn:8 --batch 1024 --epochs 10
# Device to device between two ranks sharing the GPU (CUDA IPC); the dry run checks the reason.
step ipc 120 ok "$B/trainer-kit-main" cuda_ipc:: --test-threads=1
NP=2 step ch07-pipeline-cuda-np2 150 $cuda "$B/pipeline" --device cuda --steps 1500
# The same run with each micro-batch moved device to device by CUDA IPC (MPI carries only
# doorbells and acks); the one above stages through pinned host buffers (--transport mpi).
NP=2 step ch07-pipeline-ipc-np2 150 $cuda "$B/pipeline" --device cuda --transport ipc --steps 1500
# The wire on the GPU: pinned staging bit for bit, and --transport ipc against mpi.
step ch07-device-wire 120 ok "$B/ch07-pipeline-main" device_wire:: --test-threads=1
NP=4 step ch07-pipeline-cuda-dp2 150 $cuda "$B/pipeline" --device cuda --dp 2 --steps 1500
# Chapter 8's ZeRO-2 and ZeRO-3 with their state on the GPU and their collectives staged
# through host buffers (stage 3: every layer's shards, gradients, Adam and the gathered
# layer on the GPU), and the staged steps' tests against the host steps.
NP=2 step ch08-zero-s2-cuda-np2 150 $cuda "$B/zero" --device cuda --stage 2
NP=2 step ch08-zero-s3-cuda-np2 150 $cuda "$B/zero" --device cuda --stage 3
step ch08-staged 180 ok "$B/ch08-sharded-main" staged:: --test-threads=1
step ch08-staged3 180 ok "$B/ch08-sharded-main" staged3:: --test-threads=1
# Chapter 9's GPT at dp 1 x tp 2 with each rank's shard, activations and Adam's state on
# the GPU (the two ranks share it), its allreduces staged through host memory; then its
# test against one process (and, without a GPU, its one-line reason).
NP=2 step ch09-gpt-cuda-np2 240 $cuda "$B/gpt" --device cuda --dp 1 --tp 2 --steps 300 --log-every 100 --sample 0
step ch09-gpt-device 180 ok "$B/ch09-tensor-parallel-main" gpt_device:: --test-threads=1
# Chapter 11's MoE layer with its router, experts, Adam's state and tokens on the GPU (two
# ranks sharing it; the all-to-alls go through host memory), at a size where the GPU's
# arithmetic counts, then the same on the CPU; then its test against one process.
MOE="--alpha 0.1 --steps 60 --every 20 --tokens 4096 --hidden 256 --experts 8"
NP=2 step ch11-moe-cuda-np2 150 $cuda "$B/moe_train" --device cuda $MOE
NP=2 step ch11-moe-cpu-np2 150 ok "$B/moe_train" --device cpu $MOE
step ch11-train 180 ok "$B/ch11-experts-main" train:: --test-threads=1

# Chapter 14: chapter 6's CNN trained in f32, bf16 and f16 (f32 master weights, ex 14.4's
# step) on the GPU at one rank, then on the CPU: ms per step of each format side by side.
NP=1 step ch14-mixed-cuda-np1 150 $cuda "$B/mixed" --device cuda --epochs 3
NP=1 step ch14-mixed-cpu-np1 150 ok "$B/mixed" --device cpu --epochs 3

# PyTorch eager, one process, on the same GPU: the anchors next to the runs above (the
# same model, batch and optimizer; scripts/anchors in the repository). python3's own torch,
# without the kit's library path. Where it cannot run (no torch, no GPU, the dry run), each
# anchor step says why in one line and is skipped.
TORCH_WHY=$(env -u LD_LIBRARY_PATH python3 - 2>&1 <<'PY' | tail -n 1
try:
    import torch
except Exception as e:
    raise SystemExit(f"no python3 torch ({type(e).__name__}: {e})")
print("ok" if torch.cuda.is_available() else f"python3 torch {torch.__version__} sees no CUDA device")
PY
)
[ -n "$TORCH_WHY" ] || TORCH_WHY="python3 did not answer"
# anchor NAME SECONDS ARGS...: `step NAME SECONDS ok python3 ARGS...`, or its skip line.
anchor() {
  local name=$1 secs=$2; shift 2
  if [ "$TORCH_WHY" = ok ]; then
    step "$name" "$secs" ok env -u LD_LIBRARY_PATH python3 "$@"
  else
    echo "skipped: $TORCH_WHY" >"$RESULTS/$name.txt"
    say "$(printf '%-22s %4s s  %s' "$name" 0 "skipped: $TORCH_WHY")"
  fi
}
A=$KIT/anchors
anchor anchor-ch06-cuda 120 "$A/ddp_cnn.py" --device cuda --data "$KIT/data" --epochs 5
anchor anchor-ch06-cnn8-cuda 150 "$A/ddp_cnn.py" --device cuda --data "$KIT/data" --model cnn:8 --batch 1024 --epochs 10
anchor anchor-ch07-cuda 150 "$A/pipe_mlp.py" --device cuda --warmup 100 --steps 1500

# --- the figures ----------------------------------------------------------------------------
# The figures also go to figures.txt, on their own, for the book.
FIGURES=$RESULTS/figures.txt
fig() { echo "$*" | tee -a "$FIGURES" >>"$REPORT"; echo "$*"; }
say ""
# The trainers' own report lines, copied whole for a reader (figures.txt goes to the book):
# nothing here reads a number out of them, so their prose is enough. A benchmark's figures,
# where a program reads them, travel as `ROW {json}` lines (toolkit::bench::rows).
fig "figures (last epoch / last report line of each run):"
for f in "$RESULTS"/ch06-train-*.txt; do
  fig "  $(basename "$f" .txt): $(grep '^epoch' "$f" | tail -n 1)"
done
for f in "$RESULTS"/ch07-pipeline-*.txt; do
  fig "  $(basename "$f" .txt): $(grep -E '^ +[0-9]+ ' "$f" | tail -n 1)"
done
# Chapter 8: samples/s (last epoch), bytes held against the formula, host staging.
for f in "$RESULTS"/ch08-zero-*-cuda-*.txt; do
  if grep -q '^epoch' "$f"; then
    fig "  $(basename "$f" .txt): $(grep '^epoch' "$f" | tail -n 1); $(grep -m1 '^held = ' "$f"); $(grep -m1 '^on Cuda' "$f")"
  else
    fig "  $(basename "$f" .txt): not measured ($(tail -n 1 "$f"))"
  fi
done
# Chapter 14: ms per step of each format (compute, sum) in the mixed lab's table.
for f in "$RESULTS"/ch14-mixed-*-np1.txt; do
  if grep -q '^f32   f32' "$f"; then
    fig "  $(basename "$f" .txt): ms/step $(grep -E '^(f32|bf16|f16) ' "$f" | awk '{printf "%s/%s %s, ", $1, $2, $NF}' | sed 's/, $//')"
  else
    fig "  $(basename "$f" .txt): not measured ($(tail -n 1 "$f"))"
  fi
done
# Chapter 9: the GPT's tokens/s (its last report line: step, train loss, valid loss, tokens/s).
for f in "$RESULTS"/ch09-gpt-*-np*.txt; do
  line=$(grep -E '^ +[0-9]+ ' "$f" | tail -n 1)
  if [ -n "$line" ]; then
    fig "  $(basename "$f" .txt): $(echo "$line" | awk '{printf "step %s, train loss %s, valid loss %s, %s tokens/s", $1, $2, $3, $4}')"
  else
    fig "  $(basename "$f" .txt): not measured ($(tail -n 1 "$f"))"
  fi
done
# Chapter 11: the MoE layer's tokens/s (its run's closing line), on the GPU and the CPU.
for f in "$RESULTS"/ch11-moe-*-np*.txt; do
  line=$(grep -m1 ' tokens/s ' "$f")
  fig "  $(basename "$f" .txt): ${line:-not measured ($(tail -n 1 "$f"))}"
done
# Chapter 5's asynchronous staging: the pinned path (or why it was skipped), the overlap
# model against the measured times, and each recorded timeline
# (results/workbook/ch05-staging-trace-np*.json, for ui.perfetto.dev).
SB=$RESULTS/ch05-staging-bench.txt
fig "  ch05-staging pinned path: $(grep -m1 -e '^GPU tensors' -e '^no GPU here' "$SB" || echo 'no verdict (see ch05-staging-bench.txt)')"
fig "  ch05-staging $(grep -m1 '^overlap model' "$SB" || echo 'overlap model: no rows (see ch05-staging-bench.txt)')"
grep '^NP=' "$SB" | while IFS= read -r line; do fig "  ch05-staging trace $line"; done
# The anchors: our samples/s (last epoch / last report line), PyTorch eager's, the ratio.
ours06() { grep '^epoch' "$1" 2>/dev/null | tail -n 1 | sed -nE 's/.* ([0-9.]+) samples\/s.*/\1/p'; }
ours07() { grep -E '^ +[0-9]+ ' "$1" 2>/dev/null | tail -n 1 | awk '{print $4}'; }
theirs06() { grep '^EPOCH' "$1" 2>/dev/null | tail -n 1 | awk '{print $3}'; }
theirs07() { grep '^RATE' "$1" 2>/dev/null | tail -n 1 | awk '{print $2}'; }
# versus LABEL OURS THEIRS ANCHOR_FILE: one figures line.
versus() {
  if [ -n "$2" ] && [ -n "$3" ]; then
    fig "  anchor $1: ours $2 samples/s, PyTorch eager $3, ours / PyTorch $(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')x"
  else
    fig "  anchor $1: not measured ($(head -n 1 "$4" 2>/dev/null | sed 's/^skipped: //'))"
  fi
}
versus "ch06 cnn, batch 64, 1 rank" "$(ours06 "$RESULTS/ch06-train-cuda-np1.txt")" \
  "$(theirs06 "$RESULTS/anchor-ch06-cuda.txt")" "$RESULTS/anchor-ch06-cuda.txt"
versus "ch06 cnn:8, batch 1024, 1 rank" "$(ours06 "$RESULTS/ch06-train-cnn8-cuda.txt")" \
  "$(theirs06 "$RESULTS/anchor-ch06-cnn8-cuda.txt")" "$RESULTS/anchor-ch06-cnn8-cuda.txt"
versus "ch07 width 96, batch 128, 2 stages (PyTorch: the whole model, 1 process)" \
  "$(ours07 "$RESULTS/ch07-pipeline-cuda-np2.txt")" \
  "$(theirs07 "$RESULTS/anchor-ch07-cuda.txt")" "$RESULTS/anchor-ch07-cuda.txt"
# Chapter 7's transports at 2 stages: pinned host staging (mpi) against CUDA IPC.
T07=$(ours07 "$RESULTS/ch07-pipeline-cuda-np2.txt") I07=$(ours07 "$RESULTS/ch07-pipeline-ipc-np2.txt")
if [ -n "$T07" ] && [ -n "$I07" ]; then
  fig "  ch07 transports, 2 stages: ours mpi (pinned staging) $T07 samples/s, ours ipc $I07 samples/s, ipc / mpi $(awk -v a="$I07" -v b="$T07" 'BEGIN { printf "%.2f", a / b }')x"
else
  fig "  ch07 transports, 2 stages: not measured ($(tail -n 1 "$RESULTS/ch07-pipeline-ipc-np2.txt" 2>/dev/null))"
fi
say "gpu-kit check: $([ $FAILED = 0 ] && echo 'every step passed' || echo 'SOME STEPS FAILED') in $(( $(date +%s) - T0 )) s"
exit $FAILED
