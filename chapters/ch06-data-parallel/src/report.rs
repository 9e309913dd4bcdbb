//! Given: what rank 0 prints while training (a progress line, fixed-width epoch lines,
//! a summary table) and a linear SVG line plot for the loss and accuracy curves.

use std::io::Write;
use tabled::Tabled;
use toolkit::plot::Series;

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

/// Renders `series` on linear axes from 0 (y) and from the first x.
pub fn linear_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"];
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 70.0, 170.0, 40.0, 55.0);
    let pts = || series.iter().flat_map(|s| s.points.iter());
    let x0 = pts().map(|p| p.0).fold(f64::MAX, f64::min).min(1.0);
    let x1 = pts().map(|p| p.0).fold(f64::MIN, f64::max).max(x0 + 1.0);
    let y1 = pts().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.05;
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| h - bottom - y / y1 * (h - top - bottom);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">\
         {title}</text>\n",
        w / 2.0
    );
    for i in 0..=5 {
        let (y, x) = (y1 * f64::from(i) / 5.0, x0 + (x1 - x0) * f64::from(i) / 5.0);
        s += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{y:.2}</text>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x:.0}</text>\n",
            w - right,
            py(y),
            left - 6.0,
            py(y) + 4.0,
            px(x),
            h - bottom + 18.0
        );
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x_label}</text>\n<text x=\"18\" \
         y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{y_label}</text>\n",
        (left + w - right) / 2.0,
        h - 15.0,
        h / 2.0,
        h / 2.0
    );
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let path: Vec<String> = ser
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        s += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n\
             <text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>\n",
            path.join(" "),
            w - right + 10.0,
            top + 20.0 + 18.0 * i as f64,
            ser.name
        );
    }
    s + "</svg>\n"
}
