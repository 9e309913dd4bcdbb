//! Given: the sequence cut into one block per rank, and a key/value block as one flat
//! message.
//!
//! In the plain layout rank `r` of `p` holds tokens `r·t .. (r+1)·t` (`t = seq / p`) of
//! the queries, the keys and the values. Ring attention (ex 13.2) passes each key/value
//! block from rank to rank: [`pack`] puts `k` and `v` one after the other in an f64
//! buffer, [`unpack`] takes them out again. Nothing to run here: the exercises, the lab and
//! the tests use it.

use tch::{Kind, Tensor};

/// Rank `rank`'s block of `x` (`[batch, heads, seq, head_dim]`) out of `p` along the
/// sequence: tokens `rank·t .. (rank+1)·t`, `t = seq / p` (`p` must divide `seq`).
pub fn block_of(x: &Tensor, rank: usize, p: usize) -> Tensor {
    let seq = x.size()[2];
    assert_eq!(
        seq % p as i64,
        0,
        "{p} ranks do not divide a sequence of {seq} tokens"
    );
    let t = seq / p as i64;
    x.narrow(2, rank as i64 * t, t).contiguous()
}

/// `k` then `v` (f64, the same shape) in one buffer: what one ring step sends.
pub fn pack(k: &Tensor, v: &Tensor) -> Vec<f64> {
    let flat = Tensor::cat(&[k.flatten(0, -1), v.flatten(0, -1)], 0).to_kind(Kind::Double);
    Vec::<f64>::try_from(&flat).expect("f64 values")
}

/// The `k` and `v` of shape `shape` that [`pack`] put in `buf`.
pub fn unpack(buf: &[f64], shape: &[i64]) -> (Tensor, Tensor) {
    let n = buf.len() / 2;
    (
        Tensor::from_slice(&buf[..n]).view(shape),
        Tensor::from_slice(&buf[n..]).view(shape),
    )
}

/// The blocks of keys rank `rank` of `p` attends to in the plain layout: all `p` of them,
/// or, causal, the blocks `0..=rank` (the later ones are all in its future).
pub fn blocks_attended(rank: usize, p: usize, causal: bool) -> usize {
    if causal {
        rank + 1
    } else {
        p
    }
}
