//! Exercise 5.7: the cost of staging, whole or in double-buffered chunks.
//!
//! Check: `make check CH=05` (tests `ex5_7_*`: a worked example, one chunk equals the
//! whole buffer, predictions grow with the bytes, the best chunk is one of the candidates
//! and no slower than any).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::links::{chunk_candidates, Links};

// ANCHOR: whole
/// Whole-buffer staging of `bytes` bytes over `p` ranks: copy all of it to the host,
/// allreduce it, copy it back; one after the other.
pub fn whole(m: &Links, p: usize, bytes: usize) -> f64 {
    // TODO(ex 5.7): a copy, the allreduce, a copy (Links::copy, Links::allreduce)
    todo!("ex 5.7: add the three steps of whole-buffer staging")
}
// ANCHOR_END: whole

// ANCHOR: pipelined
/// Double-buffered staging in chunks of `chunk` bytes (`k = ceil(bytes / chunk)` chunks,
/// the last one `r` bytes, maybe shorter), as ex 5.6 runs it: copy chunk 0 in; then for
/// each chunk k, its allreduce runs *while* chunk k+1 is copied in (the slower of the two
/// decides), then chunk k is copied back. With `d(x)` a copy, `a(x)` an allreduce:
///
/// `T = d(c) + Σ_{k<K-1} [max(a(c_k), d(c_{k+1})) + d(c_k)] + a(r) + d(r)`.
///
/// One chunk (`chunk >= bytes`) is [`whole`]; no bytes cost nothing.
pub fn pipelined(m: &Links, p: usize, bytes: usize, chunk: usize) -> f64 {
    // TODO(ex 5.7): the sum above; the first and last chunk are the special cases
    todo!("ex 5.7: price the double-buffered pipeline chunk by chunk")
}
// ANCHOR_END: pipelined

// ANCHOR: best
/// The chunk among `chunk_candidates(bytes)` that [`pipelined`] predicts fastest (the
/// smallest such chunk on a tie), and its time.
pub fn best_chunk(m: &Links, p: usize, bytes: usize) -> (usize, f64) {
    // TODO(ex 5.7): try every candidate, keep the fastest
    todo!("ex 5.7: search the candidate chunks for the fastest pipeline")
}
// ANCHOR_END: best
