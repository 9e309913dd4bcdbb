//! Given: flat f32 buffers of many tensors (pack / unpack) and the identical-parameters
//! check.
//!
//! Gradient buckets (ex 6.5) and the overlapped sync (`overlap.rs`) pack several
//! gradients into one buffer so that one allreduce moves them all. The copies use the
//! fast paths (9M floats, release build, 2 cores): `copy_data` into a slice (a memcpy,
//! 2.9 ms) and a `from_blob` view copied with `copy_` (1.3 ms, no allocation), not
//! `Tensor::cat` + `Vec::try_from` (53 ms). Tensors here are f32; on a GPU
//! `copy_data` stages through host memory by itself and `copy_` copies back to the device.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

// ANCHOR: pack
/// Copies `tensors` one after the other into `buf` (which must hold exactly their total
/// number of elements).
pub fn pack(tensors: &[Tensor], buf: &mut [f32]) {
    let mut offset = 0;
    for t in tensors {
        let n = t.numel();
        t.copy_data(&mut buf[offset..offset + n], n);
        offset += n;
    }
    assert_eq!(
        offset,
        buf.len(),
        "pack: buffer length is not the tensors' total"
    );
}

/// Copies `buf` back into `tensors`, in the same order as [`pack`].
pub fn unpack(buf: &[f32], tensors: &mut [Tensor]) {
    let mut offset = 0;
    for t in tensors.iter_mut() {
        let n = t.numel();
        let part = &buf[offset..offset + n];
        // SAFETY: `part` holds exactly `t.numel()` f32 values (the slice is cut to that
        // length), contiguous, and the view that borrows them (it does not own them) is
        // copied out of at once and dropped in this iteration, while `part` lives.
        let view = unsafe {
            Tensor::from_blob(
                part.as_ptr() as *const u8,
                &t.size(),
                &[],
                Kind::Float,
                Device::Cpu,
            )
        };
        tch::no_grad(|| t.copy_(&view));
        offset += n;
    }
    assert_eq!(
        offset,
        buf.len(),
        "unpack: buffer length is not the tensors' total"
    );
}
// ANCHOR_END: pack

/// Total number of elements of `tensors`.
pub fn total_len(tensors: &[Tensor]) -> usize {
    tensors.iter().map(Tensor::numel).sum()
}

/// A 64-bit fingerprint of the exact bits of `tensors` (FNV-1a over the f32 bit patterns,
/// in order): equal fingerprints mean identical parameters, one flipped bit changes it.
pub fn fingerprint(tensors: &[Tensor]) -> u64 {
    let mut buf = vec![0f32; total_len(tensors)];
    let owned: Vec<Tensor> = tensors.iter().map(|t| t.to_kind(Kind::Float)).collect();
    pack(&owned, &mut buf);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for x in buf {
        for byte in x.to_bits().to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

// ANCHOR: check_identical
/// Ok if every rank holds bit-identical `tensors`: the fingerprint's min and max over
/// ranks (two small allreduces) must agree. `when` names the moment, for the message.
pub fn check_identical(
    world: &SimpleCommunicator,
    tensors: &[Tensor],
    when: &str,
) -> Result<(), String> {
    let mine = fingerprint(tensors);
    let (mut min, mut max) = (0u64, 0u64);
    world.all_reduce_into(&mine, &mut min, SystemOperation::min());
    world.all_reduce_into(&mine, &mut max, SystemOperation::max());
    if min == max {
        Ok(())
    } else {
        Err(format!(
            "parameters differ across ranks {when}: fingerprints range from {min:016x} to \
             {max:016x} (rank {} has {mine:016x})",
            world.rank()
        ))
    }
}
// ANCHOR_END: check_identical
