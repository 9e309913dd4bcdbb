//! Exercise 5.7: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

use crate::links::{chunk_candidates, Links};

// ANCHOR: whole
/// Whole-buffer staging: copy in, allreduce, copy back.
pub fn whole(m: &Links, p: usize, bytes: usize) -> f64 {
    let n = bytes as f64;
    m.copy(n) + m.allreduce(p, n) + m.copy(n)
}
// ANCHOR_END: whole

// ANCHOR: pipelined
/// Double-buffered staging in chunks of `chunk` bytes: the allreduce of chunk k overlaps
/// the copy of chunk k+1.
pub fn pipelined(m: &Links, p: usize, bytes: usize, chunk: usize) -> f64 {
    if bytes == 0 {
        return 0.0;
    }
    let chunk = chunk.clamp(1, bytes);
    let k = bytes.div_ceil(chunk);
    let size = |i: usize| (chunk.min(bytes - i * chunk)) as f64;
    let mut t = m.copy(size(0));
    for i in 0..k - 1 {
        t += m.allreduce(p, size(i)).max(m.copy(size(i + 1))) + m.copy(size(i));
    }
    t + m.allreduce(p, size(k - 1)) + m.copy(size(k - 1))
}
// ANCHOR_END: pipelined

// ANCHOR: best
/// The fastest candidate chunk (the smallest on a tie) and its time.
pub fn best_chunk(m: &Links, p: usize, bytes: usize) -> (usize, f64) {
    let mut best = (bytes.max(1), pipelined(m, p, bytes, bytes.max(1)));
    for c in chunk_candidates(bytes) {
        let t = pipelined(m, p, bytes, c);
        if t < best.1 || (t == best.1 && c < best.0) {
            best = (c, t);
        }
    }
    best
}
// ANCHOR_END: best
