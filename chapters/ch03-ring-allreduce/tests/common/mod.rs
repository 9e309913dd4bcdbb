//! Shared test data and properties for chapter 3's checks.
//!
//! Not a test itself; `mod common;` in each test file. A case is an op, a length and a
//! seed from which EVERY rank's inputs follow, so all ranks generate, fail and shrink the
//! same case in lockstep, each rank can work out the float tolerance (it depends on
//! everyone's inputs), and a shrunk case prints in one line.
#![allow(dead_code)] // each test file uses part of it

pub mod counts;
pub mod traffic;

use ch03::ops::{Elem, Op, OPS};
use ch03::{chunk_range, owned_chunk, reference};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use proptest::sample::select;
use toolkit::compare::{exact, reduction};
use toolkit::lockstep::property;

/// The rank counts every exercise is checked at: 1, powers of two, and odd ones.
pub const RANKS: &[u32] = &[1, 2, 3, 4, 5, 8];

/// Cases per property and element type (4 types per test: 4x this many per launch).
pub const CASES: u32 = 16;

/// One random case: an operation, `len` elements per rank, and the seed of the values.
#[derive(Clone, Debug)]
pub struct Case {
    pub op: Op,
    pub len: usize,
    pub seed: u64,
}

/// A raw value in -1000..=1000 for (seed, rank, element): a SplitMix64 hash.
fn raw(seed: u64, rank: usize, i: usize) -> i32 {
    let mut z = seed ^ ((rank as u64) << 40) ^ i as u64;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) % 2001) as i32 - 1000
}

impl Case {
    /// Rank `rank`'s input. Integers: raw·997 (no overflow of a sum over 8 ranks);
    /// floats: raw·0.173 (not exactly representable, so sums really round).
    pub fn values<T: Elem>(&self, rank: usize) -> Vec<T> {
        let scale = if T::IS_FLOAT { 0.173 } else { 997.0 };
        (0..self.len)
            .map(|i| T::from_f64(f64::from(raw(self.seed, rank, i)) * scale))
            .collect()
    }

    /// Element-wise Σ|x| over all `size` ranks (for the float tolerance of sums).
    pub fn abs_sums<T: Elem>(&self, size: usize) -> Vec<f64> {
        toolkit::compare::abs_sums(self.len, (0..size).map(|r| self.values::<T>(r)))
    }
}

/// Lengths for `size` ranks: 0, fewer than p, not divisible by p, and past the eager
/// limit (a few KiB per chunk), where a blocking send waits for its receive.
pub fn lengths(size: i32) -> BoxedStrategy<usize> {
    let p = size as usize;
    prop_oneof![3 => 0..=2 * p, 3 => 0..=100usize, 1 => 2000..=6000usize].boxed()
}

/// Cases for `size` ranks: an op from `ops`, a length from `lens`.
pub fn cases(ops: &'static [Op], lens: BoxedStrategy<usize>) -> BoxedStrategy<Case> {
    (select(ops), lens, any::<u64>())
        .prop_map(|(op, len, seed)| Case { op, len, seed })
        .boxed()
}

/// Ok if every rank holds the same values as rank 0 (a data-parallel trainer whose
/// replicas differ in the last bit drifts apart). Collective: every rank must call it,
/// even with a result of the wrong length (`len` is the right one).
pub fn same_on_every_rank<T: Elem>(
    world: &SimpleCommunicator,
    got: &[T],
    len: usize,
) -> Result<(), String> {
    let mut rank0 = got.to_vec();
    rank0.resize(len, T::default());
    world.process_at_rank(0).broadcast_into(&mut rank0[..]);
    exact("result compared with rank 0's", got, &rank0)
}

/// A whole allreduce (`f`) equals MPI_Allreduce, and every rank holds the same result.
pub fn allreduce_property<T: Elem>(
    world: &SimpleCommunicator,
    name: &str,
    f: impl Fn(&SimpleCommunicator, &[T], Op) -> Vec<T>,
    lens: BoxedStrategy<usize>,
) -> Result<(), String> {
    let (rank, size) = (world.rank() as usize, world.size());
    property(
        world,
        &format!("{name}::<{}> equals MPI_Allreduce", T::NAME),
    )
    .cases(CASES)
    .check(cases(&OPS, lens), |case| {
        let xs: Vec<T> = case.values(rank);
        let got = f(world, &xs, case.op);
        let want = reference::allreduce(world, &xs, case.op);
        let abs = case.abs_sums::<T>(size as usize);
        let what = format!("allreduce with {:?} of {} elements", case.op, case.len);
        let mine = reduction(&what, case.op, &got, &want, &abs, size as usize);
        let same = same_on_every_rank(world, &got, case.len);
        mine.and(same)
    })
}

/// After `f` (a reduce-scatter), chunk `owned_chunk(rank, p)` equals that chunk of
/// MPI_Allreduce's result.
pub fn reduce_scatter_property<T: Elem>(
    world: &SimpleCommunicator,
    f: impl Fn(&SimpleCommunicator, &mut [T], Op),
    lens: BoxedStrategy<usize>,
) -> Result<(), String> {
    let (rank, size) = (world.rank() as usize, world.size());
    let name = format!(
        "reduce_scatter_ring::<{}> leaves its chunk reduced",
        T::NAME
    );
    property(world, &name)
        .cases(CASES)
        .check(cases(&OPS, lens), |case| {
            let mut data: Vec<T> = case.values(rank);
            let want = reference::allreduce(world, &data, case.op);
            f(world, &mut data, case.op);
            let chunk = chunk_range(case.len, size as usize, owned_chunk(rank, size as usize));
            let abs = case.abs_sums::<T>(size as usize);
            let what = format!(
                "chunk {} (elements {chunk:?}) on rank {rank} after a reduce-scatter with {:?}",
                owned_chunk(rank, size as usize),
                case.op
            );
            let (got, want, abs) = (&data[chunk.clone()], &want[chunk.clone()], &abs[chunk]);
            reduction(&what, case.op, got, want, abs, size as usize)
        })
}

/// Given every rank's owned chunk of MPI's result (the rest filled with -7777), `f` (an
/// allgather) leaves the whole result on every rank.
pub fn allgather_property<T: Elem>(
    world: &SimpleCommunicator,
    f: impl Fn(&SimpleCommunicator, &mut [T]),
    lens: BoxedStrategy<usize>,
) -> Result<(), String> {
    let (rank, size) = (world.rank() as usize, world.size());
    let name = format!("allgather_ring::<{}> fills every chunk", T::NAME);
    property(world, &name)
        .cases(CASES)
        .check(cases(&[Op::Sum], lens), |case| {
            let want = reference::allreduce(world, &case.values::<T>(rank), Op::Sum);
            let chunk = chunk_range(case.len, size as usize, owned_chunk(rank, size as usize));
            let mut data = vec![T::from_f64(-7777.0); case.len];
            data[chunk.clone()].copy_from_slice(&want[chunk]);
            f(world, &mut data);
            exact(
                &format!("rank {rank}'s vector after the allgather"),
                &data,
                &want,
            )
        })
}
