#!/usr/bin/env bash
# make setup: install or find everything the workbook needs. Idempotent: a second run
# only checks. Prints one line per component: found / installed / MISSING + how to fix.
#
#   Open MPI (openmpi-bin libopenmpi-dev)   or MPICH via MPICC=mpicc.mpich MPIRUN=mpirun.mpich
#   libclang-dev                            rsmpi generates its MPI bindings with bindgen
#   libtorch 2.11.0 (CPU)                   unpacked from the PyPI wheel into ./libtorch
#                                           (LIBTORCH=/path uses yours, e.g. a CUDA build)
#   mdbook 0.5.4                            cargo install --locked
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TORCH_VERSION=2.11.0
MDBOOK_VERSION=0.5.4
APT_PACKAGES=()
failed=0

say() { printf 'setup: %-10s %s\n' "$1" "$2"; }

# apt-get as root, through sudo, or not at all (then print the command).
apt_install() {
  local cmd="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $*"
  if [ "$(id -u)" = 0 ]; then
    bash -c "$cmd" >/tmp/workbook-apt.log 2>&1
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo bash -c "$cmd" >/tmp/workbook-apt.log 2>&1
  else
    return 2
  fi
}

# --- C toolchain ------------------------------------------------------------------------
for tool in cc make python3; do
  command -v $tool >/dev/null || { say "$tool" "MISSING: install it (apt-get install gcc make python3)"; failed=1; }
done

# --- MPI ---------------------------------------------------------------------------------
MPICC_CMD=${MPICC:-mpicc}
MPIRUN_CMD=${MPIRUN:-mpirun}
if command -v "$MPICC_CMD" >/dev/null && command -v "$MPIRUN_CMD" >/dev/null; then
  say mpi "found: $("$MPIRUN_CMD" --version 2>&1 | head -n 1) ($MPICC_CMD, $MPIRUN_CMD)"
elif [ -n "${MPICC:-}${MPIRUN:-}" ]; then
  say mpi "MISSING: MPICC=$MPICC_CMD / MPIRUN=$MPIRUN_CMD not found (for MPICH: apt-get install mpich libmpich-dev)"
  failed=1
else
  APT_PACKAGES+=(openmpi-bin libopenmpi-dev)
fi

# --- libclang (bindgen) ------------------------------------------------------------------
if ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1; then
  say libclang "found: $(ls /usr/lib/llvm-*/lib/libclang*.so* 2>/dev/null | head -n 1)"
else
  APT_PACKAGES+=(libclang-dev)
fi

if [ ${#APT_PACKAGES[@]} -gt 0 ]; then
  if apt_install "${APT_PACKAGES[@]}"; then
    say apt "installed: ${APT_PACKAGES[*]}"
  else
    say apt "MISSING: ${APT_PACKAGES[*]}; run: sudo apt-get update && sudo apt-get install -y ${APT_PACKAGES[*]}"
    failed=1
  fi
fi

# --- libtorch ----------------------------------------------------------------------------
torch_ok() { [ -f "$1/lib/libtorch_cpu.so" ] && [ -d "$1/include/torch" ]; }
if [ -n "${LIBTORCH:-}" ]; then
  if torch_ok "$LIBTORCH"; then
    say libtorch "found: LIBTORCH=$LIBTORCH ($(cat "$LIBTORCH/build-version" 2>/dev/null || echo 'version unknown; must be 2.11'))"
  else
    say libtorch "MISSING: LIBTORCH=$LIBTORCH has no lib/libtorch_cpu.so + include/torch; unset it to use ./libtorch"
    failed=1
  fi
elif torch_ok libtorch && [ "$(cat libtorch/build-version 2>/dev/null)" = "$TORCH_VERSION" ]; then
  say libtorch "found: ./libtorch $TORCH_VERSION (CPU)"
else
  if python3 scripts/fetch_libtorch.py "$TORCH_VERSION" libtorch .cache/wheels; then
    say libtorch "installed: ./libtorch $TORCH_VERSION (CPU, from the PyPI wheel)"
  else
    say libtorch "MISSING: could not assemble libtorch from PyPI (see above); or set LIBTORCH=/path/to/libtorch-2.11"
    failed=1
  fi
fi

# --- mdbook ------------------------------------------------------------------------------
if command -v mdbook >/dev/null && mdbook --version | grep -q "v$MDBOOK_VERSION"; then
  say mdbook "found: $(mdbook --version)"
elif cargo install --locked --quiet mdbook --version "$MDBOOK_VERSION" >/tmp/workbook-mdbook.log 2>&1; then
  say mdbook "installed: $(mdbook --version 2>/dev/null || echo "mdbook $MDBOOK_VERSION in ~/.cargo/bin")"
else
  say mdbook "MISSING: cargo install --locked mdbook --version $MDBOOK_VERSION failed (log: /tmp/workbook-mdbook.log)"
  failed=1
fi

if [ $failed = 0 ]; then
  say ready "cargo build/test/run need no environment variables (see .cargo/config.toml)"
fi
exit $failed
