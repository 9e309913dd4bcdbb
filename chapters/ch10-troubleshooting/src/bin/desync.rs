//! Lab: one rank skips a collective, and the job is told where the ranks parted, two ways.
//!
//! Run: `make run CH=10 BIN=desync` (4 ranks; `SOLUTION=1` for the answers; `NP=3` for
//! another job; `ARGS=--hang` for the third run). A training-like loop: each step
//! allreduces a loss (4 bytes), and every 4th step rank 0 broadcasts 4 MiB of parameters.
//! Expect:
//! 1. what the desync check (ex 10.6: one allgather of fingerprints) costs per call, next
//!    to the loop's two calls: a 4-byte allreduce and the 4 MiB broadcast;
//! 2. the last rank skips the broadcast of step 8 (`if rank != last`), with the check:
//!    every rank stops before that collective, and rank 0 says which ranks differ;
//! 3. with `ARGS=--hang`, the same mistake without the check: the job hangs in MPI, the
//!    watchdog ends it after 5 s, and the launcher's `desync:` line, from every rank's
//!    flight recorder (`toolkit::flight`), names the collective where the ranks parted.

use ch10::desync::{check_collective, CallKind, Fingerprint, Mismatch};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};
use toolkit::gate::unless_todo;

/// Steps of the loop; the broadcast comes every [`BCAST_EVERY`] steps.
const STEPS: usize = 40;
const BCAST_EVERY: usize = 4;
/// The step whose broadcast the last rank skips in runs 2 and 3.
const SKIPPED: usize = 8;
/// The parameters: 1 Mi floats (4 MiB), past every eager limit.
const PARAMS: usize = 1 << 20;

/// The collectives of one communicator, each checked first when `check` is on: the
/// fingerprint names the collective by its number on the communicator (from 1, as the
/// flight recorder counts).
struct Collectives<'a> {
    comm: &'a SimpleCommunicator,
    check: bool,
    seq: u64,
}

impl Collectives<'_> {
    fn checked(&mut self, call: CallKind, root: i32, bytes: usize) -> Result<(), Mismatch> {
        self.seq += 1;
        let mine = Fingerprint {
            seq: self.seq,
            call,
            root,
            bytes: bytes as u64,
        };
        match self.check {
            true => check_collective(self.comm, &mine),
            false => Ok(()),
        }
    }

    fn allreduce_loss(&mut self, loss: f32) -> Result<f32, Mismatch> {
        self.checked(CallKind::Allreduce, -1, 4)?;
        let mut sum = 0.0f32;
        self.comm
            .all_reduce_into(&loss, &mut sum, SystemOperation::sum());
        Ok(sum)
    }

    fn broadcast(&mut self, params: &mut [f32]) -> Result<(), Mismatch> {
        self.checked(CallKind::Bcast, 0, params.len() * 4)?;
        self.comm.process_at_rank(0).broadcast_into(params);
        Ok(())
    }
}

/// The loop, on a copy of `world` of its own (so that its collectives are numbered from 1
/// there, in the fingerprints and in the flight recorder alike); `skipper` skips the
/// broadcast of step [`SKIPPED`]. `Err` is the mismatch the check found.
fn train(world: &SimpleCommunicator, check: bool, skipper: Option<i32>) -> Result<(), Mismatch> {
    let comm = &world.duplicate();
    let mut coll = Collectives {
        comm,
        check,
        seq: 0,
    };
    let mut params = vec![1.0f32; PARAMS];
    for step in 1..=STEPS {
        coll.allreduce_loss(1.0 / step as f32)?;
        // ANCHOR: skip
        let skips = skipper == Some(comm.rank()) && step == SKIPPED;
        if step % BCAST_EVERY == 0 && !skips {
            coll.broadcast(&mut params)?;
        }
        // ANCHOR_END: skip
    }
    Ok(())
}

/// Calls timed per kind of call.
const CALLS: usize = 50;

/// The median time of one `call` over [`CALLS`] calls, the best of 3 rounds (a busy
/// machine only ever makes a call slower).
fn per_call(mut call: impl FnMut()) -> f64 {
    let round = |call: &mut dyn FnMut()| {
        let mut t: Vec<f64> = (0..CALLS)
            .map(|_| {
                let start = Instant::now();
                call();
                start.elapsed().as_secs_f64()
            })
            .collect();
        t.sort_by(f64::total_cmp);
        t[CALLS / 2]
    };
    (0..3)
        .map(|_| round(&mut call))
        .fold(f64::INFINITY, f64::min)
}

/// What the check costs next to the two calls of the loop, per call on this rank:
/// (allreduce of 4 bytes, the check, broadcast of the parameters).
fn costs(world: &SimpleCommunicator) -> (f64, f64, f64) {
    let comm = world.duplicate();
    let mut sum = 0.0f32;
    let small = per_call(|| comm.all_reduce_into(&1.0f32, &mut sum, SystemOperation::sum()));
    let print = Fingerprint {
        seq: 1,
        call: CallKind::Allreduce,
        root: -1,
        bytes: 4,
    };
    let check = per_call(|| check_collective(&comm, &print).expect("every rank agrees"));
    let mut params = vec![1.0f32; PARAMS];
    let large = per_call(|| comm.process_at_rank(0).broadcast_into(&mut params[..]));
    (small, check, large)
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank(), world.size());
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let hang = std::env::args().any(|a| a == "--hang");
    say(&format!(
        "each step: an allreduce of 4 bytes; every {BCAST_EVERY}th step, a broadcast of {} MiB \
         from rank 0; {STEPS} steps on {p} ranks",
        (PARAMS * 4) >> 20
    ));
    say(&toolkit::report::oversubscription_note(p as usize));
    if let Err(task) = unless_todo(&world, || train(&world, true, None)) {
        toolkit::gate::stop_unfinished(&world, "desync", &task);
    }
    if p < 2 {
        return say("\n1 rank: no other rank to disagree with, and nothing to time the check against; run with NP=4 (the default)");
    }
    let (small, check, large) = costs(&world);
    say(&format!(
        "\n1. what the check costs, per call (median of {CALLS}, best of 3 rounds, rank 0):"
    ));
    say(&format!(
        "   allreduce of 4 bytes         {:>9.1} us",
        small * 1e6
    ));
    say(&format!(
        "   the check (ex 10.6)          {:>9.1} us  = {:.1} small allreduces",
        check * 1e6,
        check / small
    ));
    say(&format!(
        "   broadcast of {} MiB           {:>9.1} us  (the check: {:.1}% of it)",
        (PARAMS * 4) >> 20,
        large * 1e6,
        check / large * 100.0
    ));
    let last = p - 1;
    say(&format!(
        "\n2. rank {last} skips the broadcast of step {SKIPPED}, with the check:"
    ));
    match train(&world, true, Some(last)) {
        Ok(_) => say("   no mismatch found?! (the check let a skipped broadcast through)"),
        Err(m) => say(&format!("   every rank stopped before it: {m}")),
    }
    if !hang {
        return say("\n3. the same without the check hangs: ARGS=--hang shows what the watchdog and the flight recorder say");
    }
    say(&format!(
        "\n3. rank {last} skips the broadcast of step {SKIPPED}, without the check (the watchdog ends the job after 5 s):"
    ));
    toolkit::watchdog::arm("the loop without the check", Duration::from_secs(5));
    let _ = train(&world, false, Some(last));
    toolkit::watchdog::disarm();
    say("   it finished?! (the broadcast went through without the last rank)");
}
