//! The sweep's summary (`# ...` lines after the table) and its model plot: the model
//! against the measurement per size, the share of sizes where ex 3.5 picks the fastest
//! algorithm, and where the ring's time goes at 8 MiB, down from the ping-pong peak.
//! Part of the `sweep` benchmark (`make bench CH=03`); nothing here runs MPI.

use super::{kib, Row, CHOICES};
use ch03::choose::choose_algorithm;
use ch03::cost::{Algorithm, Costs, Machine};
use toolkit::plot::{loglog_svg, Series};
use toolkit::report::write_file;

/// The sizes the model's target covers: 64 KiB to 64 MiB.
const TARGET_SIZES: std::ops::RangeInclusive<usize> = (64 << 10)..=(64 << 20);
/// The model's target: within this many percent of the measured time.
const TOLERANCE: f64 = 20.0;
/// Ex 3.5 picks well when its choice is within this factor of the faster one.
const NEAR_FASTEST: f64 = 1.1;

/// The measured row of `alg` at `bytes`.
fn at(rows: &[Row], alg: Algorithm, bytes: usize) -> Option<&Row> {
    rows.iter().find(|r| r.alg == Some(alg) && r.bytes == bytes)
}

// ANCHOR: targets
/// Per size, the model's error for the ring and recursive doubling (64 KiB to 64 MiB),
/// and whether ex 3.5 picked the measured fastest of the two it chooses between.
pub fn model_and_choice(rows: &[Row], machine: &Machine, p: usize) {
    for alg in [Algorithm::Ring, Algorithm::RecursiveDoubling] {
        let in_range = |r: &&Row| r.alg == Some(alg) && TARGET_SIZES.contains(&r.bytes);
        let errors: Vec<f64> = rows
            .iter()
            .filter(in_range)
            .map(|r| r.model_error)
            .collect();
        let within = errors.iter().filter(|e| e.abs() <= TOLERANCE).count();
        let listed: Vec<String> = errors.iter().map(|e| format!("{e:+.0}%")).collect();
        println!(
            "# model vs measured, {}, 64 KiB to 64 MiB: {} ({within} of {} within +-{TOLERANCE}%)",
            alg.name(),
            listed.join(" "),
            errors.len()
        );
    }
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.bytes).collect();
    sizes.dedup();
    let (mut good, mut missed) = (0, vec![]);
    for &bytes in &sizes {
        let times = CHOICES.map(|a| at(rows, a, bytes).map_or(f64::NAN, |r| r.seconds));
        let fastest = times[0].min(times[1]);
        let chosen = choose_algorithm(machine, p, bytes);
        let t = times[CHOICES.iter().position(|&a| a == chosen).unwrap_or(0)];
        if t <= NEAR_FASTEST * fastest {
            good += 1;
        } else {
            missed.push(format!(
                "{} ({:.0}% slower)",
                kib_or_b(bytes),
                100.0 * (t / fastest - 1.0)
            ));
        }
    }
    println!(
        "# ex 3.5 picks the measured faster of rec. doubling and segmented ring (or within 10%) \
         at {good} of {} sizes ({:.0}%; target 90%){}{}",
        sizes.len(),
        100.0 * good as f64 / sizes.len() as f64,
        if missed.is_empty() {
            ""
        } else {
            "; missed at "
        },
        missed.join(", ")
    );
    plot(rows, p);
}
// ANCHOR_END: targets

/// A size in B below 1 KiB, else in KiB or MiB.
fn kib_or_b(bytes: usize) -> String {
    if bytes < 1 << 10 {
        format!("{bytes}B")
    } else {
        kib(bytes)
    }
}

/// `ch03-model.svg`: measured and predicted time of the ring and recursive doubling.
fn plot(rows: &[Row], p: usize) {
    let mut series = vec![];
    for alg in [Algorithm::Ring, Algorithm::RecursiveDoubling] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.alg == Some(alg)).collect();
        let points = |f: fn(&Row) -> f64| mine.iter().map(|r| (r.bytes as f64, f(r))).collect();
        series.push(Series {
            name: format!("{} measured", alg.name()),
            points: points(|r| r.seconds * 1e6),
        });
        series.push(Series {
            name: format!("{} model", alg.name()),
            points: points(|r| r.predicted * 1e6),
        });
    }
    let title = format!("allreduce time, model and measurement, {p} ranks");
    let svg = loglog_svg(&title, "message size (bytes)", "time (us)", &series);
    match write_file(&format!("ch03-model-np{p}.svg"), &svg) {
        Ok(path) => println!("# wrote {}", path.display()),
        Err(e) => println!("# could not write the model plot: {e}"),
    }
}

// ANCHOR: where_the_time_goes
/// The ring at 8 MiB, from the ping-pong peak down to the measured busbw: each step
/// adds one cost the model measured in this run (busbw of the ring if only that much
/// were paid), next to the memory system's own limit (memcpy, every rank at once).
pub fn where_the_time_goes(rows: &[Row], machine: &Machine, p: usize, pingpong: f64, memcpy: f64) {
    let bytes = 8 << 20;
    let Some(ring) = at(rows, Algorithm::Ring, bytes) else {
        return;
    };
    let (n, pf, c) = (bytes as f64, p as f64, bytes / p);
    let (chunk, vector) = (machine.at(c), machine.at(bytes));
    let cf = c as f64;
    let messages = (pf - 1.0) * 2.0 * (chunk.rendezvous + cf / chunk.link.beta);
    let reductions = (pf - 1.0) * cf * chunk.gamma;
    let buffers = n * vector.fresh + cf * chunk.fresh;
    let busbw = |t: f64| n / t * 2.0 * (pf - 1.0) / pf / 1e9;
    println!(
        "# ring busbw at 8 MiB, {p} ranks (GB/s): ping-pong peak {:.2} (one message at a time, \
         partner idle) -> {:.2} with every rank sending and receiving at once -> {:.2} with the \
         reductions -> {:.2} with the fresh buffers (model) ; measured {:.2} ; memcpy {:.2}",
        pingpong / 1e9,
        busbw(messages),
        busbw(messages + reductions),
        busbw(messages + reductions + buffers),
        ring.busbw,
        memcpy / 1e9
    );
    let total = messages + reductions + buffers;
    println!(
        "# ring time at 8 MiB: messages {:.0}%, reductions {:.0}%, fresh buffers {:.0}% of the \
         model's {:.0} us; measured {:.0} us",
        100.0 * messages / total,
        100.0 * reductions / total,
        100.0 * buffers / total,
        total * 1e6,
        ring.seconds * 1e6
    );
}
// ANCHOR_END: where_the_time_goes
