//! Given: what rank 0 prints while training (a progress line, fixed-width epoch lines,
//! a summary table, which `bin/train.rs` also saves as CSV and plots with the toolkit).

use std::io::Write;
use tabled::Tabled;

/// An in-place progress line on stderr (`\r`), only when `enabled` (a terminal).
pub struct Progress {
    pub enabled: bool,
}

impl Progress {
    /// Shows `done` of `total` steps of `epoch`.
    pub fn show(&self, epoch: u64, done: usize, total: usize) {
        if self.enabled && total > 0 {
            let filled = 30 * done / total;
            let bar = format!("{}{}", "#".repeat(filled), ".".repeat(30 - filled));
            let _ = write!(
                std::io::stderr(),
                "\repoch {epoch:4} [{bar}] {done}/{total}"
            );
        }
    }
    /// Clears the line.
    pub fn clear(&self) {
        if self.enabled {
            let _ = write!(std::io::stderr(), "\r{}\r", " ".repeat(60));
        }
    }
}

/// One epoch's figures, reduced over ranks.
#[derive(Clone, Debug, Tabled)]
pub struct EpochLog {
    #[tabled(rename = "epoch")]
    pub epoch: u64,
    #[tabled(rename = "train loss", display_with = "f4")]
    pub train_loss: f64,
    #[tabled(rename = "test loss", display_with = "f4")]
    pub test_loss: f64,
    #[tabled(rename = "test acc %", display_with = "f2")]
    pub test_acc: f64,
    #[tabled(rename = "samples/s", display_with = "f0")]
    pub samples_per_s: f64,
    #[tabled(rename = "sync s", display_with = "f3")]
    pub sync_s: f64,
    #[tabled(rename = "sync % of step", display_with = "f1")]
    pub sync_share: f64,
}

fn f0(x: &f64) -> String {
    format!("{x:.0}")
}
fn f3(x: &f64) -> String {
    format!("{x:.3}")
}
fn f1(x: &f64) -> String {
    format!("{x:.1}")
}
fn f2(x: &f64) -> String {
    format!("{x:.2}")
}
fn f4(x: &f64) -> String {
    format!("{x:.4}")
}

// ANCHOR: epoch_line
impl EpochLog {
    /// The fixed-width line printed at the end of each epoch.
    pub fn line(&self) -> String {
        format!(
            "epoch {:4} | train loss {:8.5} | test acc {:6.2}% | {:8.0} samples/s | \
             sync {:7.3} s ({:4.1}% of step)",
            self.epoch,
            self.train_loss,
            self.test_acc,
            self.samples_per_s,
            self.sync_s,
            self.sync_share
        )
    }
}
// ANCHOR_END: epoch_line
