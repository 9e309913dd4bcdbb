# The workbook's user interface. `make help` lists the targets.
#   make tour              setup, then every chapter's labs (with the solutions) under mpirun
#   make test              setup, every test against the solutions, verify, the book
#   make test-times        where the last make test's time went (slowest launches, per package)
#   make test-mpich        every test against the solutions under MPICH (installs it if missing)
#   make doctor            pre-workshop check of this machine; ends in one line for the class chat
#   make check [CH=NN]     your code: exercises passed / failing / not started (all chapters without CH)
#   make run CH=NN [BIN=name] [NP=4] [SOLUTION=1] [ARGS="--flag v"]   one lab under mpirun
#                          (ELASTIC=1: a trainer under chapter 15's supervisor, restarted when a rank dies)
#   make diagnose [NP=4]   the link-timing matrix and the straggler scan, a verdict each (ch10)
#   make verify            every stub fails with its own `ex N.M` message, every solution passes
#   make book | serve      build / serve the book (book/build/index.html)
#   make bench [CH=NN]     the benchmarks (all, or one chapter's); results under target/workbook/
#   make bench-smoke       every benchmark once at its smallest (debug build): checks they run
#   make anchors           ch06-ch09 next to PyTorch (DDP, pipelining, ZeRO, FSDP2, tensor parallel) in one run (venv from PyPI)
#   make gpu-kit           GPU labs + tests built against CUDA LibTorch, packed for a GPU machine
#   make gpu-kit-dry       run the kit's check here, without a GPU (what the GPU machine runs)
#   make cluster-test      a two-node cluster in network namespaces: hello, ch03, ch06, a kill
#   make slurm-test        a one-node Slurm: srun -n 4 runs a lab and tests, sbatch a check
#   make interrupt-test    Ctrl-C, SIGTERM, SIGKILL at points chosen by SEED (POINTS=3): nothing left behind
#   make check-the-check   the learner mistakes of mistakes.toml, injected: does make check name exercise, function, cause?
#                          then every lab on the stubs: it runs or names what to finish (ONLY=11.)
#   make sbatch CH=NN      a chapter's Slurm batch script in target/slurm/ (sbatch it)
# Instructors: make class DIR=folder (merge progress.json files), make teaching (schedules
#   from course.toml), make handout DEST=dir (no solutions), make release CH=NN DEST=dir.
# Overrides: NP (ranks: 4, or a lab's own `ranks`), MPIRUN (mpirun, mpiexec or srun), HOSTFILE,
# MPIRUN_ARGS, MPICC, LIBTORCH; CLUSTER=netns runs `run`, `check`, `bench` on the two-node cluster.

SHELL := /bin/bash
NP ?= 4
export NP
# cargo installs mdbook into $CARGO_HOME/bin (default ~/.cargo/bin); make works even when
# that folder is not on PATH yet.
CARGO_BIN := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
export PATH := $(CARGO_BIN):$(PATH)

TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
# The chapters, their crates, labs and benches: course.toml is the one list ([chapter.crate]);
# `workbook` answers (chapters | dir NN | labs NN | benches NN | ranks NN LAB).
CHAPTERS = $(shell $(WORKBOOK) chapters)
chapter_dir = $(shell $(WORKBOOK) dir $(1) 2>/dev/null)
labs_of = $(shell $(WORKBOOK) labs $(1))
# A lab's own rank count, `ranks = { LAB = N }` in its chapter's [chapter.crate]: `make run`
# uses it when NP is set neither on the command line nor in the environment.
lab_ranks = $(shell $(WORKBOOK) ranks $(1) $(2))
WORKBOOK := cargo run -q -p course --bin workbook --
# CLUSTER=netns: the command runs with the two-node namespace cluster up (root only).
ON_CLUSTER := $(if $(filter netns,$(CLUSTER)),scripts/cluster/netns.sh run,$(if $(CLUSTER),$(error CLUSTER=$(CLUSTER): the only cluster is CLUSTER=netns)))

.PHONY: help setup tour test test-times test-mpich check run diagnose verify book serve bench bench-smoke outputs doctor class teaching handout release gpu-kit gpu-kit-dry anchors
help:
	@# The header comment of this file, from its second line to the first blank line.
	@sed -n '2,/^$$/p' Makefile | sed -n 's/^# \{0,1\}//p'

setup:
	@bash scripts/setup.sh

tour: setup
	@for nn in $(CHAPTERS); do \
	  dir=$$($(WORKBOOK) dir $$nn); \
	  for lab in $$($(WORKBOOK) labs $$nn); do \
	    echo; echo "=== tour: $$(basename $$dir): $$lab (NP=$(NP)) ==="; \
	    cargo run -q --release -p $$(basename $$dir) --features solution --bin $$lab || exit 1; \
	  done; \
	done
	@echo; echo "tour: every lab ran. Next: read book/build/index.html (make book), then make check CH=00."

# make test builds everything once: without incremental compilation, which only pays back
# when the same crate is rebuilt after a small edit (your `make check`), and takes 2.2 GB.
test test-mpich: export CARGO_INCREMENTAL := 0
test: setup
	@rm -f $(TARGET_DIR)/workbook/launches.csv
	cargo test --workspace --features solution --timings
	$(WORKBOOK) verify --stubs-only
	mdbook build book
	@$(WORKBOOK) test-times $(TARGET_DIR) | tail -n 1
	@echo "make test: all tests passed, every stub fails loudly, the book builds (make test-times: where the time went)"

# Where the time of the last `make test` went: the 20 slowest mpirun launches, launches and
# build seconds per package (target/workbook/launches.csv, a row per launch, and cargo's
# --timings report).
test-times:
	@$(WORKBOOK) test-times $(TARGET_DIR)

# The tests under MPICH, in a target folder of their own (rsmpi's build script does not
# rerun when the MPI changes). MPICH is installed when missing: as root, or through sudo.
# What runs: the harness and the trainer kit, every test (no doc tests) of the chapters
# that course.toml gives no `mpich_tests` (00-05 and 10: the MPI calls themselves, point to
# point, collectives, threads, timing), and of the others the tests it names: their
# planted mistakes (the harness's messages) and the exercise that brings a call of its own
# (split communicators, MPI_Alltoallv...). Their trainers' long runs make the same calls
# and take two to three times as long as under Open MPI (MPICH spins on oversubscribed
# cores; chapter 12's tests took 1.8 to 3.5 times), so they run under Open MPI only.
# The named tests run in one build: a name runs in each of those chapters that has it.
MPICH_INSTALL := apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mpich libmpich-dev
test-mpich: setup
	@if ! command -v mpicc.mpich >/dev/null || ! command -v mpirun.mpich >/dev/null; then \
	  echo "make test-mpich: installing MPICH (mpich libmpich-dev)"; \
	  if [ "$$(id -u)" = 0 ]; then bash -c "$(MPICH_INSTALL)" || exit 1; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo bash -c "$(MPICH_INSTALL)" || exit 1; \
	  else echo "make test-mpich: MPICH is missing; run: sudo apt-get update && sudo apt-get install -y mpich libmpich-dev"; exit 2; fi; \
	fi
	@# The dependencies that do not link MPI (LibTorch's bindings above all) are copied from
	@# the Open MPI build when there is one: scripts/seed_target.py.
	@python3 scripts/seed_target.py "$(TARGET_DIR)/debug" "$(TARGET_DIR)/mpich/debug"
	@export MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR="$(TARGET_DIR)/mpich"; \
	whole="toolkit trainer-kit workbook-toolchain" named= modules= targets=; \
	for nn in $(CHAPTERS); do \
	  pkg=$$($(WORKBOOK) package $$nn) && dir=$$($(WORKBOOK) dir $$nn) && these=$$($(WORKBOOK) mpich-tests $$nn) || exit 2; \
	  if [ "$$these" = all ]; then whole="$$whole $$pkg"; continue; fi; \
	  named="$$named $$pkg"; \
	  for t in $$these; do \
	    if [ -f "$$dir/tests/$$t.rs" ]; then modules="$$modules $$t::"; else targets="$$targets $$t"; fi; \
	  done; \
	done; \
	modules=$$(printf '%s\n' $$modules | sort -u); targets=$$(printf '%s\n' $$targets | sort -u); \
	echo "make test-mpich: every test (no doc tests) of:$$whole"; \
	cargo test --features solution $$(printf -- '-p %s ' $$whole) --tests || exit 1; \
	echo "make test-mpich: the modules" $$modules "of each one's tests/main.rs, and the tests" $$targets "of:$$named"; \
	cargo test --features solution $$(printf -- '-p %s ' $$named) --test main -- $$modules || exit 1; \
	cargo test --features solution $$(printf -- '-p %s ' $$named) $$(printf -- '--test %s ' $$targets) || exit 1; \
	echo "make test-mpich: chapter 3's tuner at its smallest: MPICH runs with the selection file it writes"; \
	out="$(TARGET_DIR)/mpich/bench-smoke"; case "$$out" in /*) ;; *) out="$$PWD/$$out" ;; esac; mkdir -p "$$out"; \
	WORKBOOK_BENCH_SMOKE=1 WORKBOOK_OUT="$$out" cargo run -q -p ch03-ring-allreduce --features solution --bin tune > "$$out/tune.log" 2>&1 \
	  || { cat "$$out/tune.log"; echo "make test-mpich: chapter 3's tuner FAILED under MPICH (its output is above)"; exit 1; }
	@echo "make test-mpich: all tests passed under MPICH"

check:
	@test -z "$(CH)" || test -n "$(call chapter_dir,$(CH))" || { echo "make check: no chapter $(CH) (try CH=00)"; exit 2; }
	@# The table is the result: a failing exercise is not an error of make (no "*** Error"
	@# line); `cargo run -p course --bin workbook -- check NN` exits 1 while any fails.
	@# Without CH: every chapter's table, then one summary line per chapter. Each run
	@# writes target/workbook/progress.json (make class merges a folder of them).
	@$(ON_CLUSTER) $(WORKBOOK) check $(CH) || true

run:
	@test -n "$(CH)" || { echo "make run: which chapter? e.g. make run CH=00"; exit 2; }
	@test -n "$(call chapter_dir,$(CH))" || { echo "make run: no chapter $(CH) (try CH=00)"; exit 2; }
	$(eval LAB := $(or $(BIN),$(firstword $(call labs_of,$(CH)))))
	$(eval LAB_NP := $(if $(filter file,$(origin NP)),$(call lab_ranks,$(CH),$(LAB))))
	@$(if $(LAB_NP),echo "make run: NP=$(LAB_NP) (the $(LAB) lab's own rank count in course.toml; NP=N overrides it)")
ifeq ($(ELASTIC),)
	$(if $(LAB_NP),NP=$(LAB_NP) )$(ON_CLUSTER) cargo run -q --release -p $(notdir $(call chapter_dir,$(CH))) \
	  $(if $(SOLUTION),--features solution) \
	  --bin $(LAB) $(if $(ARGS),-- $(ARGS))
else
	@# ELASTIC=1: the lab under chapter 15's supervisor, relaunched on the ranks still there
	@# from its --checkpoint when a rank dies (ex 15.3), then checked (--verify).
	@cargo build -q --release -p ch15-failures $(if $(SOLUTION),--features solution) --bin supervise
	@cargo build -q --release -p $(notdir $(call chapter_dir,$(CH))) $(if $(SOLUTION),--features solution) --bin $(LAB)
	$(if $(LAB_NP),NP=$(LAB_NP) )$(ON_CLUSTER) $(TARGET_DIR)/release/supervise --verify -- $(TARGET_DIR)/release/$(LAB) $(ARGS)
endif

# Chapter 10's diagnosis on whatever the ranks run on (this machine, CLUSTER=netns,
# MPIRUN=srun, as `make run`): the link-timing matrix and the straggler scan, each with a
# one-line verdict. Built with --features solution: the verdicts use the answers to ex 10.1
# and 10.4. NP: the default 4 (not a lab's 8): the namespace cluster's 4 slots, 2 per node,
# and 6 links to compare; the matrix times its p(p-1)/2 pairs one at a time.
diagnose:
	$(ON_CLUSTER) cargo run -q --release -p ch10-troubleshooting --features solution --bin diagnose

verify:
	$(WORKBOOK) verify

# A participant's machine before the workshop: one line per check, then one line to paste.
doctor:
	@bash scripts/doctor.sh

# The class table from a folder of learners' target/workbook/progress.json files.
class:
	@test -n "$(DIR)" || { echo "make class: which folder? e.g. make class DIR=progress/ (one progress.json per learner, renamed)"; exit 2; }
	@$(WORKBOOK) class $(DIR)

# The schedules and the chapter map under book/src/teaching/, from course.toml.
# Also captures the pages' samples: make doctor here, make class on the example class.
teaching:
	@$(WORKBOOK) teaching
	@mkdir -p book/src/teaching/output
	{ echo '$$ make doctor'; bash scripts/doctor.sh 2>&1 || true; } > book/src/teaching/output/doctor.txt
	{ echo '$$ MPIRUN=mpirun-missing make doctor   # a machine without MPI'; \
	  MPIRUN=mpirun-missing bash scripts/doctor.sh 2>&1 || true; } > book/src/teaching/output/doctor-problem.txt
	{ echo '$$ make class DIR=book/src/teaching/example-class'; \
	  $(WORKBOOK) class book/src/teaching/example-class 2>&1 | sed 's#$(CURDIR)/##'; } > book/src/teaching/output/class.txt
	@echo "teaching: wrote book/src/teaching/output/doctor.txt and class.txt"

# A copy of the course without solutions/ and planted mistakes; then one chapter's solutions.
handout:
	@test -n "$(DEST)" || { echo "make handout: where? e.g. make handout DEST=../course-handout"; exit 2; }
	@$(WORKBOOK) handout $(DEST)

release:
	@test -n "$(CH)" -a -n "$(DEST)" || { echo "make release: e.g. make release CH=02 DEST=../course-handout"; exit 2; }
	@$(WORKBOOK) release $(CH) $(DEST)

book:
	mdbook build book
	@echo "book: open book/build/index.html"

serve:
	mdbook serve book --open

# Each chapter lists its MPI benchmark drivers in course.toml: [chapter.crate]
# benches = ["..."]; they run under mpirun with NP ranks. Criterion benches: benches/.
bench:
	@for nn in $(or $(CH),$(CHAPTERS)); do \
	  dir=$$($(WORKBOOK) dir $$nn) || exit 2; \
	  for b in $$($(WORKBOOK) benches $$nn); do \
	    echo; echo "=== bench: $$(basename $$dir): $$b (NP=$(NP)) ==="; \
	    $(ON_CLUSTER) cargo run -q --release -p $$(basename $$dir) --features solution --bin $$b || exit 1; \
	  done; \
	done
	$(if $(CH),,cargo bench -p workbook-benches --features solution)
	@echo "bench: results under target/workbook/ (and target/criterion/ for criterion)"

# Every chapter's benchmarks once, at their smallest (WORKBOOK_BENCH_SMOKE=1: each shrinks
# its sizes and repetitions), in the debug build the tests already made: a benchmark that no
# longer runs fails here (CI runs it), not on the day someone measures. Its figures mean
# nothing; they go to $(TARGET_DIR)/bench-smoke/, not to target/workbook/.
bench-smoke:
	@out="$(TARGET_DIR)/bench-smoke"; case "$$out" in /*) ;; *) out="$$PWD/$$out" ;; esac; \
	mkdir -p "$$out"; \
	for nn in $(or $(CH),$(CHAPTERS)); do \
	  dir=$$($(WORKBOOK) dir $$nn) || exit 2; \
	  for b in $$($(WORKBOOK) benches $$nn); do \
	    t0=$$SECONDS; \
	    WORKBOOK_BENCH_SMOKE=1 WORKBOOK_OUT="$$out" \
	      cargo run -q -p $$(basename $$dir) --features solution --bin $$b > "$$out/run.log" 2>&1 \
	      || { cat "$$out/run.log"; echo "bench-smoke: $$(basename $$dir) $$b FAILED (its output is above)"; exit 1; }; \
	    echo "bench-smoke: $$(basename $$dir) $$b ran ($$((SECONDS - t0)) s)"; \
	  done; \
	done

# The anchors: chapter 06's trainer against PyTorch DDP, chapter 07's pipeline against
# torch.distributed.pipelining, chapter 08's ZeRO lab against ZeroRedundancyOptimizer and
# FSDP2, chapter 09's tensor-parallel block against torch.distributed.tensor.parallel,
# chapter 11's MoE layer against the same layer in PyTorch, same models and work,
# alternating, in one run; writes the tables the pages
# include (book/src/ch{06,07,08,09,11}-*/output/anchors.txt). ROUNDS=N
# runs each side N times (default 2); LOAD=1 runs it under a second job that takes every
# core and writes output/anchors-loaded.txt. Makes .cache/anchors-venv from PyPI on first use.
anchors:
	@bash scripts/anchors/run.sh $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(LOAD),--load)

# The GPU kit: scripts/gpu-kit/build.sh builds and packs it (target/gpu-kit/kit); its
# run.sh runs on a GPU machine (`bash kit/run.sh`), or here with --dry.
gpu-kit:
	@bash scripts/gpu-kit/build.sh

gpu-kit-dry: gpu-kit
	@bash target/gpu-kit/kit/run.sh --dry --results target/gpu-kit/dry-results

# Program output shown in the book, captured from real runs (first line: the command):
# the chapter's labs at NP ranks, then its crate's outputs.sh (what else its pages show).
.PHONY: outputs
outputs:
	@test -n "$(CH)" || { echo "make outputs: which chapter? e.g. make outputs CH=01"; exit 2; }
	@dir=$(call chapter_dir,$(CH)); test -n "$$dir" || { echo "make outputs: no chapter $(CH)"; exit 2; }; \
	mkdir -p book/src/$$(basename $$dir)/output; \
	for lab in $(call labs_of,$(CH)); do \
	  out=book/src/$$(basename $$dir)/output/$$lab.txt; \
	  { echo "\$$ make run CH=$(CH) BIN=$$lab NP=$(NP) SOLUTION=1"; \
	    $(MAKE) -s --no-print-directory run CH=$(CH) BIN=$$lab SOLUTION=1 2>&1; } > $$out.tmp \
	    && mv $$out.tmp $$out && echo "outputs: wrote $$out" || { cat $$out.tmp; rm -f $$out.tmp; exit 1; }; \
	done
	@# Then the chapter's own captures (special runs, figures, planted mistakes), if it has any.
	@script=$(call chapter_dir,$(CH))/outputs.sh; if [ -f "$$script" ]; then \
	  NP=$(NP) TARGET_DIR=$(TARGET_DIR) MAKE="$(MAKE)" bash "$$script"; fi

# Beyond one machine (root): a two-node cluster in network namespaces, and a one-node Slurm.
# Each sets up and tears down everything it starts, within its deadline.
.PHONY: cluster-test slurm-test cluster-outputs sbatch interrupt-test check-the-check
cluster-test:
	timeout --foreground 1200 scripts/cluster/test.sh

slurm-test:
	timeout --foreground 1500 scripts/slurm/test.sh

# Interrupts long targets at POINTS points chosen by SEED (printed; ONLY="a b" picks them,
# scripts/interrupt_test.py --list names them all) and checks nothing of them is left.
interrupt-test: setup
	timeout --foreground 1500 scripts/interrupt_test.py

# Injects the mistakes of scripts/check_the_check/mistakes.toml one at a time into solved
# chapters and judges what `make check` shows first (table: target/workbook/check-the-check.md);
# then runs every lab on the stubs (target/workbook/labs-on-stubs.md). On demand or weekly,
# not in `make test`: about a minute per mistake. ONLY=11. picks mistakes by id.
check-the-check: setup
	@timeout --foreground 5400 python3 scripts/check_the_check/run.py; mistakes=$$?; \
	  ONLY= timeout --foreground 2400 python3 scripts/check_the_check/labs.py; labs=$$?; \
	  test $$mistakes = 0 && test $$labs = 0

# A chapter's Slurm batch script: target/slurm/chNN.sbatch (submit with sbatch).
sbatch:
	@test -n "$(CH)" || { echo "make sbatch: which chapter? e.g. make sbatch CH=03"; exit 2; }
	@mkdir -p target/slurm
	@scripts/slurm/sbatch.sh $(CH) > target/slurm/ch$(CH).sbatch
	@echo "sbatch: wrote target/slurm/ch$(CH).sbatch; submit it from here: sbatch target/slurm/ch$(CH).sbatch"
	@echo "sbatch: its output will be target/slurm/workbook-ch$(CH)-JOBID.out"

# The cluster page's figures: book/src/cluster/output/*.txt, each with its command first.
cluster-outputs:
	timeout --foreground 1800 scripts/cluster/outputs.sh
