//! The two targets of the benchmark, per run and over runs: the update's bandwidth per
//! kernel against the copy bandwidth of the same run (1 rank, the largest grid), and
//! what overlapping saved at 2 ranks against the most it could save,
//! min(compute, communication) of the blocking step. Part of `halo_bench`.

use super::{Sample, STRONG};

/// The figures of one run.
pub struct Figures {
    /// (kernel, update bandwidth as a percentage of the copy bandwidth).
    pub kernels: Vec<(String, f64)>,
    /// (grid side, communication share of the blocking step %, saving as % of the most
    /// overlap can save, saving in µs per step), at 2 ranks.
    pub overlap: Vec<(usize, f64, f64, f64)>,
}

/// The sample of `variant` at 2 ranks on the strong-scaling grid `n`.
fn at_two<'a>(samples: &'a [Sample], n: usize, variant: &str) -> Option<&'a Sample> {
    let hit = |s: &&Sample| s.np == 2 && s.kind == "strong" && s.rows == n && s.variant == variant;
    samples.iter().find(hit)
}

// ANCHOR: targets
/// Prints the targets' lines of one run and returns its figures.
/// `kernels`: (name, seconds per step on the largest grid, on the smallest).
pub fn of_run(
    samples: &[Sample],
    (copy, scale): (f64, f64),
    kernels: &[(String, f64, f64)],
) -> Figures {
    let (big, small) = (STRONG[STRONG.len() - 1], STRONG[0]);
    let cells = (big * big) as f64;
    let mut figures = Figures {
        kernels: vec![],
        overlap: vec![],
    };
    for (name, seconds, small_seconds) in kernels {
        let bw = 16.0 * cells / seconds;
        let in_cache = 16.0 * (small * small) as f64 / small_seconds;
        println!(
            "target 1, {name} kernel at 1 rank, {big}x{big}: update {:.1} GB/s = {:.0}% of the \
             copy bandwidth (target: at least 70%), {:.0}% of the scale loop's; in cache \
             ({small}x{small}): {:.1} GB/s",
            bw / 1e9,
            100.0 * bw / copy,
            100.0 * bw / scale,
            in_cache / 1e9
        );
        figures.kernels.push((name.clone(), 100.0 * bw / copy));
    }
    for &n in &STRONG {
        let (Some(b), Some(o)) = (
            at_two(samples, n, "Blocking"),
            at_two(samples, n, "Overlapped"),
        ) else {
            continue;
        };
        let most = b.compute_s.min(b.comm_s);
        let saved = b.step_s - o.step_s;
        let share = 100.0 * b.comm_s / b.step_s;
        println!(
            "target 2, 2 ranks, {n}x{n}: communication {share:.0}% of the blocking step; \
             overlapped {:.1} vs blocking {:.1} µs/step: saved {:.1} µs = {:.0}% of \
             min(compute, communication) = {:.1} µs",
            o.step_s * 1e6,
            b.step_s * 1e6,
            saved * 1e6,
            100.0 * saved / most,
            most * 1e6
        );
        figures
            .overlap
            .push((n, share, 100.0 * saved / most, saved * 1e6));
    }
    figures
}
// ANCHOR_END: targets

/// "min / median / max" of `values`.
fn spread(mut values: Vec<f64>, digits: usize) -> String {
    values.sort_by(f64::total_cmp);
    let one = |x: f64| format!("{x:.digits$}");
    let (lo, mid, hi) = (
        values[0],
        values[values.len() / 2],
        values[values.len() - 1],
    );
    format!("{} / {} / {}", one(lo), one(mid), one(hi))
}

/// min / median / max of every figure over the runs.
pub fn over_runs(runs: &[Figures]) {
    println!("over {} runs, min / median / max:", runs.len());
    for (i, (name, _)) in runs[0].kernels.iter().enumerate() {
        let pct = runs.iter().map(|r| r.kernels[i].1).collect();
        println!(
            "  {name} kernel: {}% of the copy bandwidth (target 70%)",
            spread(pct, 0)
        );
    }
    for (i, (n, ..)) in runs[0].overlap.iter().enumerate() {
        let f =
            |k: fn(&(usize, f64, f64, f64)) -> f64| runs.iter().map(|r| k(&r.overlap[i])).collect();
        println!(
            "  2 ranks, {n}x{n}: communication {}% of the blocking step; overlap saved {} µs \
             = {}% of min(compute, communication)",
            spread(f(|o| o.1), 0),
            spread(f(|o| o.3), 1),
            spread(f(|o| o.2), 0)
        );
    }
}
