//! Chapter 14 exercise 14.5 (optional): ZeRO-3's parameter allgather in FP8. At stage 3
//! every step gathers each layer's parameters twice (forward and backward); recent trainers
//! send them in FP8 E4M3, one byte a value instead of bf16's two, with one scale for the
//! whole tensor so that its largest value lands on E4M3's largest, 448. E4M3 keeps 4
//! significant bits and about 18 binades: scaled, a layer's weights fit; unscaled, large
//! ones turn to NaN and small ones flush to zero. Check with `make check CH=14`
//! (tests/fp8.rs: 1 and 3 ranks, bit for bit against one process).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::encode::encode;
use crate::format::E4M3;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: gather_fp8
/// MPI_Allgather of this rank's `shard` of one tensor (S values on every rank) in FP8 E4M3
/// with one scale for the whole tensor, into `whole` (N * S values, rank r's at `r*S..`):
/// 1. the tensor's largest magnitude over every rank's shard: one allreduce with
///    `SystemOperation::max()` of this shard's largest `abs()`;
/// 2. the scale `s = amax / E4M3.max()` (1 when amax is 0), in f32;
/// 3. each value's code `encode(&E4M3, x / s)` (ex 14.1), one byte (`as u8`);
/// 4. one allgather of the codes, then `whole[i] = E4M3.decode(code as u16) * s`.
///
/// Returns `s`.
pub fn gather_fp8(world: &SimpleCommunicator, shard: &[f32], whole: &mut [f32]) -> f32 {
    // TODO(ex 14.5): MAX of the largest magnitude, the scale, the codes, one allgather, decode
    todo!("ex 14.5: ZeRO-3's allgather in FP8 with one scale per tensor")
}
// ANCHOR_END: gather_fp8
