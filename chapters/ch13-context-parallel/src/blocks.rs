//! Given: the sequence cut into one block per rank, and a key/value block as one flat
//! message; the zig-zag layout and the causal work each layout gives a rank.
//!
//! In the plain layout rank `r` of `p` holds tokens `r·t .. (r+1)·t` (`t = seq / p`) of
//! the queries, the keys and the values. In the zig-zag layout (ex 13.3) it holds two
//! chunks of `seq / 2p` tokens, `r` and `2p - 1 - r`. Ring attention (ex 13.2) passes each key/value
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

/// The two chunks rank `rank` of `p` holds in the zig-zag layout, where the sequence is cut
/// into `2p` chunks: chunk `rank` (early) and chunk `2p - 1 - rank` (late), so that every
/// rank holds as much of the causal mask's work as every other.
pub fn zigzag_chunks(rank: usize, p: usize) -> [usize; 2] {
    [rank, 2 * p - 1 - rank]
}

/// Rank `rank`'s part of `x` (`[batch, heads, seq, head_dim]`) in the zig-zag layout: its
/// two chunks of `seq / 2p` tokens ([`zigzag_chunks`]), one after the other along the
/// sequence (`2p` must divide `seq`).
pub fn zigzag_of(x: &Tensor, rank: usize, p: usize) -> Tensor {
    let chunks: Vec<Tensor> = zigzag_chunks(rank, p)
        .iter()
        .map(|&c| block_of(x, c, 2 * p))
        .collect();
    Tensor::cat(&chunks, 2)
}

/// How the sequence is cut over the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One block of `seq / p` tokens per rank, in order ([`block_of`]).
    Plain,
    /// Two chunks of `seq / 2p` tokens per rank, `r` and `2p - 1 - r` ([`zigzag_of`]).
    ZigZag,
}

/// The pairs of a query chunk and a key chunk (each `seq / 2p` tokens) that rank `rank` of
/// `p` computes under a causal mask, a pair on the diagonal counted as one: in the plain
/// layout its block of two chunks against each earlier block (4 pairs each) and its own (3
/// pairs: the upper one is all future), `4 rank + 3`; in the zig-zag layout 3 pairs with
/// its own chunks and 2 with every other rank's, `2p + 1` on every rank. Both sum to
/// `p (2p + 1)` over the ranks.
pub fn pairs_computed(rank: usize, p: usize, layout: Layout) -> usize {
    match layout {
        Layout::Plain => 4 * rank + 3,
        Layout::ZigZag => 2 * p + 1,
    }
}
