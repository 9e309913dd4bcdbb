//! The tuner's table (part of the `tune` benchmark): per size, MPI_Allreduce under the
//! library's own choice, forced to each algorithm, and with the tuner's file, then ours
//! from the same launch as the table; the summary lines after it. `spread`: the
//! chosen algorithm's slowest forced round over its fastest. Nothing here runs MPI.

use super::{Library, Times, OURS};
use ch03::rules::AllreduceRules;
use std::collections::BTreeMap;

/// Within this factor of the fastest forced algorithm, the tuner chose well.
const NEAR_FASTEST: f64 = 1.1;

/// Prints the table of `p` ranks and its summary lines.
pub fn print(
    lib: &Library,
    p: u32,
    per_k: &BTreeMap<usize, Times>,
    spread: &BTreeMap<(usize, u64), f64>,
    sizes: &[u64],
    tuned: &Times,
    rules: &AllreduceRules,
) {
    let us = |t: f64| format!("{:.1}", t * 1e6);
    let at = |times: &Times, label: &str, b: u64| times[&(label.to_string(), b)];
    let n_alg = lib.algorithms.len();
    println!(
        "# {p} ranks: MPI_Allreduce time (us), best of the rounds that checked the table; columns 1-{} forced by {}",
        n_alg - 1,
        lib.knob
    );
    let mut head = format!("{:>9}", "size(B)");
    for name in lib.algorithms {
        head += &format!(" {name:>9}");
    }
    head += &format!(
        " {:>9} {:>4} {:>6} {:>6} |",
        "tuned", "alg", "/best", "spread"
    );
    for name in OURS {
        head += &format!(" {:>9}", format!("our {name}"));
    }
    println!("{head}");
    let (mut near, mut fixed_near, mut worst) = (0, 0, (0.0f64, 0));
    let mut noisy = 0.0f64; // the largest spread where the tuned call missed
    let (mut missed, mut right) = (0, 0); // misses; of them, where the choice was right
    for &b in sizes {
        let forced: Vec<f64> = (0..n_alg).map(|k| at(&per_k[&k], "mpi", b)).collect();
        let best = forced[1..].iter().copied().fold(f64::MAX, f64::min);
        let t = at(tuned, "mpi", b);
        let ratio = t / best;
        near += usize::from(ratio <= NEAR_FASTEST);
        fixed_near += usize::from(forced[0] / best <= NEAR_FASTEST);
        if ratio > worst.0 {
            worst = (ratio, b);
        }
        let mut row = format!("{b:>9}");
        for f in &forced {
            row += &format!(" {:>9}", us(*f));
        }
        let chosen = lib.choice(rules, u64::from(p), b);
        let own = spread[&(chosen, b)];
        if ratio > NEAR_FASTEST {
            noisy = noisy.max(own);
            missed += 1;
            right += usize::from(chosen > 0 && forced[chosen] / best <= NEAR_FASTEST);
        }
        row += &format!(" {:>9} {chosen:>4} {ratio:>6.2} {own:>6.2} |", us(t));
        for name in OURS {
            row += &format!(" {:>9}", us(at(tuned, name, b)));
        }
        println!("{row}");
    }
    let n = sizes.len();
    println!(
        "# {p} ranks: with the tuned table, MPI_Allreduce within {NEAR_FASTEST}x of the fastest forced algorithm at {near} of {n} sizes (worst {:.2}x at {} B); {}'s own choice at {fixed_near} of {n}",
        worst.0, worst.1, lib.name
    );
    if missed > 0 {
        println!("# {p} ranks: missed at {missed} size(s); at {right} of them the table's algorithm, forced in the same rounds, came within {NEAR_FASTEST}x of the fastest (the choice right, the launch with the table slower); its forced launches differed by up to {noisy:.2}x among themselves (spread)");
    }
    let ours_best = |b: u64| {
        OURS.iter()
            .map(|o| at(tuned, o, b))
            .fold(f64::MAX, f64::min)
    };
    let small = sizes[0];
    let large: Vec<String> = sizes
        .iter()
        .filter(|&&b| b >= 1 << 20)
        .map(|&b| format!("{:.2}", at(tuned, "mpi", b) / ours_best(b)))
        .collect();
    println!(
        "# {p} ranks: our best against MPI_Allreduce with the table (same launch): {:.2}x its time at {small} B; its time / ours at >= 1 MiB: {}",
        ours_best(small) / at(tuned, "mpi", small),
        if large.is_empty() { "-".into() } else { large.join(" ") }
    );
}
