//! A small SVG line plot with logarithmic axes, for size sweeps (time or bandwidth vs
//! message size). No dependencies: the file is plain text any browser shows.

/// One line of the plot: a name for the legend and its (x, y) points, x ascending.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

/// Renders `series` on log-log axes. Points with x <= 0 or y <= 0 are left out (a log
/// axis has no place for them).
pub fn loglog_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let all = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|(x, y)| *x > 0.0 && *y > 0.0);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    let (lx0, lx1) = (
        x0.log10().floor(),
        x1.log10().ceil().max(x0.log10().floor() + 1.0),
    );
    let (ly0, ly1) = (
        y0.log10().floor(),
        y1.log10().ceil().max(y0.log10().floor() + 1.0),
    );
    let px = |x: f64| LEFT + (x.log10() - lx0) / (lx1 - lx0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y.log10() - ly0) / (ly1 - ly0) * (H - TOP - BOTTOM);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        (W - RIGHT + LEFT) / 2.0,
        escape(title)
    );
    for d in lx0 as i32..=lx1 as i32 {
        let x = px(10f64.powi(d));
        svg += &format!(
            "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#ddd\"/>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">1e{d}</text>\n",
            H - BOTTOM,
            H - BOTTOM + 16.0
        );
    }
    for d in ly0 as i32..=ly1 as i32 {
        let y = py(10f64.powi(d));
        svg += &format!(
            "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">1e{d}</text>\n",
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n<text x=\"18\" y=\"{}\" \
         text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{}</text>\n",
        (W - RIGHT + LEFT) / 2.0,
        H - 16.0,
        escape(x_label),
        H / 2.0,
        H / 2.0,
        escape(y_label)
    );
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts = s.points.iter().filter(|(x, y)| *x > 0.0 && *y > 0.0);
        let path: Vec<String> = pts
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n\
             <text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>\n",
            path.join(" "),
            W - RIGHT + 10.0,
            TOP + 18.0 * i as f64 + 10.0,
            escape(&s.name)
        );
    }
    svg + "</svg>\n"
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_has_one_line_per_series_and_skips_non_positive_points() {
        let s = |name: &str| Series {
            name: name.into(),
            points: vec![(0.0, 1.0), (8.0, 2.0), (1e6, 3e3)],
        };
        let svg = loglog_svg("t <1>", "bytes", "us", &[s("a"), s("b")]);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("t &lt;1&gt;"));
        let first = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(
            first.split(' ').count(),
            2,
            "the x = 0 point must be left out: {first}"
        );
    }
}
