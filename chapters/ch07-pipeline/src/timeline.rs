//! Text-art timelines of a checked schedule: one row per stage, one cell per time unit,
//! `F3` / `B3` while a stage runs micro-batch 3's forward / backward, `.` while it waits.
//! Given code, for the `schedules` lab.

use crate::plan::Action;
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
