//! Ping-pong between ranks 0 and 1 over message sizes 0 B .. 4 MiB, and the alpha-beta
//! model fitted to it (ex 1.4).
//!
//! Run: `make run CH=01 BIN=pingpong` (your fit) or with `SOLUTION=1`. Needs 2 ranks or
//! more; ranks 2.. sit it out. Expect: alpha (the latency, about a microsecond between
//! processes of one host) and beta (the bandwidth, GB/s), a table of measured against
//! predicted one-way times per size, and n_1/2 = alpha*beta, the size above which
//! bandwidth dominates. Times are printed, never asserted: they depend on the machine
//! and on whatever else it is doing. The samples are also written to
//! `target/workbook/pingpong.csv`.

use ch01::fit::fit_alpha_beta;
use ch01::model::Sample;
use ch01::pingpong::{idle_until_done, one_way_seconds};
use mpi::traits::*;
use tabled::Tabled;

/// Bytes moved per size and trial, which sets the repetitions: 8 MiB.
const VOLUME: usize = 8 << 20;
/// Trials per size; the fastest is kept (noise only ever adds time).
const TRIALS: usize = 3;

#[derive(Tabled)]
struct Row {
    bytes: usize,
    reps: usize,
    #[tabled(rename = "measured (us)")]
    measured: String,
    #[tabled(rename = "predicted (us)")]
    predicted: String,
    #[tabled(rename = "GB/s")]
    bandwidth: String,
    #[tabled(rename = "dominated by")]
    regime: &'static str,
}

/// 0, then 1 B to 4 MiB in steps of 4x.
fn sizes() -> Vec<usize> {
    std::iter::once(0)
        .chain((0..12).map(|k| 1usize << (2 * k)))
        .collect()
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    if size < 2 {
        println!("pingpong needs 2 ranks or more (NP=2)");
        return;
    }
    if rank >= 2 {
        idle_until_done(&world);
        return;
    }

    // ANCHOR: measure
    one_way_seconds(&world, 0, 2000); // warm-up: connections, caches, clock speed
    let mut samples = vec![];
    for bytes in sizes() {
        let reps = (VOLUME / bytes.max(1)).clamp(20, 2000);
        let best = (0..TRIALS)
            .map(|_| one_way_seconds(&world, bytes, reps))
            .fold(f64::INFINITY, f64::min);
        samples.push((
            reps,
            Sample {
                bytes: bytes as f64,
                seconds: best,
            },
        ));
    }
    let only: Vec<Sample> = samples.iter().map(|(_, s)| *s).collect();
    let fit = fit_alpha_beta(&only);
    // ANCHOR_END: measure
    idle_until_done(&world);
    if rank != 0 {
        return;
    }

    let Some(fit) = fit else {
        println!("the fit returned None: the times did not grow with the size (noise?)");
        return;
    };
    let rows = samples.iter().map(|&(reps, s)| Row {
        bytes: s.bytes as usize,
        reps,
        measured: format!("{:.2}", s.seconds * 1e6),
        predicted: format!("{:.2}", fit.predict(s.bytes) * 1e6),
        bandwidth: format!("{:.3}", s.bytes / s.seconds / 1e9),
        regime: if s.bytes / fit.beta > fit.alpha {
            "bandwidth"
        } else {
            "latency"
        },
    });
    println!("{}", toolkit::report::table(rows));
    println!(
        "alpha = {:.2} us (latency), beta = {:.2} GB/s (bandwidth)",
        fit.alpha * 1e6,
        fit.beta / 1e9
    );
    println!(
        "n_1/2 = alpha * beta = {:.0} bytes: larger messages are dominated by bandwidth",
        fit.n_half()
    );
    let csv: String = std::iter::once("bytes,seconds,predicted\n".to_string())
        .chain(
            only.iter()
                .map(|s| format!("{},{:e},{:e}\n", s.bytes, s.seconds, fit.predict(s.bytes))),
        )
        .collect();
    match toolkit::report::write_file("pingpong.csv", &csv) {
        Ok(path) => println!("samples written to {}", path.display()),
        Err(e) => println!("could not write pingpong.csv: {e}"),
    }
}
