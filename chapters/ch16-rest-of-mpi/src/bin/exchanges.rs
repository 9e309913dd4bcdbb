//! Lab: the halo exchange four ways (chapter 4's packed one, a vector datatype, persistent
//! requests, a neighbourhood collective) on one heat problem, side by side; then MPI 4's
//! persistent allreduce against the blocking one.
//!
//! Run: `make run CH=16 SOLUTION=1` (or `NP=2`, `NP=7`; `make run CH=16` runs your code).
//! Expect: one table per grid (a small one, where each message is latency, and a large
//! one, where the columns are long): per exchange the microseconds per step spent filling
//! ghosts (the slowest rank's, best of three runs) and the ratio to the packed exchange;
//! every field equal to the serial solver's bit for bit. Then one line naming this MPI's
//! persistent allreduce (or why there is none) and the time per call of both, and one
//! line on how this MPI pairs a neighbourhood collective's blocks. With more
//! ranks than cores the ranks take turns on the cores: times include that waiting.

use ch04::field::Field;
use ch04::problem::{solve_serial, Boundary, Problem};
use ch16::collective_init::{persistent_collectives, PersistentSum};
use ch16::exchanges::{solve, time_exchange, Parts, Solved, EXCHANGES};
use ch16::neighbourhood::pairs_by_direction;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tabled::Tabled;
use toolkit::report::{table, Timing};

/// The grids: a small one (latency) and a large one (long columns), the steps of the run
/// checked against the serial solver, and the most exchanges timed in a round. Twice as
/// wide as tall, so that at 2 ranks the grid is cut between columns: the strided columns
/// travel between the ranks (the rows, along an axis of one rank, to the rank itself).
const GRIDS: [(usize, usize, usize, usize); 2] = [(64, 128, 50, 2000), (1024, 2048, 5, 200)];
/// Rounds of timing; each exchange's best round is kept.
const RUNS: usize = 5;
/// Seconds one round of one exchange may take (on an oversubscribed machine, where each
/// exchange takes a time slice, fewer exchanges are timed).
const BUDGET: f64 = 0.1;
/// Calls of each allreduce timed.
const SUMS: usize = 2000;

#[derive(Tabled)]
struct Row {
    exchange: String,
    #[tabled(rename = "exchanges timed")]
    timed: usize,
    #[tabled(rename = "µs per exchange")]
    micros: String,
    #[tabled(rename = "vs packed")]
    ratio: String,
    #[tabled(rename = "equals serial")]
    exact: &'static str,
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let parts = Parts::yours();
    let (rank, size) = (world.rank(), world.size());
    toolkit::gate::unless_todo(&world, || {
        for exchange in EXCHANGES {
            let tiny = Problem {
                rows: 8,
                cols: 8,
                boundary: Boundary::Periodic,
            };
            let _ = solve(&world, &tiny, 1, exchange, &parts);
        }
    })
    .unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "exchanges", &task));
    for (rows, cols, steps, reps) in GRIDS {
        let p = Problem {
            rows,
            cols,
            boundary: Boundary::Periodic,
        };
        let serial = solve_serial(&p, steps).0;
        // Each exchange checked once, then timed in rounds that take the exchanges in
        // turn (a burst of load on the machine then touches every exchange alike).
        let exact: Vec<bool> = EXCHANGES
            .iter()
            .map(|&exchange| {
                let solved = solve(&world, &p, steps, exchange, &parts);
                equals_serial(&world, &solved.unwrap_or_else(|w| panic!("{w}")), &serial)
            })
            .collect();
        let mut best = [f64::INFINITY; EXCHANGES.len()];
        let mut timed = [0; EXCHANGES.len()];
        for _ in 0..RUNS {
            for (k, &exchange) in EXCHANGES.iter().enumerate() {
                let run = time_exchange(&world, &p, exchange, &parts, reps, BUDGET);
                let (seconds, n) = run.unwrap_or_else(|w| panic!("{w}"));
                best[k] = best[k].min(Timing::over_ranks(&world, seconds).max);
                timed[k] += n;
            }
        }
        let out: Vec<Row> = EXCHANGES
            .iter()
            .enumerate()
            .map(|(k, exchange)| Row {
                exchange: format!("{exchange:?}"),
                timed: timed[k],
                micros: format!("{:.1}", best[k] * 1e6),
                ratio: format!("{:.2}", best[k] / best[0]),
                exact: if exact[k] { "bit for bit" } else { "NO" },
            })
            .collect();
        if rank == 0 {
            println!("{rows} x {cols} periodic grid, {size} ranks: {steps} steps checked, then each exchange timed alone in {RUNS} rounds (at most {reps} exchanges or {BUDGET} s a round; the best round shown)");
            println!("{}\n", table(out));
        }
    }
    persistent_allreduce(&world);
    if rank == 0 {
        println!("{}", pairing_line());
    }
}

/// What this MPI does with the two blocks of a periodic axis of one or two ranks.
fn pairing_line() -> &'static str {
    match pairs_by_direction() {
        true => {
            "neighbourhood collectives: along a periodic axis of one or two ranks this MPI \
                 fills each block from the direction MPI 4.1 says (sent towards + 1, received \
                 from - 1)"
        }
        false => {
            "neighbourhood collectives: along a periodic axis of one or two ranks this MPI \
                  pairs the two blocks in the order they were posted, so they arrive swapped; \
                  neighbourhood::alltoallv swaps them back"
        }
    }
}

/// Every rank's block equals the same block of the serial solver's field, bit for bit
/// (every rank has the serial field; the verdicts are agreed by an allreduce).
fn equals_serial(world: &SimpleCommunicator, solved: &Solved, serial: &Field) -> bool {
    let b = &solved.block;
    let mine = b.rows.clone().enumerate().all(|(r, gi)| {
        let want = &serial.owned_row(gi)[b.cols.clone()];
        let got = solved.field.owned_row(r);
        want.iter()
            .zip(got)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    });
    let mut all = 0i32;
    world.all_reduce_into(&i32::from(mine), &mut all, SystemOperation::min());
    all == 1
}

/// MPI 4's persistent allreduce against the blocking one, when this MPI has it.
fn persistent_allreduce(world: &SimpleCommunicator) {
    let rank = world.rank();
    let time = |f: &mut dyn FnMut(f64) -> f64| {
        world.barrier();
        let start = Instant::now();
        let mut total = 0.0;
        for k in 0..SUMS {
            total += f(k as f64);
        }
        (
            Timing::over_ranks(world, start.elapsed().as_secs_f64()).max / SUMS as f64,
            total,
        )
    };
    let (blocking, want) = time(&mut |x| {
        let mut sum = 0.0;
        world.all_reduce_into(&x, &mut sum, SystemOperation::sum());
        sum
    });
    let line = match (persistent_collectives(), PersistentSum::new(world)) {
        (Ok(name), Some(mut sum)) => {
            let (persistent, got) = time(&mut |x| sum.sum(x));
            let same = if got == want {
                "the same sums"
            } else {
                "DIFFERENT sums"
            };
            format!(
                "persistent collectives: {name}; one double summed: blocking MPI_Allreduce \
                 {:.2} µs per call, persistent {:.2} µs ({:.2}x), {same}",
                blocking * 1e6,
                persistent * 1e6,
                persistent / blocking
            )
        }
        (Err(why), _) => format!("persistent collectives: {why}"),
        (Ok(name), None) => format!("persistent collectives: {name} found, but not set up"),
    };
    if rank == 0 {
        println!("{line}");
    }
}
