//! Given: what the labs share besides their timing (`crate::timing`): the queries, keys
//! and values every rank draws alike, and the first call of ex 13.1 made on every rank at
//! once. Nothing to run here: the labs use it.

use crate::flags::RingFlags;
use crate::merge::merge;
use crate::partial::{attend_block, Mask};
use tch::{Device, Kind, Tensor};

/// `N` tensors `[1, heads, seq, head_dim]` of f64 drawn from the flags' seed: the same on
/// every rank. Sets LibTorch to one thread (one per rank).
pub fn draw<const N: usize>(flags: &RingFlags) -> [Tensor; N] {
    tch::set_num_threads(1);
    tch::manual_seed(flags.seed as i64);
    let shape = [
        1,
        flags.heads as i64,
        flags.seq as i64,
        flags.head_dim as i64,
    ];
    [0; N].map(|_| Tensor::randn(shape, (Kind::Double, Device::Cpu)))
}

/// Ex 13.1 on one token of `q`, `k`, `v`, on every rank at once (call it first inside
/// `unless_todo`): an unfinished merge then stops all ranks here together, not rank 0 alone
/// while it times the work alone (which merges) and the others wait for it.
pub fn probe_merge(q: &Tensor, k: &Tensor, v: &Tensor) {
    let one = |x: &Tensor| x.narrow(2, 0, 1);
    let tiny = attend_block(&one(q), &one(k), &one(v), Mask::Full);
    drop(merge(&tiny, &tiny));
}
