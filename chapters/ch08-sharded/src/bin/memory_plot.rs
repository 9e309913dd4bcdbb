//! The memory plot: bytes held per rank against N = 1..8 for every stage of
//! `memory::Stage::ALL`, measured by the `zero` lab (rank 0's `held B` after one step of
//! the CNN, global batch 840 so that it splits over every N), drawn as rings over the
//! lines of the stages' formulas.
//!
//! Run: `cargo run --release -p ch08-sharded --features solution --bin memory_plot --
//! OUT.svg` (the `zero` binary of the same build must exist: `make outputs CH=08` builds
//! both). Prints the measured table (stage, N, held B, formula at P, formula at N*S) and
//! writes the SVG to OUT.svg. Expect held = the formula at N*S on every row.

use ch08::memory::{formula, Stage};
use std::process::Command;
use toolkit::plot::{linear_svg_dots, Series};

/// Rank 0's `held B` and the lab's P, S*N from one run of `zero` at `stage` on `n` ranks.
fn measure(zero: &std::path::Path, stage: Stage, n: usize) -> Result<(f64, usize, usize), String> {
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
    let held = row
        .split('│')
        .nth(5)
        .and_then(|c| c.trim().parse().ok())
        .ok_or_else(fail)?;
    let head = text
        .lines()
        .find(|l| l.starts_with("zero: stage"))
        .ok_or_else(fail)?;
    let num = |key: &str| -> Option<usize> {
        let rest = &head[head.find(key)? + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let (p, padded) = (
        num("P = ").ok_or_else(fail)?,
        num("N*S = ").ok_or_else(fail)?,
    );
    Ok((held, p, padded))
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
        "{:<9} {:>2} {:>10} {:>12} {:>12}",
        "stage", "N", "held B", "formula(P)", "formula(N*S)"
    );
    for &stage in Stage::ALL {
        let (mut measured, mut p) = (vec![], 0);
        for n in 1..=8 {
            let (held, params, padded) = measure(&zero, stage, n)?;
            p = params;
            let (at_p, at_padded) = (formula(stage, params, n), formula(stage, padded, n));
            println!(
                "{:<9} {n:>2} {held:>10} {at_p:>12.1} {at_padded:>12.1}",
                stage.name()
            );
            measured.push((n as f64, kb(held)));
        }
        let name = |what: &str| format!("{} {what}", stage.name());
        let line = (1..=8)
            .map(|n| (n as f64, kb(formula(stage, p, n))))
            .collect();
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
