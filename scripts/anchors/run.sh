#!/usr/bin/env bash
# `make anchors`: our trainers next to PyTorch on the same work (scripts/anchors/anchors.py).
#
# Run: `make anchors` (or `bash scripts/anchors/run.sh [--rounds N] [--no-write]
# [--only CH]`). Makes a venv under .cache/anchors-venv with torch 2.11.0 and numpy from
# PyPI (the default wheel runs on the CPU; about 3 GB with its CUDA libraries; `rm -rf
# .cache/anchors-venv` frees it), builds the release binaries `train` (ch06), `pipeline`
# (ch07), `zero` (ch08), `tp_bench` and `gpt` (ch09), `moe_bench` (ch11), `attention_bench` (ch13) and `mixed` (ch14), then runs the
# comparison. Where the venv or
# PyPI cannot be had, it says so in one line and exits 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.cache/anchors-venv
have_torch() { "$venv/bin/python" -c 'import numpy, torch; assert torch.__version__.startswith("2.11.0")' 2>/dev/null; }
if ! have_torch; then
  mkdir -p .cache
  python3 -m venv "$venv" 2>/dev/null \
    || { echo "make anchors: skipped: python3 -m venv failed (install python3-venv)"; exit 0; }
  echo "make anchors: installing torch==2.11.0 and numpy into $venv (from PyPI, ~3 GB)"
  "$venv/bin/pip" install -q torch==2.11.0 numpy 2> .cache/anchors-pip.log \
    || { echo "make anchors: skipped: pip could not install torch==2.11.0 from PyPI ($(tail -n 1 .cache/anchors-pip.log))"; exit 0; }
fi
# `--only 11`, `--only 13` and `--only 14` need their chapter's binary only; every other run needs
# chapters 06 to 09's.
only=""; prev=""; for a in "$@"; do [ "$prev" = --only ] && only=$a; prev=$a; done
[ "$only" = 11 ] || [ "$only" = 13 ] || [ "$only" = 14 ] || cargo build -q --release -p ch06-data-parallel -p ch07-pipeline -p ch08-sharded \
  -p ch09-tensor-parallel --features solution --bin train --bin pipeline --bin zero --bin tp_bench \
  --bin gpt
[ -n "$only" ] && [ "$only" != 11 ] || cargo build -q --release -p ch11-experts --features solution --bin moe_bench
[ -n "$only" ] && [ "$only" != 13 ] || cargo build -q --release -p ch13-context-parallel --features solution --bin attention_bench
[ -n "$only" ] && [ "$only" != 14 ] || cargo build -q --release -p ch14-precision --features solution --bin mixed
exec "$venv/bin/python" scripts/anchors/anchors.py "$@"
