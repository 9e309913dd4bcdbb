//! Small SVG line plots: log-log axes for sweeps over sizes or rank counts
//! ([`loglog_svg`]), linear axes for curves over epochs ([`linear_svg`]). No
//! dependencies: the file is plain text any browser shows. Text is XML-escaped.

use crate::xml::xml_escape;

/// One line of the plot: a name for the legend and its (x, y) points, x ascending.
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points, in the order the line joins them.
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

/// Renders `series` on log-log axes, one grid line per decade. Points with x <= 0 or
/// y <= 0 are left out (a log axis has no place for them).
pub fn loglog_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let positive = |&(x, y): &(f64, f64)| x > 0.0 && y > 0.0;
    let all = series.iter().flat_map(|s| s.points.iter()).copied();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, y) in all.filter(positive) {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    let decades = |lo: f64, hi: f64| {
        let first = lo.log10().floor();
        (first, hi.log10().ceil().max(first + 1.0))
    };
    let ((lx0, lx1), (ly0, ly1)) = (decades(x0, x1), decades(y0, y1));
    let px = |x: f64| LEFT + (x.log10() - lx0) / (lx1 - lx0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y.log10() - ly0) / (ly1 - ly0) * (H - TOP - BOTTOM);
    let mut grid = String::new();
    for d in lx0 as i32..=lx1 as i32 {
        grid += &x_tick(px(10f64.powi(d)), &format!("1e{d}"));
    }
    for d in ly0 as i32..=ly1 as i32 {
        grid += &y_tick(py(10f64.powi(d)), &format!("1e{d}"));
    }
    render([title, x_label, y_label], series, &grid, (px, py), positive)
}

/// Renders `series` on linear axes: y from 0 to 5% above the largest y, x from the
/// smallest x (1 at most) to the largest; six labelled grid lines on each axis.
pub fn linear_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    linear_svg_dots(title, x_label, y_label, series, &[])
}

/// Where the x axis is labelled: six even ticks, or, when every x is a whole number (a
/// rank count), whole numbers only (every one up to 11 of them), so that no label is a
/// rounded 2.4 saying "2".
fn x_ticks(x0: f64, x1: f64, whole: bool) -> Vec<f64> {
    if !whole {
        return (0..=5)
            .map(|i| x0 + (x1 - x0) * f64::from(i) / 5.0)
            .collect();
    }
    let step = ((x1 - x0) / 10.0).ceil().max(1.0);
    let first = x0.ceil();
    (0..)
        .map(|i| first + step * f64::from(i))
        .take_while(|x| *x <= x1)
        .collect()
}

/// [`linear_svg`] with `dots` too: series drawn as points (a ring at each, no line), for
/// measured values next to the lines of a formula; dots `i` take the colour of line `i`.
/// The axes take in both.
pub fn linear_svg_dots(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    dots: &[Series],
) -> String {
    let pts = || series.iter().chain(dots).flat_map(|s| s.points.iter());
    let x0 = pts().map(|p| p.0).fold(f64::MAX, f64::min).min(1.0);
    let x1 = pts().map(|p| p.0).fold(f64::MIN, f64::max).max(x0 + 1.0);
    let y1 = pts().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.05;
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - y / y1 * (H - TOP - BOTTOM);
    let mut grid = String::new();
    for x in x_ticks(x0, x1, pts().all(|p| p.0.fract() == 0.0)) {
        grid += &x_tick(px(x), &format!("{x:.0}"));
    }
    for i in 0..=5 {
        let y = y1 * f64::from(i) / 5.0;
        grid += &y_tick(py(y), &format!("{y:.2}"));
    }
    let mut svg = render([title, x_label, y_label], series, &grid, (&px, &py), |_| {
        true
    });
    svg.truncate(svg.len() - "</svg>\n".len());
    for (i, s) in dots.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        for &(x, y) in &s.points {
            svg += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"none\" stroke=\"{color}\" \
                 stroke-width=\"2\"/>\n",
                px(x),
                py(y)
            );
        }
        let at = TOP + 18.0 * (series.len() + i) as f64 + 10.0;
        svg += &format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"none\" stroke=\"{color}\" \
             stroke-width=\"2\"/><text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>\n",
            W - RIGHT + 14.0,
            at - 4.0,
            W - RIGHT + 24.0,
            at,
            xml_escape(&s.name)
        );
    }
    svg + "</svg>\n"
}

/// A vertical grid line at `x` with its label under the axis.
fn x_tick(x: f64, label: &str) -> String {
    format!(
        "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#ddd\"/>\
         <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        H - BOTTOM,
        H - BOTTOM + 16.0,
        xml_escape(label)
    )
}

/// A horizontal grid line at `y` with its label left of the axis.
fn y_tick(y: f64, label: &str) -> String {
    format!(
        "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\
         <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
        W - RIGHT,
        LEFT - 6.0,
        y + 4.0,
        xml_escape(label)
    )
}

/// The whole picture: title, `grid`, axis labels, and one polyline and legend entry per
/// series, its points (those `keep` accepts) placed by `px` and `py`.
fn render(
    [title, x_label, y_label]: [&str; 3],
    series: &[Series],
    grid: &str,
    (px, py): (impl Fn(f64) -> f64, impl Fn(f64) -> f64),
    keep: impl Fn(&(f64, f64)) -> bool,
) -> String {
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        (W - RIGHT + LEFT) / 2.0,
        xml_escape(title)
    );
    svg += grid;
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n<text x=\"18\" y=\"{}\" \
         text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{}</text>\n",
        (W - RIGHT + LEFT) / 2.0,
        H - 16.0,
        xml_escape(x_label),
        H / 2.0,
        H / 2.0,
        xml_escape(y_label)
    );
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let path: Vec<String> = (s.points.iter().filter(|p| keep(p)))
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n\
             <text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>\n",
            path.join(" "),
            W - RIGHT + 10.0,
            TOP + 18.0 * i as f64 + 10.0,
            xml_escape(&s.name)
        );
    }
    svg + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_x_values_get_whole_ticks() {
        let one_to_eight: Vec<f64> = (1..=8).map(f64::from).collect();
        assert_eq!(x_ticks(1.0, 8.0, true), one_to_eight);
        assert_eq!(x_ticks(1.0, 64.0, true)[..3], [1.0, 8.0, 15.0]);
        assert_eq!(x_ticks(0.0, 1.0, false).len(), 6);
    }

    #[test]
    fn dots_are_rings_on_the_lines_axes() {
        let line = |name: &str, y: f64| Series {
            name: name.into(),
            points: vec![(1.0, y), (4.0, y / 2.0)],
        };
        let svg = linear_svg_dots("t", "x", "y", &[line("f", 10.0)], &[line("m", 20.0)]);
        // Two points and one legend mark, in the line's colour; the y axis reaches 20 * 1.05.
        assert_eq!(svg.matches("<circle").count(), 3, "{svg}");
        assert_eq!(svg.matches(&format!("stroke=\"{}\"", COLORS[0])).count(), 4);
        assert!(
            svg.contains(">21.00<") && svg.ends_with("</svg>\n"),
            "{svg}"
        );
    }

    fn series(name: &str) -> Series {
        Series {
            name: name.into(),
            points: vec![(0.0, 1.0), (8.0, 2.0), (1e6, 3e3)],
        }
    }

    fn first_points(svg: &str) -> &str {
        let after = svg.split("points=\"").nth(1).unwrap();
        after.split('"').next().unwrap()
    }

    #[test]
    fn a_plot_has_one_line_per_series_and_skips_non_positive_points() {
        let svg = loglog_svg("t <1>", "bytes", "us", &[series("a"), series("b")]);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("t &lt;1&gt;"));
        let first = first_points(&svg);
        assert_eq!(
            first.split(' ').count(),
            2,
            "the x = 0 point must be left out: {first}"
        );
    }

    #[test]
    fn a_linear_plot_keeps_every_point_and_escapes_its_text() {
        let svg = linear_svg("loss & \"acc\"", "epoch", "%", &[series("a < b")]);
        assert!(svg.contains("loss &amp; &quot;acc&quot;") && svg.contains("a &lt; b"));
        assert_eq!(first_points(&svg).split(' ').count(), 3);
    }
}
