//! Checks of exercise 8.2 (the ZeRO-1/2 step) at N = 1..8 ranks: the two collectives
//! against known sums, then several sharded Adam steps of chapter 6's MLP against one
//! process's Adam, bit for bit (tests/common: `sharded_equivalence`, whose doc says why no
//! tolerance is needed).
//!
//! Run: `make check CH=08` (your code) or `cargo test -p ch08-sharded --features solution
//! --test main step::`.

use crate::common;

use ch08::step::{allgather_shards, reduce_scatter_sum, zero_step};
use mpi::traits::*;
use toolkit::mpi_test;

const RANKS: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8];

mpi_test! {
    fn ex8_2_reduce_scatter_and_allgather_move_the_right_blocks(world at RANKS) {
        let (r, n) = (world.rank() as usize, world.size() as usize);
        let s = 5;
        // Rank q's element i is q * 1000 + i: small integers, exact sums.
        let full: Vec<f32> = (0..n * s).map(|i| (r * 1000 + i) as f32).collect();
        let mut shard = vec![-1f32; s];
        reduce_scatter_sum(world, &full, &mut shard);
        for (k, &got) in shard.iter().enumerate() {
            let i = r * s + k;
            let want: usize = (0..n).map(|q| q * 1000 + i).sum();
            if got != want as f32 {
                return Err(format!(
                    "reduce-scatter at {n} ranks: rank {r}'s element {k} is {got}, expected \
                     {want} (the sum over the ranks of element {i}, in block {r})"
                ));
            }
        }
        let mine: Vec<f32> = (0..s).map(|k| (r * 100 + k) as f32).collect();
        let mut all = vec![-1f32; n * s];
        allgather_shards(world, &mine, &mut all);
        for (i, &got) in all.iter().enumerate() {
            let want = (i / s * 100 + i % s) as f32;
            if got != want {
                return Err(format!(
                    "allgather at {n} ranks: element {i} on rank {r} is {got}, expected \
                     {want} (rank {}'s element {})", i / s, i % s
                ));
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn ex8_2_sharded_adam_equals_one_process_bit_for_bit(world at RANKS) {
        common::sharded_equivalence(world, &mut |h, l, g, s, p, a| zero_step(h, l, g, s, p, a))
    }
}
