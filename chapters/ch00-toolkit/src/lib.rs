//! Chapter 0: the SPMD model, and the toolkit every chapter's checks stand on.
//!
//! - [`init`]: the first line of every lab; re-launches under mpirun when started alone.
//! - [`launch`]: run a program under mpirun/mpiexec (Open MPI or MPICH) with a deadline.
//! - [`spmd`]: fail fast: a panic on one rank aborts the whole job with `rank R: ...`.
//! - [`lockstep`]: proptest on every rank at once, verdicts agreed by an allreduce.
//! - [`watchdog`] + [`intercept`]: a hung case is named with the MPI call each rank is in.
//! - [`testing`]: MPI tests written as plain `#[test]` functions.
//! - [`compare`], [`report`], [`plot`]: checking results, timing over ranks, tables, CSV
//!   and SVG files under `target/workbook/`.
//! - [`warmup`]: the chapter's exercises (stubs; `--features solution` for the answers).

pub mod check;
pub mod compare;
pub mod intercept;
pub mod launch;
pub mod lockstep;
pub mod plot;
pub mod report;
pub mod spmd;
pub mod testing;
pub mod watchdog;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch00-toolkit/warmup.rs"
)]
pub mod warmup;

pub use spmd::init;

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
