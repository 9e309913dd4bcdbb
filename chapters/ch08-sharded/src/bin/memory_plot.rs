//! The memory plot: bytes held per rank against N = 1..8 for every stage of
//! `budget::STAGES` (every stage the lab has), measured by the `zero` lab (rank 0's `held B` after one step of
//! the CNN, global batch 840 so that it splits over every N), drawn as rings over the
//! lines of the stages' formulas (the lab's own `formula B`, at P).
//!
//! Run: `cargo run --release -p ch08-sharded --features solution --bin memory_plot --
//! OUT.svg` (the `zero` binary of the same build must exist: `make outputs CH=08` builds
//! both). Prints the measured table (stage, N, held B, formula B, held - formula) and
//! writes the SVG to OUT.svg. Expect held - formula to be the padding's share (stages 1
//! and 2: fewer than N elements), 0 for stage 0 and for stage 3 (whose formula counts
//! its gathered layer, 8L).

use ch08::budget::STAGES;
use ch08::memory::Stage;
use std::process::Command;
use toolkit::plot::{linear_svg_dots, Series};

/// Rank 0's `held B` and `formula B` from one run of `zero` at `stage` on `n` ranks.
fn measure(zero: &std::path::Path, stage: Stage, n: usize) -> Result<(f64, f64), String> {
    let out = Command::new(zero)
        .args([
            "--batch",
            "840", // splits over every N from 1 to 8 (their least common multiple)
            "--stage",
            &stage.number().to_string(),
            "--max-steps",
            "1",
            "--quiet",
        ])
        .env("NP", n.to_string())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", zero.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let fail = || {
        format!(
            "zero --stage {} at NP={n}: {}",
            stage.number(),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    if !out.status.success() {
        return Err(fail());
    }
    let row = text
        .lines()
        .find(|l| l.starts_with("│ 0 "))
        .ok_or_else(fail)?;
    let cell = |k: usize| -> Option<f64> { row.split('│').nth(k)?.trim().parse().ok() };
    // columns: rank, params, grads, Adam, held, formula (the lab's, at P), ...
    Ok((cell(5).ok_or_else(fail)?, cell(6).ok_or_else(fail)?))
}

fn main() -> Result<(), String> {
    let svg = std::env::args()
        .nth(1)
        .ok_or("usage: memory_plot OUT.svg")?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let zero = exe.with_file_name("zero");
    let kb = |b: f64| b / 1000.0;
    let (mut lines, mut dots) = (vec![], vec![]);
    println!(
        "{:<9} {:>2} {:>10} {:>12} {:>14}",
        "stage", "N", "held B", "formula B", "held - formula"
    );
    for stage in STAGES {
        let (mut measured, mut line) = (vec![], vec![]);
        for n in 1..=8 {
            let (held, formula) = measure(&zero, stage, n)?;
            let over = held - formula;
            println!(
                "{:<9} {n:>2} {held:>10} {formula:>12.1} {over:>14.1}",
                stage.name()
            );
            measured.push((n as f64, kb(held)));
            line.push((n as f64, kb(formula)));
        }
        let name = |what: &str| format!("{} {what}", stage.name());
        lines.push(Series {
            name: name(stage.formula_text()),
            points: line,
        });
        dots.push(Series {
            name: name("measured"),
            points: measured,
        });
    }
    let title = "Bytes held per rank: the CNN, f32 + Adam";
    let picture = linear_svg_dots(title, "ranks N", "kB held by rank 0", &lines, &dots);
    std::fs::write(&svg, picture).map_err(|e| format!("{svg}: {e}"))?;
    println!("wrote {svg}");
    Ok(())
}
