//! The sweep's summary (`# ...` lines after the table), its CSV and plots: the model
//! against the measurement per size, the share of sizes where ex 3.5 picks the fastest
//! algorithm, and where the ring's time goes at 8 MiB, down from the ping-pong peak.
//! Part of the `sweep` benchmark (`make bench CH=03`); nothing here runs MPI.

use super::limits::kib;
use super::{name, Row, CHOICES};
use ch03::choose::choose_algorithm;
use ch03::cost::{predict, Algorithm, Costs, Machine};
use toolkit::plot::{loglog_svg, Series};
use toolkit::report::{csv, write_file};

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

/// CSV, SVG and the summary lines (the chapter's performance targets).
pub fn report(rows: &[Row], p: usize) {
    let series: Vec<Series> = rows
        .iter()
        .map(|r| r.alg)
        .fold(Vec::new(), |mut v, a| {
            if !v.contains(&a) {
                v.push(a)
            }
            v
        })
        .into_iter()
        .map(|a| Series {
            name: name(&a).into(),
            points: rows
                .iter()
                .filter(|r| r.alg == a)
                .map(|r| (r.bytes as f64, r.busbw))
                .collect(),
        })
        .collect();
    let title = format!("allreduce bus bandwidth, {p} ranks");
    let svg = loglog_svg(&title, "message size (bytes)", "busbw (GB/s)", &series);
    let csv_path = write_file("ch03-sweep.csv", &csv(rows)).expect("cannot write the CSV");
    let svg_path = write_file("ch03-busbw.svg", &svg).expect("cannot write the SVG");
    let at = |a: Option<Algorithm>, b: usize| rows.iter().find(|r| r.alg == a && r.bytes == b);
    let big: Vec<usize> = rows
        .iter()
        .filter(|r| r.bytes >= 4 << 20 && r.alg.is_none())
        .map(|r| r.bytes)
        .collect();
    for (alg, label) in [
        (Algorithm::Ring, "ring"),
        (Algorithm::SegmentedRing, "segmented ring"),
    ] {
        let ratios: Vec<String> = big
            .iter()
            .map(|&b| {
                format!(
                    "{:.2}",
                    at(Some(alg), b).unwrap().busbw / at(Some(Algorithm::Mpi), b).unwrap().busbw
                )
            })
            .collect();
        println!(
            "# {label} busbw / MPI busbw at >= 4 MiB: {}",
            ratios.join(" ")
        );
    }
    let small = rows[0].bytes;
    let auto = at(None, small).unwrap().seconds / at(Some(Algorithm::Mpi), small).unwrap().seconds;
    println!("# auto / MPI time at {small} B: {auto:.2}");
    println!("# wrote {} and {}", csv_path.display(), svg_path.display());
}

// ANCHOR: targets
/// Per size, the model's error for the ring and recursive doubling (64 KiB to 64 MiB),
/// and whether ex 3.5 picked the measured fastest of the two it chooses between.
/// Returns the run's figures (without `busbw_8mib`).
pub fn model_and_choice(rows: &[Row], machine: &Machine, p: usize) -> Outcome {
    let mut outcome = Outcome::default();
    for alg in [Algorithm::Ring, Algorithm::RecursiveDoubling] {
        let in_range = |r: &&Row| r.alg == Some(alg) && TARGET_SIZES.contains(&r.bytes);
        let errors: Vec<f64> = rows
            .iter()
            .filter(in_range)
            .map(|r| r.model_error)
            .collect();
        let within = errors.iter().filter(|e| e.abs() <= TOLERANCE).count();
        outcome.sizes = errors.len();
        if alg == Algorithm::Ring {
            outcome.ring_within = within;
        } else {
            outcome.doubling_within = within;
        }
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
    outcome.choice = 100.0 * good as f64 / sizes.len() as f64;
    plot(rows, p);
    outcome
}

/// One run's figures against the chapter's targets.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// Sizes from 64 KiB to 64 MiB where the ring's model is within the tolerance.
    pub ring_within: usize,
    /// The same for recursive doubling.
    pub doubling_within: usize,
    /// Sizes from 64 KiB to 64 MiB.
    pub sizes: usize,
    /// Percent of all sizes where ex 3.5 picked the fastest (or within 10%).
    pub choice: f64,
    /// The ring's measured busbw at 8 MiB, GB/s.
    pub busbw_8mib: f64,
}

/// min / median / max of each figure over the runs (`--runs N`).
pub fn over_runs(runs: &[Outcome], p: usize) {
    let spread = |f: fn(&Outcome) -> f64, digits: usize| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        let m = v.len() / 2;
        let one = |x: f64| format!("{x:.digits$}");
        format!("{} / {} / {}", one(v[0]), one(v[m]), one(v[v.len() - 1]))
    };
    let sizes = runs.first().map_or(0, |o| o.sizes);
    println!(
        "# over {} runs at {p} ranks, min / median / max:",
        runs.len()
    );
    println!(
        "#   sizes (of {sizes}) where the model is within +-{TOLERANCE}%: ring {}, rec. doubling {}",
        spread(|o| o.ring_within as f64, 0),
        spread(|o| o.doubling_within as f64, 0)
    );
    println!(
        "#   ex 3.5 picks the fastest (or within 10%) at {} % of sizes (target 90%)",
        spread(|o| o.choice, 0)
    );
    println!(
        "#   ring busbw at 8 MiB: {} GB/s",
        spread(|o| o.busbw_8mib, 2)
    );
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
/// Returns the measured busbw (GB/s; NaN without an 8 MiB row).
pub fn where_the_time_goes(
    rows: &[Row],
    machine: &Machine,
    p: usize,
    pingpong: f64,
    memcpy: f64,
) -> f64 {
    let bytes = 8 << 20;
    let Some(ring) = at(rows, Algorithm::Ring, bytes) else {
        return f64::NAN;
    };
    let (n, pf) = (bytes as f64, p as f64);
    let (m, c) = (machine.at(bytes), n / pf);
    let messages = (pf - 1.0) * 2.0 * (m.rendezvous + c / m.link.beta);
    let reductions = (pf - 1.0) * c * m.gamma;
    let buffers = (n + c) * m.fresh;
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
    ring.busbw
}
// ANCHOR_END: where_the_time_goes

/// The model of this machine carried to more ranks than it has (`--with` runs only): the
/// time it predicts per algorithm of `algs` at 8 B and 8 MiB, at 8, 64 and 512 ranks. The
/// links and reductions as measured here; what grows is the number of steps.
pub fn at_scale(machine: &Machine, algs: &[Algorithm]) {
    let algs: Vec<Algorithm> = algs
        .iter()
        .copied()
        .filter(|a| {
            !matches!(
                a,
                Algorithm::Mpi | Algorithm::Naive | Algorithm::SegmentedRing
            )
        })
        .collect();
    println!("# the model at more ranks (this machine's links; us):");
    for bytes in [8, 8 << 20] {
        for p in [8, 64, 512] {
            let times: Vec<String> = algs
                .iter()
                .map(|&a| format!("{} {:.1}", a.name(), predict(a, machine, p, bytes) * 1e6))
                .collect();
            let size = if bytes < 1024 {
                format!("{bytes}B")
            } else {
                kib(bytes)
            };
            println!("#   {size:>6} at {p:>3} ranks: {}", times.join(", "));
        }
    }
}
