//! Exercise 7.1: cut a model's layers into stages so that the slowest stage is as fast as
//! it can be.
//!
//! Check: `make check CH=07` (tests `ex7_1_*`: random costs of 1 to 10 layers cut into
//! every possible number of stages, compared with a brute force over every split; bad
//! settings refused in one line).
#![allow(unused_variables)] // the stub does not use its arguments yet

use std::ops::Range;

// ANCHOR: split_stages
/// Cuts layers with the measured `costs` (`costs[i]`: the time of layer `i`, forward and
/// backward) into `p` stages: `p` contiguous, non-empty ranges of layer indices that
/// cover `0..costs.len()` in order. Among all such splits, returns one whose largest
/// stage cost (the sum of its layers' costs: the pipeline's bottleneck) is smallest.
///
/// Refused in one line: `p == 0`, more stages than layers, and a cost that is negative
/// or not finite.
pub fn split_stages(costs: &[f64], p: usize) -> Result<Vec<Range<usize>>, String> {
    // TODO(ex 7.1): refuse bad settings, then find the split with the smallest bottleneck
    todo!("ex 7.1: cut the layers into p contiguous stages, the slowest as fast as possible")
}
// ANCHOR_END: split_stages
