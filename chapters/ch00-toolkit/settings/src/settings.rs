//! Every environment variable the course reads, in one place, with its one default: the
//! `WORKBOOK_*` settings, the launcher's, and the few a lab or a test reads. Variables set
//! by MPI launchers, Slurm, cargo or the OS are not listed: the test
//! `tests/settings_complete.rs` holds them, each with the reason.
//!
//! Set them in the environment of `make`, `cargo test` or a lab, e.g.
//! `WORKBOOK_CASE_TIMEOUT=60 make check CH=03`. The book's harness page shows this table.

use std::time::Duration;

/// One setting: its variable, its default (as text) and what it does.
pub struct Setting {
    pub name: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
}

// ANCHOR: settings
/// The settings the toolkit reads.
pub const SETTINGS: &[Setting] = &[
    Setting {
        name: "NP",
        default: "4",
        meaning: "ranks for a lab started without mpirun (make run, make tour)",
    },
    Setting {
        name: "WORKBOOK_CASE_TIMEOUT",
        default: "20",
        meaning: "seconds one property case, or one blocking MPI call of any test, may take \
                  before the watchdog calls it a deadlock",
    },
    Setting {
        name: "WORKBOOK_JOB_TIMEOUT",
        default: "300",
        meaning: "seconds a whole mpirun job may take before every process of it is killed \
                  (a test body still running 10 s before it is named by the watchdog); a \
                  launch that runs several rank counts gets this much per count",
    },
    Setting {
        name: "WORKBOOK_SIZES",
        default: "unset",
        meaning: "set by the harness, not by you: the rank counts a test's ranks run in one \
                  launch, each on a communicator of its own (`test=1,2,4`)",
    },
    Setting {
        name: "WORKBOOK_FAULT",
        default: "unset",
        meaning: "plants a mistake in an unchanged program: MPI_Bcast@3:skip (rank 3 skips \
                  every broadcast), MPI_Isend@1:tag+1 (rank 1 sends with the wrong tag)",
    },
    Setting {
        name: "WORKBOOK_SLOW_LINK",
        default: "unset",
        meaning: "slows the point-to-point messages of one link: 2-3:delay=500us,rate=20MB/s \
                  (ranks 2 and 3, both ways), 2>3:delay=2ms (one way); rules separated by ;",
    },
    Setting {
        name: "WORKBOOK_STRAGGLER",
        default: "unset",
        meaning: "makes one rank late to every collective it calls (a slow rank): 3:delay=2ms \
                  (rank 3 waits 2 ms before each); rules separated by ;",
    },
    Setting {
        name: "WORKBOOK_CASES",
        default: "32",
        meaning: "random cases per property (a chapter may ask for fewer or more)",
    },
    Setting {
        name: "WORKBOOK_SEED",
        default: "fresh each run",
        meaning: "the lockstep seed: a failure report prints the one that reproduces it",
    },
    Setting {
        name: "WORKBOOK_RECORD",
        default: "1",
        meaning: "0 switches off the call recorder (the watchdog then cannot name the call)",
    },
    Setting {
        name: "WORKBOOK_BENCH_SMOKE",
        default: "0",
        meaning: "1 runs every benchmark at its smallest, once (make bench-smoke, in CI): it \
                  checks that each runs to its table; the figures then mean nothing",
    },
    Setting {
        name: "WORKBOOK_DATA",
        default: "data/",
        meaning: "the folder holding the shipped datasets (for binaries run elsewhere)",
    },
    Setting {
        name: "WORKBOOK_REQUIRE_GPU",
        default: "0",
        meaning: "1 makes a GPU test fail instead of skipping where no GPU can be used",
    },
    Setting {
        name: "WORKBOOK_OUT",
        default: "target/workbook",
        meaning: "where tables, CSV and SVG files are written",
    },
    Setting {
        name: "WORKBOOK_LEARNER",
        default: "$USER",
        meaning: "your name in target/workbook/progress.json, which make class merges",
    },
    Setting {
        name: "WORKBOOK_SHARED",
        default: "measured",
        meaning: "1: a lab's ranks behave as guests on a machine another job keeps busy \
                  (waiting ranks yield their core, a session per rank); 0: never; unset: \
                  the launcher measures the load before the ranks start",
    },
    Setting {
        name: "WORKBOOK_IN_OWN_SESSION",
        default: "unset",
        meaning: "set by the harness, not by you: this rank was started again in a session \
                  of its own (WORKBOOK_SHARED)",
    },
    Setting {
        name: "MPIRUN",
        default: "mpirun",
        meaning: "the launcher: Open MPI mpirun, MPICH mpiexec (e.g. mpirun.mpich, build with \
                  MPICC=mpicc.mpich too) or Slurm srun, recognised by its --version",
    },
    Setting {
        name: "HOSTFILE",
        default: "unset (this machine)",
        meaning: "a host list for mpirun (--hostfile) or mpiexec (-f): `node1 slots=4` per line",
    },
    Setting {
        name: "MPIRUN_ARGS",
        default: "unset",
        meaning: "extra launcher options, split on spaces (e.g. --mca btl tcp,self or \
                  --gpus-per-task=1)",
    },
    Setting {
        name: "BROKEN",
        default: "unset",
        meaning: "1 makes ch01's deadlock lab first run the broken exchange (every rank sends \
                  2 MiB before receiving), which its watchdog names; same as `-- --broken`",
    },
    Setting {
        name: "THREADS",
        default: "cores / ranks on the node",
        meaning: "threads per rank of ch05's hybrid lab when no --threads N is given",
    },
    Setting {
        name: "CH06_PROGRESS",
        default: "set when stderr is a terminal",
        meaning: "ch06's trainer: rank 0 draws a progress line on stderr",
    },
    Setting {
        name: "CH06_KILL_RANK",
        default: "unset",
        meaning: "a test's hook: with CH06_KILL_AT_STEP, ch06's trainer SIGKILLs this rank",
    },
    Setting {
        name: "CH06_KILL_AT_STEP",
        default: "unset",
        meaning: "a test's hook: the global step at which CH06_KILL_RANK is killed",
    },
    Setting {
        name: "CH07_KILL_RANK",
        default: "unset",
        meaning: "a test's hook: with CH07_KILL_AT_STEP, ch07's trainer SIGKILLs this world \
                  rank",
    },
    Setting {
        name: "CH07_KILL_AT_STEP",
        default: "unset",
        meaning: "a test's hook: the step at which CH07_KILL_RANK is killed",
    },
    Setting {
        name: "CH08_KILL_RANK",
        default: "unset",
        meaning: "a test's hook: with CH08_KILL_AT_STEP, ch08's trainer SIGKILLs this rank \
                  (ch15's supervise removes both after the first failed launch)",
    },
    Setting {
        name: "CH08_KILL_AT_STEP",
        default: "unset",
        meaning: "a test's hook: the step at which CH08_KILL_RANK is killed",
    },
    Setting {
        name: "CH15_SUPERVISE_AS_ZERO",
        default: "unset",
        meaning: "set by `supervise --zero` for its children: the program runs as ch08's \
                  `zero` trainer",
    },
    Setting {
        name: "SEED",
        default: "the clock",
        meaning: "make interrupt-test: picks the interruption points and the delays (printed, \
                  to replay a run)",
    },
    Setting {
        name: "POINTS",
        default: "3",
        meaning: "make interrupt-test: how many interruption points one run tries",
    },
    Setting {
        name: "ONLY",
        default: "unset",
        meaning: "make interrupt-test: these points (names from scripts/interrupt_test.py \
                  --list), not SEED's choice; make check-the-check: the mistakes whose id \
                  holds one of these words (`11.` for chapter 11's); \
                  scripts/check_the_check/labs.py alone: the chapters whose folder holds it",
    },
    Setting {
        name: "WORKBOOK_INTERRUPT_RUN",
        default: "unset",
        meaning: "set by make interrupt-test, not by you: tags every process of the run it \
                  interrupts, to find what is left of it",
    },
];
// ANCHOR_END: settings

/// An unsigned integer from the environment, or `default` when unset.
///
/// Panics with the variable's name when it is set but not a number.
pub fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")),
        Err(_) => default,
    }
}

/// The default of a setting in [`SETTINGS`], as a number.
fn default_of(name: &str) -> u64 {
    let s = SETTINGS.iter().find(|s| s.name == name);
    let text = s.map(|s| s.default).unwrap_or("0");
    text.parse().unwrap_or(0)
}

/// `WORKBOOK_CASE_TIMEOUT`: the per-case deadline of the watchdog.
pub fn case_timeout() -> Duration {
    let name = "WORKBOOK_CASE_TIMEOUT";
    Duration::from_secs(env_u64(name, default_of(name)))
}

/// `WORKBOOK_JOB_TIMEOUT`: the deadline of a whole job.
pub fn job_timeout() -> Duration {
    let name = "WORKBOOK_JOB_TIMEOUT";
    Duration::from_secs(env_u64(name, default_of(name)))
}

/// `WORKBOOK_CASES`: random cases per property.
pub fn cases() -> u32 {
    let name = "WORKBOOK_CASES";
    env_u64(name, default_of(name)) as u32
}

/// `WORKBOOK_RECORD`: whether the call recorder is on.
pub fn record_calls() -> bool {
    env_u64("WORKBOOK_RECORD", 1) != 0
}

/// `WORKBOOK_BENCH_SMOKE`: whether benchmarks run at their smallest, to check they run.
pub fn bench_smoke() -> bool {
    let name = "WORKBOOK_BENCH_SMOKE";
    env_u64(name, default_of(name)) != 0
}

/// `WORKBOOK_SEED`, when set.
pub fn seed() -> Option<u64> {
    std::env::var("WORKBOOK_SEED").ok().map(|s| {
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("WORKBOOK_SEED={s:?} must be an unsigned integer"))
    })
}
