//! Text-art timelines of a checked schedule: one row per stage, one cell per time unit,
//! `F3` / `B3` while a stage runs micro-batch 3's forward / backward, `.` while it waits.
//! Given code, for the `schedules` and `after_1f1b` labs.

use crate::plan::{Action, Pass};
use crate::rank_check::{PassCosts, PlanReport};
use crate::schedule_check::{Costs, Report};

// ANCHOR: draw
/// Draws `report` (simulated with `costs`), a cell of `width` characters per time unit.
pub fn draw(report: &Report, costs: Costs, width: usize) -> String {
    let mut text = String::new();
    for (s, stage) in report.stages.iter().enumerate() {
        let mut cells = vec![".".to_string(); report.makespan as usize];
        for &(start, op) in &stage.starts {
            let label = match op {
                Action::Forward(mb) => format!("F{mb}"),
                Action::Backward(mb) => format!("B{mb}"),
            };
            for t in start..start + costs.of(op) {
                cells[t as usize] = label.clone();
            }
        }
        let row: String = cells.iter().map(|c| format!("{c:<width$}")).collect();
        text.push_str(&format!("stage {s} | {}\n", row.trim_end()));
    }
    text
}
// ANCHOR_END: draw

// ANCHOR: draw_ranks
/// Draws a checked plan by rank: one row per rank, `F3` / `B3` / `W3` while it runs
/// micro-batch 3's forward / backward (whole, or its input-gradient half) / weight
/// gradient; lower case (`f3`, `b3`, `w3`) on the odd chunks (stages `p..2p`, `3p..4p`,
/// ...), so that interleaved chunks tell apart.
pub fn draw_ranks(report: &PlanReport, costs: PassCosts, width: usize) -> String {
    let p = report.ranks.len();
    let mut text = String::new();
    for (r, rank) in report.ranks.iter().enumerate() {
        let mut cells = vec![".".to_string(); report.makespan as usize];
        for &(start, t) in &rank.starts {
            let letter = match t.pass {
                Pass::Forward => "F",
                Pass::Backward | Pass::InputGrad => "B",
                Pass::WeightGrad => "W",
            };
            let label = match (t.stage / p) % 2 {
                0 => format!("{letter}{}", t.mb),
                _ => format!("{}{}", letter.to_lowercase(), t.mb),
            };
            for at in start..start + costs.of(t.pass) {
                cells[at as usize] = label.clone();
            }
        }
        let row: String = cells.iter().map(|c| format!("{c:<width$}")).collect();
        text.push_str(&format!("rank {r} | {}\n", row.trim_end()));
    }
    text
}
// ANCHOR_END: draw_ranks
