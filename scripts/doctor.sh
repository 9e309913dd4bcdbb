#!/usr/bin/env bash
# make doctor: the pre-workshop check a participant runs at home (under 2 minutes once the
# chapter 0 crates are built; the first run builds them). Installs nothing. One line per
# check, "ok" or "PROBLEM" with the fix, then ONE line to paste into the class chat:
#
#   doctor: OK | 8 cores | 41 GB free | Open MPI 4.1.4 | libtorch 2.11.0 CPU | rustc 1.95.0 | mdbook 0.5.4 | 2-rank hello ok | check 00 ok | 52 s
#
# Checks: the components of make setup (scripts/setup.sh --check: tools, MPI with a real
# 2-rank C hello, libclang, libffi, LibTorch loaded, mdbook), chapter 0's `hello` lab
# started by the toolkit at 2 ranks with a deadline, one exercise check (make check
# CH=00), the cores and the free disk.
set -u
cd "$(dirname "$0")/.."
T0=$SECONDS
problems=()
line() { printf 'doctor: %-9s %s\n' "$1" "$2"; }
ok() { line "$1" "ok: $2"; }
problem() { line "$1" "PROBLEM: $2"; problems+=("$1"); }
# Deadlines: the first run compiles chapter 0 (a few minutes on 2 cores), later ones do not.
BUILD_LIMIT=900

# --- the components, as make setup checks them (nothing installed) ------------------------
setup_out=$(bash scripts/setup.sh --check 2>&1)
while read -r _ name rest; do
  case "$name" in ready | FAILED) continue ;; esac
  rest=${rest% (*s)}
  case "$rest" in
    found:*) ok "$name" "${rest#found: }" ;;
    *) problem "$name" "$rest (then: make setup)" ;;
  esac
done < <(grep '^setup: ' <<<"$setup_out")

# --- versions -------------------------------------------------------------------------------
mpi_version=""
if command -v "${MPIRUN:-mpirun}" >/dev/null; then
  mpi_version=$("${MPIRUN:-mpirun}" --version 2>&1 | head -n 1 | sed 's/^mpirun (\(.*\)) \(.*\)$/\1 \2/; s/^HYDRA.*/MPICH/')
fi
torch_dir=${LIBTORCH:-libtorch}
torch_version="libtorch $(tr -d '[:space:]' <"$torch_dir/build-version" 2>/dev/null || echo '?')"
if [ -f "$torch_dir/lib/libtorch_cuda.so" ]; then torch_version+=" CUDA"; else torch_version+=" CPU"; fi
rustc_version=$(rustc --version 2>/dev/null | awk '{print "rustc " $2}')
mdbook_version=$(PATH=${CARGO_HOME:-$HOME/.cargo}/bin:$PATH mdbook --version 2>/dev/null | sed 's/^mdbook v/mdbook /')
[ -n "$rustc_version" ] || problem rustc "no rustc on PATH; install Rust with rustup (https://rustup.rs)"

# --- cores and disk -------------------------------------------------------------------------
cores=$(nproc)
if [ "$cores" -ge 2 ]; then ok cores "$cores (labs run 4 ranks; fewer cores only slow them)"
else problem cores "1 core: the 4-rank labs will crawl; use a machine with 2 or more"; fi
free_gb=$(df -Pk . | awk 'NR == 2 { printf "%d", $4 / 1048576 }')
if [ "$free_gb" -ge 15 ]; then ok disk "$free_gb GB free here"
else problem disk "$free_gb GB free here; the builds need about 15 GB: free some space"; fi

# --- a real 2-rank run of chapter 0's hello lab, with a deadline ----------------------------
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
t=$SECONDS
if ! timeout "$BUILD_LIMIT" cargo build -q -p ch00-toolkit --bin hello >"$log/build" 2>&1; then
  problem hello "chapter 0 does not build ($(tail -n 3 "$log/build" | tr '\n' ' ')); run make setup"
  hello="2-rank hello FAILED"
elif NP=2 timeout 120 cargo run -q -p ch00-toolkit --bin hello >"$log/hello" 2>&1 \
    && grep -q "hello: 2 ranks answered" "$log/hello"; then
  ok hello "chapter 0's hello ran at 2 ranks ($((SECONDS - t)) s)"
  hello="2-rank hello ok"
else
  problem hello "NP=2 make run CH=00 failed or took over 120 s: $(tail -n 2 "$log/hello" | tr '\n' ' ')"
  hello="2-rank hello FAILED"
fi

# --- one exercise check ---------------------------------------------------------------------
t=$SECONDS
# Its own output folder: the learner's target/workbook/progress.json stays as it was.
WORKBOOK_OUT="$log/out" timeout "$BUILD_LIMIT" cargo run -q -p course --bin workbook -- check 00 >"$log/check" 2>&1
rc=$?
if grep -q "FAILING" "$log/check"; then
  problem check "make check CH=00 reports failing exercises; on untouched code that means MPI or the harness is broken (see above); on your own code, fix it or git stash it"
  check="check 00 FAILING"
elif [ $rc -le 1 ] && grep -q "exercises passed" "$log/check"; then
  ok check "make check CH=00 ran: $(grep 'exercises passed' "$log/check" | tr -d '.') ($((SECONDS - t)) s)"
  check="check 00 ok"
else
  problem check "make check CH=00 failed (exit $rc): $(tail -n 3 "$log/check" | tr '\n' ' ')"
  check="check 00 FAILED"
fi

# --- the line for the class chat ------------------------------------------------------------
if [ ${#problems[@]} = 0 ]; then verdict=OK; else verdict="${#problems[@]} PROBLEM(S): ${problems[*]}"; fi
echo
echo "doctor: $verdict | $cores cores | $free_gb GB free | ${mpi_version:-no MPI} | $torch_version | ${rustc_version:-no rustc} | ${mdbook_version:-no mdbook} | $hello | $check | $((SECONDS - T0)) s"
[ ${#problems[@]} = 0 ]
