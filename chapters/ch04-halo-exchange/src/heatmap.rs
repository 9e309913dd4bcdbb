//! Given: an SVG heat map of the temperature field, written by hand (one `<rect>` per
//! cell, or per block of cells on large grids), with the ranks' blocks outlined.

use crate::topology::Decomposition;

/// Colour stops from cold to hot (black, purple, red, orange, light yellow).
const STOPS: [(f64, [f64; 3]); 5] = [
    (0.0, [0.0, 0.0, 4.0]),
    (0.25, [87.0, 16.0, 110.0]),
    (0.5, [188.0, 55.0, 84.0]),
    (0.75, [249.0, 142.0, 9.0]),
    (1.0, [252.0, 255.0, 164.0]),
];

/// The colour of temperature `t` in `0..=1` (clamped), as `#rrggbb`.
pub fn colour(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let k = STOPS.iter().position(|s| s.0 >= t).unwrap_or(4).max(1);
    let ((t0, c0), (t1, c1)) = (STOPS[k - 1], STOPS[k]);
    let a = (t - t0) / (t1 - t0);
    let mix = |i: usize| (c0[i] + a * (c1[i] - c0[i])).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2))
}

/// An SVG heat map of `field` (`rows x cols`, row-major), at most `max_cells` squares
/// across (each the mean of its cells), with the blocks of `decomp` outlined in white.
pub fn heatmap_svg(title: &str, field: &[f64], decomp: &Decomposition, max_cells: usize) -> String {
    let (rows, cols) = (decomp.problem.rows, decomp.problem.cols);
    let k = rows.max(cols).div_ceil(max_cells.max(1)).max(1); // cells per square side
    let px = (480.0 / rows.max(cols).div_ceil(k) as f64).max(1.0); // pixels per square
    let scale = px / k as f64; // pixels per cell
    let (w, h) = (cols as f64 * scale, rows as f64 * scale);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" \
         font-family=\"sans-serif\" font-size=\"13\" shape-rendering=\"crispEdges\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\">{title}</text>\n<g transform=\"translate(10 30)\">\n",
        w + 20.0,
        h + 40.0
    );
    for bi in (0..rows).step_by(k) {
        for bj in (0..cols).step_by(k) {
            let (i1, j1) = ((bi + k).min(rows), (bj + k).min(cols));
            let cells = (bi..i1).flat_map(|i| (bj..j1).map(move |j| i * cols + j));
            let mean = cells.clone().map(|c| field[c]).sum::<f64>() / cells.count() as f64;
            svg += &format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>\n",
                bj as f64 * scale,
                bi as f64 * scale,
                (j1 - bj) as f64 * scale,
                (i1 - bi) as f64 * scale,
                colour(mean)
            );
        }
    }
    for pr in 0..decomp.dims[0] {
        for pc in 0..decomp.dims[1] {
            let (r, c) = (decomp.rows_of(pr), decomp.cols_of(pc));
            svg += &format!(
                "<rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"none\" \
                 stroke=\"white\" stroke-dasharray=\"4 3\"/>\n",
                c.start as f64 * scale,
                r.start as f64 * scale,
                c.len() as f64 * scale,
                r.len() as f64 * scale
            );
        }
    }
    svg + "</g>\n</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::colour;

    #[test]
    fn colours_run_from_the_cold_stop_to_the_hot_stop() {
        assert_eq!(colour(0.0), "#000004");
        assert_eq!(colour(1.0), "#fcffa4");
        assert_eq!(colour(7.0), "#fcffa4");
        assert_eq!(colour(0.5), "#bc3754");
    }
}
