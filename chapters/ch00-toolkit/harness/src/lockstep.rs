//! Lockstep property tests: proptest on every rank at once.
//!
//! Every rank builds the same proptest runner from the same seed, so every rank generates
//! the same case. Each rank runs the body on it and returns its own verdict; the verdicts
//! are combined by an allreduce (logical AND), so all ranks agree that the case passed or
//! failed, and therefore shrink in lockstep: the same smaller case next, on every rank.
//! Rank 0 reports the minimal failing case and the seed that reproduces it.
//!
//! Many cases run inside one mpirun launch (a launch costs ~0.4 s). Every case is guarded
//! by the [`crate::watchdog`], so a deadlocking case is named, never waited on forever.
//! Shrinking has no time limit: it must not depend on how busy the machine is.

use crate::watchdog;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::cell::Cell;
use std::fmt::Debug;

/// A property to check on every rank of `world`.
pub struct Property<'w> {
    world: &'w SimpleCommunicator,
    name: String,
    cases: u32,
}

/// Start describing a property named `name` (shown in reports).
pub fn property<'w>(world: &'w SimpleCommunicator, name: &str) -> Property<'w> {
    let cases = workbook_settings::settings::cases();
    Property {
        world,
        name: name.to_string(),
        cases,
    }
}

impl Property<'_> {
    /// Number of random cases (default 32, or `WORKBOOK_CASES`).
    pub fn cases(mut self, n: u32) -> Self {
        if std::env::var_os("WORKBOOK_CASES").is_none() {
            self.cases = n;
        }
        self
    }

    /// Runs `body` on every case of `strategy` on every rank. `body` returns this rank's
    /// verdict: `Err(why)` if its own result is wrong. Returns the agreed verdict; on
    /// failure, a report with the minimal case and the seed (the same on every rank).
    pub fn check<S, F>(self, strategy: S, body: F) -> Result<(), String>
    where
        S: Strategy,
        S::Value: Debug,
        F: Fn(&S::Value) -> Result<(), String>,
    {
        let seed = shared_seed(self.world);
        let config = Config {
            cases: self.cases,
            failure_persistence: None,
            max_shrink_iters: 1024,
            max_shrink_time: 0,
            ..Config::default()
        };
        // ANCHOR: lockstep_case
        let size = self.world.size();
        let reproduce = format!(
            "WORKBOOK_SEED={seed} with {}",
            crate::report::rank_count(size as usize)
        );
        watchdog::set_reproduce(Some(reproduce));
        let mut runner = TestRunner::new_with_rng(config, rng_from(seed));
        let case_no = Cell::new(0u32);
        let result = runner.run(&strategy, |value| {
            case_no.set(case_no.get() + 1);
            let label = format!("{} case {}: {}", self.name, case_no.get(), short(&value));
            watchdog::arm(label, watchdog::case_limit());
            let mine = body(&value);
            watchdog::body_done();
            let agreed = agree(self.world, mine);
            watchdog::disarm();
            agreed.map_err(TestCaseError::fail)
        });
        // ANCHOR_END: lockstep_case
        watchdog::set_reproduce(None);
        let at = crate::report::rank_count(size as usize);
        match result {
            Ok(()) => Ok(()),
            Err(TestError::Fail(reason, value)) => Err(format!(
                "property `{}` FAILED at {at}\n  minimal failing case: {value:?}\n  \
                 {reason}\n  reproduce: WORKBOOK_SEED={seed} with {at} \
                 ({} run, shrinking included)",
                self.name,
                crate::report::counted(case_no.get() as usize, "case")
            )),
            Err(TestError::Abort(reason)) => Err(format!(
                "property `{}` gave up at {at}: {reason}",
                self.name
            )),
        }
    }
}

/// Combines every rank's verdict. All ranks return the same: `Ok`, or the message of the
/// lowest failing rank.
// ANCHOR: agree
pub fn agree(world: &SimpleCommunicator, mine: Result<(), String>) -> Result<(), String> {
    agree_on(world, mine).map_err(|(rank, why)| format!("rank {rank} says: {why}"))
}

/// [`agree`], returning the first failing rank and its message apart.
pub fn agree_on(world: &SimpleCommunicator, mine: Result<(), String>) -> Result<(), (i32, String)> {
    let (rank, size) = (world.rank(), world.size());
    let candidate = if mine.is_err() { rank } else { size };
    let mut first_failing = size;
    world.all_reduce_into(&candidate, &mut first_failing, SystemOperation::min());
    if first_failing == size {
        return Ok(());
    }
    if !(0..size).contains(&first_failing) {
        // Only a collective of another call can have answered this one.
        panic!("{}", out_of_step(first_failing, size));
    }
    // The first failing rank tells everyone why.
    let root = world.process_at_rank(first_failing);
    let mut message = mine.err().unwrap_or_default().into_bytes();
    let mut len = message.len() as u64;
    root.broadcast_into(&mut len);
    message.resize(len as usize, 0);
    root.broadcast_into(&mut message[..]);
    Err((
        first_failing,
        String::from_utf8_lossy(&message).into_owned(),
    ))
}
// ANCHOR_END: agree

/// What a verdict that names no rank means: this rank's allreduce met another call's.
fn out_of_step(value: i32, size: i32) -> String {
    format!(
        "the test's verdict (an MPI_Allreduce of the first failing rank, 0..{size}) came back \
         as {value}, not a rank: it met a collective of another call. The ranks' collectives \
         are out of step: one rank called a collective the others skipped, or called them in \
         another order. Every rank of the communicator must call every collective, in the \
         same order"
    )
}

/// `WORKBOOK_SEED` if set, else a fresh one chosen by rank 0; the same on every rank.
fn shared_seed(world: &SimpleCommunicator) -> u64 {
    let mut seed = workbook_settings::settings::seed().unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map(|d| d.as_nanos() as u64 % 1_000_000_007)
            .unwrap_or(1)
    });
    world.process_at_rank(0).broadcast_into(&mut seed);
    seed
}

fn rng_from(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&seed.wrapping_mul(i as u64 * 2 + 1).to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// A case's `Debug` text cut to a readable length.
fn short(value: &impl Debug) -> String {
    let text = format!("{value:?}");
    if text.len() <= 160 {
        return text;
    }
    let cut = (0..=160)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}... ({} chars)", &text[..cut], text.len())
}
