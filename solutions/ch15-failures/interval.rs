//! Chapter 15 exercise 15.2, solved: how often to save (Young's first-order interval).

// ANCHOR: answer
/// The fraction of time lost per second of work: the saves plus half an interval per
/// failure.
pub fn waste(interval: f64, save: f64, mtbf: f64) -> f64 {
    save / interval + interval / (2.0 * mtbf)
}

/// The interval that makes [`waste`] smallest: `sqrt(2 save mtbf)`.
pub fn young_interval(save: f64, mtbf: f64) -> f64 {
    (2.0 * save * mtbf).sqrt()
}
// ANCHOR_END: answer
