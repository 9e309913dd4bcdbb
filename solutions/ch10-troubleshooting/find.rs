//! Chapter 10 exercise 10.1: solution.

use crate::matrix::PairFit;
pub use crate::matrix::SlowLink;

// ANCHOR: find_slow_links
/// The links slower than `factor` times the median link for `bytes` bytes, slowest first.
pub fn find_slow_links(fits: &[PairFit], bytes: usize, factor: f64) -> Vec<SlowLink> {
    if fits.is_empty() {
        return vec![];
    }
    let time = |f: &PairFit| f.link.predict(bytes as f64);
    let mut times: Vec<f64> = fits.iter().map(time).collect();
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = (times[(n - 1) / 2] + times[n / 2]) / 2.0;
    let mut slow: Vec<SlowLink> = fits
        .iter()
        .filter(|f| time(f) > factor * median)
        .map(|f| SlowLink {
            a: f.a,
            b: f.b,
            times_median: time(f) / median,
        })
        .collect();
    slow.sort_by(|x, y| y.times_median.total_cmp(&x.times_median));
    slow
}
// ANCHOR_END: find_slow_links
