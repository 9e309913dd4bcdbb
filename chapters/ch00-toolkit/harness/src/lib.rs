//! The toolkit: what every chapter's labs and checks stand on (chapter 0 teaches it).
//!
//! It lives in a crate of its own, apart from chapter 0's exercises, so that a learner's
//! unfinished code never stops the checker or another chapter from building.
//!
//! - [`init`]: the first line of every lab; re-launches under mpirun when started alone,
//!   asks for the thread level the program needs ([`init_with`]).
//! - [`job`]: which rank and thread this is; ending every rank at once from any thread.
//! - [`launch`]: run a program under a launcher with a deadline; [`launcher`]: which one
//!   `$MPIRUN` is (Open MPI, MPICH/Hydra, Slurm srun) and its flags; [`outcome`]: each
//!   rank's output; [`rank_exits`]: which rank ended first; [`session`]: ending every
//!   rank for sure; [`sharing`]: a lab's ranks give the cores back on a machine another
//!   job keeps busy; [`cores`]: the jobs of one test binary share the machine's cores;
//!   each launch is a row of `target/workbook/launches.csv` (`workbook_settings::launches`).
//! - [`spmd`]: fail fast: a panic on one rank aborts the whole job with `rank R: ...`.
//! - [`lockstep`]: proptest on every rank at once, verdicts agreed by an allreduce.
//! - [`watchdog`] + [`intercept`]: a hung case is named with the MPI call each thread of
//!   each rank is in; [`flight`]: each rank's last collectives, numbered per communicator;
//!   [`diagnose`] reads the reports of all ranks and says what it sees (the first
//!   collective the ranks disagree on, among others).
//! - [`faults`]: `WORKBOOK_FAULT` plants a learner's mistake (a skipped broadcast, a
//!   wrong tag) in an unchanged program, so a check is tried on the very test it guards;
//!   [`slow_links`]: `WORKBOOK_SLOW_LINK` makes the messages between two ranks late and
//!   slow, so a slow link can be reproduced on a laptop; [`stragglers`]:
//!   `WORKBOOK_STRAGGLER` makes one rank late to every collective (a slow rank);
//!   [`arrivals`]: when each rank entered each collective, gathered as a matrix;
//!   [`idle`]: a barrier that sleeps while it waits, for programs that time two ranks
//!   while the others wait.
//! - [`errors`], [`panics`]: an MPI error or a panic is told in the learner's terms: rank,
//!   call, meaning, the learner's line, the case and the seed; [`library_panics`]: the
//!   classic cause of a known rsmpi or LibTorch panic.
//! - [`trace`]: the messages a thread really sent and received; [`diagram`]: those
//!   messages drawn as an SVG, one arrow per message, one column per round; [`tally`]:
//!   the collectives a thread called, with their bytes.
//! - [`gate`]: a lab checks that the exercises it shows are done, and says which is not.
//! - `workbook_settings::settings` (chapters/ch00-toolkit/settings): every `WORKBOOK_*`
//!   setting with its default.
//! - [`testing`]: MPI tests written as plain `#[test]` functions ([`learner_view`]: what a
//!   learner sees of a failed job); [`declare`]: the
//!   [`mpi_test!`] macro that declares one (name, rank counts, element types) at once;
//!   [`sizes`]: every rank count of a test in one launch, each on a communicator of its
//!   own; [`planted`]: a fault planted in a test, its report asserted.
//! - [`elem`], [`ops`]: the element types (i32, i64, f32, f64) and the reduction
//!   operations every chapter uses, with MPI's operation for each.
//! - [`split`]: blocks of `0..n` over `parts` owners (exercise 0.1's blocks, found another
//!   way: the answer itself is only in `solutions/`).
//! - [`compare`], [`report`], [`plot`], [`xml`], [`bench`](mod@bench): checking results, timing
//!   over ranks, tables, CSV and SVG files under `target/workbook/`, benchmarks over rank
//!   counts.
//!
//! The course tooling (`make check`, `make verify`, the course plan, schedules, handouts:
//! the `workbook` binary) is a crate of its own, `course` (chapters/ch00-toolkit/course),
//! with no MPI in it.

pub mod arrivals;
pub mod bench;
pub mod compare;
pub mod cores;
pub mod declare;
pub mod desync;
pub mod diagnose;
pub mod diagram;
pub mod elem;
pub mod errors;
pub mod faults;
pub mod flight;
pub mod gate;
pub mod idle;
pub mod intercept;
pub mod job;
pub mod launch;
pub mod launcher;
pub mod launcher_output;
pub mod learner_view;
pub mod library_panics;
pub mod libtorch_errors;
pub mod lockstep;
pub mod ops;
pub mod outcome;
pub mod panics;
pub mod perfetto;
pub mod planted;
pub mod plot;
pub mod rank_exits;
pub mod report;
mod rule_setting;
pub mod session;
pub mod sharing;
pub mod sizes;
pub mod slow_links;
pub mod split;
pub mod spmd;
pub mod stragglers;
pub mod tally;
pub mod testing;
pub mod trace;
pub mod watchdog;
mod watchdog_report;
#[macro_use]
pub mod wrappers;
pub mod wrappers_rma_io;
pub mod xml;

pub use spmd::{init, init_with};
