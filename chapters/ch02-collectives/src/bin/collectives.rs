//! Lab: every hand-written collective of this chapter against MPI's own, timed.
//!
//! Run: `make run CH=02 SOLUTION=1` (or `NP=8`; `make run CH=02` runs your own code).
//! Expect one table row per collective and size: the time per call (the slowest rank's,
//! in µs), MPI's time for the same collective, and their ratio. "block" is what one rank
//! contributes: the buffer of a broadcast, the vector of a reduce or scan, one rank's
//! block of a scatter/gather/allgather, one destination's block of an alltoall. Before
//! timing, each result is checked against MPI's (exactly: the data are small integers in
//! f64, whose sums are exact in any order). On a shared 2-core laptop the times are noisy:
//! read orders of magnitude and trends (linear vs tree as NP grows), not digits.

use ch02::broadcast::{broadcast_binomial, broadcast_linear};
use ch02::bruck::allgather_bruck;
use ch02::exchange::{allgather_ring, alltoall_pairwise};
use ch02::ops::Op;
use ch02::reduce::{reduce_binomial, scan_inclusive};
use ch02::scatter_gather::{gatherv, scatterv};
use ch02::{barrier::barrier_dissemination, reference};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::fmt::Debug;
use tabled::Tabled;
use toolkit::report::{print_and_save, Timing};

/// Block sizes in bytes, with the number of timed calls at each.
const SIZES: [(usize, usize); 3] = [(8, 500), (64 << 10, 40), (1 << 20, 8)];
/// Timed trials per collective and size; the fastest counts.
const TRIALS: usize = 3;

#[derive(Tabled)]
struct Row {
    collective: &'static str,
    block: String,
    #[tabled(rename = "hand-written µs")]
    mine: String,
    #[tabled(rename = "MPI µs")]
    mpi: String,
    #[tabled(rename = "ratio")]
    ratio: String,
}

/// Times and checks pairs of (hand-written, MPI) collectives on one communicator.
struct Lab<'w> {
    world: &'w SimpleCommunicator,
    rows: Vec<Row>,
}

impl Lab<'_> {
    /// Checks `mine() == mpi()` on every rank, then times `reps` calls of each, in
    /// `TRIALS` alternating trials, and keeps each one's best trial (noise only adds time).
    fn compare<R: PartialEq + Debug>(
        &mut self,
        name: &'static str,
        bytes: usize,
        reps: usize,
        mut mine: impl FnMut() -> R,
        mut mpi: impl FnMut() -> R,
    ) {
        let (got, want) = (mine(), mpi());
        let rank = self.world.rank();
        assert!(
            got == want,
            "{name} ({bytes} B) differs from MPI's on rank {rank}"
        );
        let (mut t_mine, mut t_mpi) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..TRIALS {
            t_mine = t_mine.min(self.time(reps, &mut mine));
            t_mpi = t_mpi.min(self.time(reps, &mut mpi));
        }
        self.rows.push(Row {
            collective: name,
            block: human(bytes),
            mine: format!("{:.1}", t_mine * 1e6),
            mpi: format!("{:.1}", t_mpi * 1e6),
            ratio: format!("{:.2}", t_mine / t_mpi),
        });
    }

    /// Seconds per call of `f`, the slowest rank's (a collective ends with its last rank).
    fn time<R>(&self, reps: usize, f: &mut impl FnMut() -> R) -> f64 {
        self.world.barrier();
        let start = mpi::time();
        for _ in 0..reps {
            std::hint::black_box(f());
        }
        let mine = (mpi::time() - start) / reps as f64;
        Timing::over_ranks(self.world, mine).max
    }
}

fn human(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        0 => "-".to_string(),
        b => format!("{b} B"),
    }
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let p = size as usize;
    let mut lab = Lab {
        world: &world,
        rows: vec![],
    };
    let w = &world;

    for (bytes, reps) in SIZES {
        let n = bytes / 8; // f64 elements per block
                           // Small integers: every sum below is exact, so results compare exactly.
        let xs: Vec<f64> = (0..n).map(|i| (rank as usize * 3 + i % 7) as f64).collect();
        let bcast = |f: fn(&SimpleCommunicator, i32, &mut [f64])| {
            let mut buf = xs.clone();
            f(w, 0, &mut buf);
            buf
        };
        lab.compare(
            "broadcast linear",
            bytes,
            reps,
            || bcast(broadcast_linear),
            || bcast(reference::broadcast),
        );
        lab.compare(
            "broadcast binomial",
            bytes,
            reps,
            || bcast(broadcast_binomial),
            || bcast(reference::broadcast),
        );
        let sum = Op::Sum;
        let (mine, mpi) = (
            || reduce_binomial(w, 0, &xs, sum),
            || reference::reduce(w, 0, &xs, sum),
        );
        lab.compare("reduce binomial", bytes, reps, mine, mpi);
        // Allreduce from two trees (chapter 3 does it better, with a ring).
        let allreduce = || {
            let mut out = reduce_binomial(w, 0, &xs, sum).unwrap_or_else(|| vec![0.0; n]);
            broadcast_binomial(w, 0, &mut out);
            out
        };
        lab.compare("allreduce = reduce + bcast", bytes, reps, allreduce, || {
            reference::allreduce(w, &xs, sum)
        });
        let counts = vec![n; p];
        let all: Vec<f64> = (0..n * p).map(|i| (i % 11) as f64).collect();
        let root_data = (rank == 0).then_some(&all[..]);
        let (mine, mpi) = (
            || scatterv(w, 0, root_data, &counts),
            || reference::scatterv(w, 0, root_data, &counts),
        );
        lab.compare("scatter linear", bytes, reps, mine, mpi);
        let (mine, mpi) = (
            || gatherv(w, 0, &xs, &counts),
            || reference::gatherv(w, 0, &xs, &counts),
        );
        lab.compare("gather linear", bytes, reps, mine, mpi);
        let (mine, mpi) = (|| allgather_ring(w, &xs), || reference::allgather(w, &xs));
        lab.compare("allgather ring", bytes, reps, mine, mpi);
        let (mine, mpi) = (|| allgather_bruck(w, &xs), || reference::allgather(w, &xs));
        lab.compare("allgather Bruck", bytes, reps, mine, mpi);
        let send: Vec<f64> = (0..n * p).map(|i| (rank as usize + i % 5) as f64).collect();
        let (mine, mpi) = (
            || alltoall_pairwise(w, &send),
            || reference::alltoall(w, &send),
        );
        lab.compare("alltoall pairwise", bytes, reps, mine, mpi);
        let (mine, mpi) = (
            || scan_inclusive(w, &xs, sum),
            || reference::scan(w, &xs, sum),
        );
        lab.compare("scan recursive doubling", bytes, reps, mine, mpi);
    }
    lab.compare(
        "barrier dissemination",
        0,
        200,
        || barrier_dissemination(w),
        || reference::barrier(w),
    );

    // One collective's sizes together: stable sort by the order the collectives ran in.
    let order: Vec<&str> = lab.rows.iter().map(|r| r.collective).collect();
    lab.rows
        .sort_by_key(|r| order.iter().position(|&c| c == r.collective));
    if rank == 0 {
        println!("collectives at {size} ranks: time per call, max over ranks; ratio = hand-written / MPI");
        let path = print_and_save(&lab.rows, &format!("ch02_collectives_np{size}.csv"));
        println!("{}", toolkit::report::oversubscription_note(size as usize));
        let path = path.unwrap_or_else(|e| panic!("cannot write the CSV: {e}"));
        let here = std::env::current_dir().unwrap_or_default();
        let path = path.strip_prefix(&here).unwrap_or(&path);
        println!(
            "collectives: every hand-written result equals MPI's; table also in {}",
            path.display()
        );
    }
}
