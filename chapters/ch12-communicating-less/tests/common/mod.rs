//! Shared checks of chapter 12's exercises: each takes the allreduce under test and
//! returns `Err(message)` naming the rank and the case it got wrong, so the exercises'
//! tests and the planted mistakes (solutions/ch12-communicating-less/planted_mistakes.rs)
//! use the same ones.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch12::nodes::{NodeGroups, Nodes};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::{abs_sums, close_sums, exact};

/// A hierarchical allreduce (ex 12.1's or ex 12.2's), on `i64` and on `f32`.
pub type Allreduce = (
    fn(&NodeGroups, &[i64]) -> Vec<i64>,
    fn(&NodeGroups, &[f32]) -> Vec<f32>,
);

/// One case: `len` elements per rank, a layout (0: `split_shared`, k: k emulated nodes,
/// capped at the rank count), a seed.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub len: usize,
    pub nodes: usize,
    pub seed: u64,
}

impl Case {
    /// The layout at `ranks` ranks.
    pub fn layout(&self, ranks: usize) -> Nodes {
        match self.nodes {
            0 => Nodes::Shared,
            k => Nodes::Emulated(k.min(ranks)),
        }
    }

    /// The case in one line, as the messages name it.
    pub fn name(&self, ranks: usize) -> String {
        format!(
            "len={} nodes={:?} seed={}",
            self.len,
            self.layout(ranks),
            self.seed
        )
    }
}

/// The cases: 0 to 40 elements (lengths that the node sizes do not divide included), the
/// real nodes or 1, 2 or 3 emulated ones.
pub fn cases() -> impl Strategy<Value = Case> {
    (0usize..41, 0usize..4, any::<u64>()).prop_map(|(len, nodes, seed)| Case { len, nodes, seed })
}

/// splitmix64: the same numbers on every rank that asks.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Rank `rank`'s inputs: integers in -1000..1000 and floats in -1000..1000 with
/// magnitudes spread over six decimal orders (so that the order of the sum shows).
pub fn inputs(case: &Case, rank: usize) -> (Vec<i64>, Vec<f32>) {
    let mut s = case.seed ^ (rank as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
    let ints = (0..case.len)
        .map(|_| (next(&mut s) % 2001) as i64 - 1000)
        .collect();
    let floats = (0..case.len)
        .map(|_| {
            let u = (next(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            let scale = 10f64.powi((next(&mut s) % 6) as i32 - 2);
            ((u * 2.0 - 1.0) * scale) as f32
        })
        .collect();
    (ints, floats)
}

/// Builds the case's groups and checks one allreduce on it against MPI_Allreduce: `i64`
/// exactly, `f32` within the summation bound for `p` terms. Ranks whose nodes are not
/// all of one size skip `busy` (it needs equal nodes) when `needs_uniform` is set.
pub fn check_allreduce(
    world: &SimpleCommunicator,
    (ints, floats): Allreduce,
    case: &Case,
    needs_uniform: bool,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {rank} of {p}, {}", case.name(p));
    let groups = NodeGroups::new(world, case.layout(p)).map_err(|e| format!("{at}: {e}"))?;
    if needs_uniform && !groups.uniform() {
        return Ok(());
    }
    let at = format!("{at} ({})", groups.describe());
    let (my_ints, my_floats) = inputs(case, rank);
    let mut want_i = vec![0i64; case.len];
    world.all_reduce_into(&my_ints[..], &mut want_i[..], SystemOperation::sum());
    let mut want_f = vec![0f32; case.len];
    world.all_reduce_into(&my_floats[..], &mut want_f[..], SystemOperation::sum());
    let got_i = ints(&groups, &my_ints);
    let got_f = floats(&groups, &my_floats);
    exact(&format!("{at}: i64 sums"), &got_i, &want_i)?;
    let all: Vec<Vec<f32>> = (0..p).map(|r| inputs(case, r).1).collect();
    let sums = abs_sums(case.len, &all);
    close_sums(&format!("{at}: f32 sums"), &got_f, &want_f, &sums, p)
}
