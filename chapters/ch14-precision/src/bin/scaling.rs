//! Lab: chapter 12's least-squares problem, its loss multiplied by 2^-28 so that its
//! gradients are tiny (below f16's smallest subnormal), trained data parallel (`ch14::mixed`: f32 master
//! weights and Adam's state sharded over the ranks) three ways: with f32 gradients, with
//! f16 gradients unscaled, and with f16 gradients under a dynamic loss scale (ex 14.3).
//! Prints each run's loss, the steps it skipped, its last scale and the share of gradient
//! elements f16 flushed to zero; then the dynamic scale every 10 steps.
//!
//! Run: `make run CH=14 BIN=scaling` (4 ranks; `ARGS='--start 0'` starts the scale at 1,
//! `ARGS=--help` for the list). A bad flag is refused in one line before MPI starts. It
//! needs ex 14.1 and 14.3; until they are written it says which.

use ch12::lsq::Problem;
use ch14::flags::{from_args, ScalingFlags};
use ch14::loss_scale::LossScaler;
use ch14::mixed::{train, Precision, Run};
use ch14::scaler::update;
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// The factor the problem's loss is multiplied by: its gradients become tiny.
const LOSS_FACTOR: f32 = 1.0 / (1u64 << 28) as f32;
/// Adam's learning rate.
const LR: f32 = 0.05;

fn main() {
    let flags: ScalingFlags = from_args("scaling");
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let problem = Problem::new(14, 2048, 64, rank, p);
    let start = 2f32.powi(flags.start);
    let runs = [
        ("f32 gradients", Precision::F32),
        (
            "f16, no loss scale",
            Precision::F16(LossScaler::new(1.0, u32::MAX)),
        ),
        (
            "f16, dynamic scale",
            Precision::F16(LossScaler::new(start, flags.growth as u32)),
        ),
    ];
    let results = unless_todo(&world, || {
        runs.map(|(_, precision)| {
            train(
                &world,
                &problem,
                flags.steps,
                LR,
                LOSS_FACTOR,
                precision,
                update,
            )
        })
    });
    let results: [Run; 3] =
        results.unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "scaling", &task));
    if rank != 0 {
        return;
    }
    let n = flags.steps;
    println!(
        "least squares, 2048 rows x 64 features, loss x 2^-28, Adam lr {LR}, {p} rank(s); \
         the dynamic scale starts at 2^{} and doubles after {} clean steps",
        flags.start, flags.growth
    );
    println!(
        "{:<20} {:>10} {:>10} {:>10} {:>10} {:>8} {:>12} {:>9}",
        "gradients",
        "loss 0",
        format!("step {}", n / 4),
        format!("step {}", n / 2),
        format!("step {n}"),
        "skipped",
        "last scale",
        "flushed"
    );
    for ((name, _), run) in runs.iter().zip(&results) {
        println!(
            "{name:<20} {:>10.3e} {:>10.3e} {:>10.3e} {:>10.3e} {:>8} {:>12} {:>8.1}%",
            run.losses[0],
            run.losses[n / 4],
            run.losses[n / 2],
            run.losses[n],
            run.skipped,
            format!("2^{}", run.scales.last().map_or(0.0, |s| s.log2())),
            100.0 * run.flushed
        );
    }
    let scales: Vec<String> = results[2]
        .scales
        .iter()
        .step_by(10)
        .map(|s| format!("{}", s.log2()))
        .collect();
    println!(
        "the dynamic scale every 10 steps (log2): {}",
        scales.join(" ")
    );
}
