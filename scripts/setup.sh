#!/usr/bin/env bash
# make setup: install or check everything the workbook needs. Idempotent: a second run
# only checks. One line per component: found / installed / BROKEN or MISSING + the fix,
# each with the seconds it took, then the total. "found" means "used and it worked":
#
#   C toolchain          cc, make, python3 on PATH
#   MPI                  a 2-rank hello compiled with $MPICC (default mpicc) and run with
#                        $MPIRUN (default mpirun); installs openmpi-bin libopenmpi-dev
#   libclang             the C library bindgen loads (scripts/find_libclang.py applies
#                        bindgen's own search rules, then loads it); installs libclang-dev
#   libffi               the system libffi (rsmpi's user-defined reductions link it);
#                        installs libffi-dev
#   libtorch 2.11.0      its build-version file, then libtorch_cpu.so loaded; assembled
#                        from the PyPI wheel into ./libtorch (LIBTORCH=/path: yours)
#   mdbook 0.5.4         `mdbook --version`; installs with cargo install --locked
#
# Logs of the installs: .cache/setup/ (in this folder, never shared names under /tmp).
#
# `scripts/setup.sh --check` installs nothing: what is missing is reported with its fix
# (make doctor runs it so).
set -u
cd "$(dirname "$0")/.."
CHECK_ONLY=0
[ "${1:-}" = --check ] && CHECK_ONLY=1
TORCH_VERSION=2.11.0
MDBOOK_VERSION=0.5.4
LOGS=.cache/setup
mkdir -p "$LOGS"
failed=0
T0=$SECONDS
STEP=$SECONDS

say() { printf 'setup: %-9s %s (%ds)\n' "$1" "$2" $((SECONDS - STEP)); STEP=$SECONDS; }
fail() { say "$1" "$2"; failed=1; }

# apt-get as root, through sudo, or not at all (returns 2: the caller prints the command).
APT_UPDATED=0
apt_install() {
  [ $CHECK_ONLY = 1 ] && return 2
  local cmd="DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $*"
  [ $APT_UPDATED = 1 ] || cmd="apt-get update -qq && $cmd"
  if [ "$(id -u)" = 0 ]; then
    bash -c "$cmd" >>"$LOGS/apt.log" 2>&1 || return 1
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo bash -c "$cmd" >>"$LOGS/apt.log" 2>&1 || return 1
  else
    return 2
  fi
  APT_UPDATED=1
}
apt_hint() { echo "run: sudo apt-get update && sudo apt-get install -y $*"; }

# --- C toolchain ------------------------------------------------------------------------
missing=()
for tool in cc make python3; do command -v $tool >/dev/null || missing+=($tool); done
if [ ${#missing[@]} = 0 ]; then
  say tools "found: cc, make, python3"
else
  fail tools "MISSING: ${missing[*]}; $(apt_hint gcc make python3)"
fi

# --- MPI: compile and run a 2-rank hello with the chosen mpicc / mpirun ------------------
MPICC_CMD=${MPICC:-mpicc}
MPIRUN_CMD=${MPIRUN:-mpirun}
# Prints nothing and returns 0 when a 2-rank hello works; else prints why.
mpi_hello() {
  local dir; dir=$(mktemp -d) || return 1
  cat >"$dir/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("hello from %d ranks, sum %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
EOF
  local why=""
  if ! "$MPICC_CMD" -o "$dir/hello" "$dir/hello.c" >"$dir/cc.log" 2>&1; then
    why="$MPICC_CMD cannot compile an MPI program: $(head -c 300 "$dir/cc.log")"
  elif ! OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe \
      timeout 60 "$MPIRUN_CMD" -n 2 "$dir/hello" >"$dir/run.log" 2>&1 </dev/null; then
    why="$MPIRUN_CMD -n 2 failed: $(grep -v '^\s*$' "$dir/run.log" | head -n 3 | tr '\n' ' ')"
  elif ! grep -q "hello from 2 ranks, sum 1" "$dir/run.log"; then
    why="$MPIRUN_CMD -n 2 ran, but not as one 2-rank job: $(head -c 200 "$dir/run.log")"
  fi
  rm -rf "$dir"
  [ -z "$why" ] || { echo "$why"; return 1; }
}
mpi_name() { "$MPIRUN_CMD" --version 2>&1 | grep -v '^\s*$' | head -n 1; }

if command -v "$MPICC_CMD" >/dev/null && command -v "$MPIRUN_CMD" >/dev/null; then
  if why=$(mpi_hello); then
    say mpi "found: $(mpi_name) ($MPICC_CMD, $MPIRUN_CMD: 2-rank hello ran)"
  else
    fail mpi "BROKEN: $why. Fix the MPI install (Open MPI: apt-get install --reinstall openmpi-bin libopenmpi-dev)"
  fi
elif [ -n "${MPICC:-}${MPIRUN:-}" ]; then
  fail mpi "MISSING: MPICC=$MPICC_CMD / MPIRUN=$MPIRUN_CMD not found (MPICH: $(apt_hint mpich libmpich-dev))"
else
  apt_install openmpi-bin libopenmpi-dev; rc=$?
  if [ $rc = 0 ] && why=$(mpi_hello); then
    say mpi "installed: $(mpi_name) (openmpi-bin libopenmpi-dev; 2-rank hello ran)"
  elif [ $rc = 0 ]; then
    fail mpi "BROKEN after install: $why"
  elif [ $rc = 2 ]; then
    fail mpi "MISSING: no mpicc/mpirun; $(apt_hint openmpi-bin libopenmpi-dev)"
  else
    fail mpi "MISSING: apt-get install openmpi-bin libopenmpi-dev failed (log: $LOGS/apt.log)"
  fi
fi

# --- libclang: the C library, found by bindgen's rules and loaded ----------------------
if where=$(python3 scripts/find_libclang.py); then
  say libclang "found: $where (loads; bindgen will use it)"
else
  apt_install libclang-dev; rc=$?
  if [ $rc = 0 ] && where=$(python3 scripts/find_libclang.py); then
    say libclang "installed: libclang-dev ($where loads)"
  elif [ $rc = 2 ]; then
    fail libclang "MISSING: $where; $(apt_hint libclang-dev)"
  else
    fail libclang "MISSING: $where; apt-get install libclang-dev did not fix it (log: $LOGS/apt.log)"
  fi
fi

# --- libffi: linked from the system (its bundled build breaks in paths with spaces) -----
ffi_ok() { echo 'int main(void){return 0;}' | cc -x c - -lffi -o "$LOGS/ffi-check" 2>/dev/null; }
if ffi_ok; then
  say libffi "found: the system libffi links (cc -lffi)"
else
  apt_install libffi-dev pkg-config; rc=$?
  if [ $rc = 0 ] && ffi_ok; then
    say libffi "installed: libffi-dev"
  else
    fail libffi "MISSING: cc -lffi fails; $(apt_hint libffi-dev)"
  fi
fi

# --- libtorch: the version file, then the library loaded ---------------------------------
# Prints what it is (CPU or CUDA build) and returns 0 when lib/libtorch_cpu.so loads.
torch_check() {
  local dir=$1 version
  version=$(cat "$dir/build-version" 2>/dev/null | tr -d '[:space:]')
  if [ ! -d "$dir/include/torch" ] || [ ! -f "$dir/lib/libtorch_cpu.so" ]; then
    echo "$dir has no include/torch + lib/libtorch_cpu.so"; return 1
  fi
  if [ -n "$version" ] && [ "${version%%+*}" != "$TORCH_VERSION" ]; then
    echo "$dir is libtorch $version; tch 0.24 needs $TORCH_VERSION"; return 1
  fi
  local why
  if ! why=$(python3 -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1])' "$dir/lib/libtorch_cpu.so" 2>&1); then
    echo "$dir/lib/libtorch_cpu.so does not load: $(echo "$why" | tail -n 1)"; return 1
  fi
  echo "${version:-version file missing, assumed $TORCH_VERSION}, loads; $(torch_cuda_use "$dir")"
}
# Whether binaries built against this LibTorch can use a GPU here, and why not.
torch_cuda_use() {
  local dir=$1 why gpus
  if [ ! -f "$dir/lib/libtorch_cuda.so" ]; then
    echo "CPU only: --device cuda cannot work with this build (for GPUs: LIBTORCH=<a CUDA LibTorch $TORCH_VERSION>, or make gpu-kit for a GPU machine)"
    return
  fi
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if ! why=$(python3 -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1])' "$dir/lib/libtorch_cuda.so" 2>&1); then
    echo "CUDA build (binaries keep libtorch_cuda.so), but it does not load here: $(echo "$why" | tail -n 1 | cut -c1-120); GPUs: ${gpus:-0}"
  else
    echo "CUDA build: libtorch_cuda.so loads, binaries keep it linked; GPUs: ${gpus:-0}"
  fi
}
if [ -n "${LIBTORCH:-}" ]; then
  if what=$(torch_check "$LIBTORCH"); then
    say libtorch "found: LIBTORCH=$LIBTORCH ($what)"
  else
    fail libtorch "BROKEN: $what; unset LIBTORCH to use ./libtorch"
  fi
elif what=$(torch_check libtorch) && [ -f libtorch/build-version ]; then
  say libtorch "found: ./libtorch ($what)"
else
  if [ $CHECK_ONLY = 0 ] && python3 scripts/fetch_libtorch.py "$TORCH_VERSION" libtorch .cache/wheels && what=$(torch_check libtorch); then
    say libtorch "installed: ./libtorch ($what; from the PyPI wheel)"
  else
    fail libtorch "MISSING: could not assemble a working ./libtorch from PyPI (see above; $what); or set LIBTORCH=/path/to/libtorch-$TORCH_VERSION"
  fi
fi

# --- mdbook ------------------------------------------------------------------------------
if command -v mdbook >/dev/null && mdbook --version 2>/dev/null | grep -q "v$MDBOOK_VERSION"; then
  say mdbook "found: $(mdbook --version)"
elif [ $CHECK_ONLY = 0 ] && cargo install --locked --quiet mdbook --version "$MDBOOK_VERSION" >"$LOGS/mdbook.log" 2>&1 \
    && mdbook --version 2>/dev/null | grep -q "v$MDBOOK_VERSION"; then
  say mdbook "installed: $(mdbook --version) (cargo install --locked)"
else
  fail mdbook "MISSING: cargo install --locked mdbook --version $MDBOOK_VERSION failed, or ${CARGO_HOME:-~/.cargo}/bin is not on PATH (log: $LOGS/mdbook.log)"
fi

STEP=$T0
if [ $failed = 0 ]; then
  say ready "every component works; cargo build/test/run need no environment variables (.cargo/config.toml)"
else
  say FAILED "fix the lines above, then run make setup again"
fi
exit $failed
