//! Chapter 10 exercise 10.5: solution.

// ANCHOR: time_waited
/// For each rank, the seconds it waited for the last arrival, summed over the collectives.
pub fn time_waited(at: &[Vec<f64>]) -> Vec<f64> {
    let mut waited = vec![0.0; at.first().map_or(0, Vec::len)];
    for row in at {
        let latest = row.iter().copied().fold(f64::MIN, f64::max);
        for (w, &t) in waited.iter_mut().zip(row) {
            *w += latest - t;
        }
    }
    waited
}
// ANCHOR_END: time_waited
