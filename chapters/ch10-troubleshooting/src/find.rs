//! Chapter 10 exercise 10.1: find the slow links in a link-timing matrix.
//!
//! Each link's fit predicts the time of one message; a link is slow when that time is
//! more than `factor` times the **median** over all links. The median, not the mean: a
//! few very slow links pull the mean up until they no longer stand out from it. Check with
//! `make check CH=10`.
#![allow(unused_variables)] // the stub does not use its arguments yet

use crate::matrix::PairFit;
pub use crate::matrix::SlowLink;

// ANCHOR: find_slow_links
/// The links whose predicted time for a message of `bytes` bytes is more than `factor`
/// times the median of all links' times, slowest first. The median of an even count is
/// the mean of the two middle times. No links: none slow.
pub fn find_slow_links(fits: &[PairFit], bytes: usize, factor: f64) -> Vec<SlowLink> {
    // TODO(ex 10.1): each link's time, their median, the links above factor x median
    todo!("ex 10.1: find the links slower than the median by more than the factor")
}
// ANCHOR_END: find_slow_links
