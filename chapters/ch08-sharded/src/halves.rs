//! Given: the two collectives a ZeRO step runs on, as a trait, and two backends.
//!
//! [`Halves`] is the reduce-scatter and the allgather of one padded flat f32 buffer, block
//! r for rank r. [`MpiHalves`] runs them as MPI_Reduce_scatter_block and MPI_Allgather
//! (your ex 8.2 functions); [`RingHalves`] runs chapter 3's ring halves (ex 3.1 and 3.2),
//! whose point-to-point messages the harness's PMPI recorder sees one by one: the lab
//! counts the bytes each rank sends with it (`toolkit::trace`).

use crate::step;
use ch03::ops::Op;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;

/// A reduce-scatter and an allgather over f32 blocks of equal length, block r for rank r.
/// Every rank calls each with buffers of the same lengths: `full` N * S, `shard` S.
pub trait Halves {
    /// Sums `full` over the ranks; block `rank` of the sum goes to `shard`.
    fn sum_scatter(&self, full: &[f32], shard: &mut [f32]);
    /// Every rank's `shard` into `full`: rank r's at block r.
    fn gather_all(&self, shard: &[f32], full: &mut [f32]);
    /// N, the ranks taking part.
    fn ranks(&self) -> usize;
    /// A short name for reports ("mpi", "ring").
    fn name(&self) -> &'static str;
    /// For the traced figure: the block of the flat buffer whose values a message sent
    /// from address `addr` carried, if this backend can tell (the ring can; MPI's own
    /// collectives send from inside the library).
    fn block_of(&self, addr: usize) -> Option<usize> {
        let _ = addr;
        None
    }
}

/// The halves `--collectives` names (`collectives`), over every rank of `world`.
pub fn for_collectives(
    world: &SimpleCommunicator,
    collectives: crate::config::Collectives,
) -> Box<dyn Halves + '_> {
    match collectives {
        crate::config::Collectives::Ring => Box::new(RingHalves::new(world)),
        crate::config::Collectives::Mpi => Box::new(MpiHalves { world }),
    }
}

/// MPI's own collectives: [`step::reduce_scatter_sum`] and [`step::allgather_shards`].
pub struct MpiHalves<'w> {
    pub world: &'w SimpleCommunicator,
}

impl Halves for MpiHalves<'_> {
    fn sum_scatter(&self, full: &[f32], shard: &mut [f32]) {
        step::reduce_scatter_sum(self.world, full, shard);
    }
    fn gather_all(&self, shard: &[f32], full: &mut [f32]) {
        step::allgather_shards(self.world, shard, full);
    }
    fn ranks(&self) -> usize {
        self.world.size() as usize
    }
    fn name(&self) -> &'static str {
        "mpi"
    }
}

/// Chapter 3's ring halves. Its reduce-scatter leaves rank r with chunk `(r + 1) % N`
/// (`ch03::owned_chunk`), not chunk r: the buffer goes through a scratch copy rotated by
/// one chunk, so that rank r's chunk there is block r here (a memcpy per call).
pub struct RingHalves<'w> {
    pub world: &'w SimpleCommunicator,
    scratch: RefCell<Vec<f32>>,
}

impl<'w> RingHalves<'w> {
    /// The ring over every rank of `world`.
    pub fn new(world: &'w SimpleCommunicator) -> Self {
        RingHalves {
            world,
            scratch: RefCell::new(Vec::new()),
        }
    }
}

/// Chunk `c` of `len`-long chunks.
fn chunk(c: usize, len: usize) -> std::ops::Range<usize> {
    c * len..(c + 1) * len
}

impl Halves for RingHalves<'_> {
    fn sum_scatter(&self, full: &[f32], shard: &mut [f32]) {
        let (n, s, r) = (self.ranks(), shard.len(), self.world.rank() as usize);
        assert_eq!(
            full.len(),
            n * s,
            "ring reduce-scatter: {} != {n} * {s}",
            full.len()
        );
        let mut rot = self.scratch.borrow_mut();
        rot.resize(full.len(), 0.0);
        for c in 0..n {
            rot[chunk((c + 1) % n, s)].copy_from_slice(&full[chunk(c, s)]);
        }
        ch03::ring::reduce_scatter_ring(self.world, &mut rot[..], Op::Sum);
        shard.copy_from_slice(&rot[chunk(ch03::owned_chunk(r, n), s)]);
    }
    fn gather_all(&self, shard: &[f32], full: &mut [f32]) {
        let (n, s, r) = (self.ranks(), shard.len(), self.world.rank() as usize);
        assert_eq!(
            full.len(),
            n * s,
            "ring allgather: {} != {n} * {s}",
            full.len()
        );
        let mut rot = self.scratch.borrow_mut();
        rot.resize(full.len(), 0.0);
        rot[chunk(ch03::owned_chunk(r, n), s)].copy_from_slice(shard);
        ch03::ring::allgather_ring(self.world, &mut rot[..]);
        for c in 0..n {
            full[chunk(c, s)].copy_from_slice(&rot[chunk((c + 1) % n, s)]);
        }
    }
    fn ranks(&self) -> usize {
        self.world.size() as usize
    }
    fn name(&self) -> &'static str {
        "ring"
    }
    fn block_of(&self, addr: usize) -> Option<usize> {
        let rot = self.scratch.borrow();
        let (n, base) = (self.ranks(), rot.as_ptr() as usize);
        let offset = addr.checked_sub(base)? / std::mem::size_of::<f32>();
        let s = rot.len() / n;
        // Chunk k of the rotated scratch copy is block k - 1 of the flat buffer.
        (s > 0 && offset < rot.len()).then(|| (offset / s + n - 1) % n)
    }
}
