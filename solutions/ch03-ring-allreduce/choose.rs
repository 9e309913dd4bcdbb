//! Chapter 3 exercise 3.5: solution.

use crate::cost::{predict, Algorithm, Costs};

// ANCHOR: choose_algorithm
/// The algorithm with the smaller predicted time; recursive doubling on a tie.
pub fn choose_algorithm(model: &impl Costs, p: usize, bytes: usize) -> Algorithm {
    let doubling = predict(Algorithm::RecursiveDoubling, model, p, bytes);
    let ring = predict(Algorithm::SegmentedRing, model, p, bytes);
    if ring < doubling {
        Algorithm::SegmentedRing
    } else {
        Algorithm::RecursiveDoubling
    }
}
// ANCHOR_END: choose_algorithm
