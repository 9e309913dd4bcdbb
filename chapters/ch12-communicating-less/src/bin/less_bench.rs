//! Benchmark: the ways of communicating less side by side, on one model, in one run: the
//! least-squares problem of the `compress` lab trained with the dense MPI_Allreduce of
//! the flat gradient (chapters 3 and 6), both hierarchical allreduces on 2 emulated nodes
//! (ex 12.1, 12.2), top-k 10% and 1% with error feedback (ex 12.3), 8-bit codes with a
//! scale per 64 elements and error feedback (ex 12.4, gathered) and local SGD with H = 4
//! (ex 12.5). Per method: the bytes one rank hands to the exchange per step (counted),
//! the time per step in the exchange and in all (the slowest rank's, the faster of two
//! rounds), and the loss after the same steps.
//!
//! Run: `make bench CH=12` (release build, 4 ranks; `NP=8` for another job). Under
//! `WORKBOOK_BENCH_SMOKE=1` (`make bench-smoke CH=12`) every method runs once on a tiny
//! problem; its figures then mean nothing. All ranks share one machine: every link is
//! shared memory, where sending fewer bytes saves little and the selection, the codes
//! and the extra collectives cost compute.

use ch12::lsq::Problem;
use ch12::nodes::{NodeGroups, Nodes};
use ch12::side_by_side::{measure, Measured, Method, BUCKET};
use mpi::traits::*;
use toolkit::bench::sized;

/// The methods, in the table's order.
const METHODS: [Method; 7] = [
    Method::Dense,
    Method::Leaders,
    Method::Busy,
    Method::TopK(10.0),
    Method::TopK(1.0),
    Method::Quant8,
    Method::Local(4),
];

fn main() {
    let (dim, rows, steps, rounds) = (sized(1024, 64), sized(4096, 64), sized(200, 4), sized(2, 1));
    let lr = 0.3;
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let groups = NodeGroups::new(&world, Nodes::Emulated(p.min(2))).unwrap_or_else(|why| {
        say(&format!("less_bench: {why}"));
        std::process::exit(2);
    });
    let problem = Problem::new(12, rows, dim, rank, p);
    say(&format!(
        "less_bench: {p} rank(s) as {}, least squares, {rows} rows of {dim} features \
         (seed 12), {steps} steps, lr {lr}; 8-bit buckets of {BUCKET}",
        groups.describe()
    ));
    say(&toolkit::report::oversubscription_note(p));
    say(&format!(
        "load average at the start: {:.1} (other work on the machine takes cores too)",
        toolkit::bench::load_average()
    ));
    let mut best: Vec<Option<Measured>> = vec![None; METHODS.len()];
    for _ in 0..rounds {
        for (i, &method) in METHODS.iter().enumerate() {
            if method == Method::Busy && !groups.uniform() {
                continue;
            }
            let m = measure(&world, &groups, &problem, method, steps, lr).unwrap_or_else(|why| {
                say(&format!("less_bench: {why}"));
                std::process::exit(2);
            });
            best[i] = match best[i].take() {
                Some(b) if b.step_secs <= m.step_secs => Some(b),
                _ => Some(m),
            };
        }
    }
    say(&format!(
        "{:<24}{:>12}{:>18}{:>12}{:>12}",
        "method",
        "bytes/step",
        "exchange µs/step",
        "µs/step",
        format!("loss@{steps}")
    ));
    for (method, m) in METHODS.iter().zip(&best) {
        match m {
            Some(m) => say(&format!(
                "{:<24}{:>12}{:>18.1}{:>12.1}{:>12.3e}",
                method.name(),
                m.bytes_per_step,
                m.exchange_secs * 1e6,
                m.step_secs * 1e6,
                m.loss
            )),
            None => say(&format!(
                "{:<24}  (needs nodes of equal size)",
                method.name()
            )),
        }
    }
    say("bytes/step: what one rank hands to the exchange per step (the hierarchy moves the");
    say("  same gradient over other links; local SGD sends the parameters once per H steps)");
    say("exchange: the time in the exchange, waiting for the slower ranks included");
}
