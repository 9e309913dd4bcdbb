//! Exercise 5.6: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

use crate::stream::{to_device, Staging, TorchElem};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: staged
/// Sums the 1-D tensor `t` over all ranks of `comm`, in place, through host memory,
/// `staging.chunk` elements at a time, copying chunk k+1 in while chunk k is reduced.
pub fn staged_allreduce<T: TorchElem, C: Communicator>(
    comm: &C,
    t: &mut Tensor,
    staging: &mut Staging<T>,
) {
    let n = t.numel();
    if n == 0 {
        return;
    }
    let Staging {
        chunk,
        slots,
        stream,
    } = staging;
    let chunk = (*chunk).min(n);
    let chunks = n.div_ceil(chunk);
    let len_of = |k: usize| chunk.min(n - k * chunk);
    // SAFETY: slot 0 is not read until the stream is synchronised below.
    unsafe { stream.start_to_host(t, 0, &mut slots[0].send, len_of(0)) };
    for k in 0..chunks {
        stream.synchronize(); // chunk k has landed in slot k % 2
        let (len, next) = (len_of(k), k + 1);
        let [a, b] = slots;
        let (cur, other) = if k % 2 == 0 { (a, b) } else { (b, a) };
        mpi::request::scope(|scope| {
            let request = comm.immediate_all_reduce_into(
                scope,
                &cur.send[..len],
                &mut cur.recv[..len],
                SystemOperation::sum(),
            );
            if next < chunks {
                // SAFETY: the other slot's allreduce (chunk k-1) has finished, and the
                // slot is not read until the synchronisation at the top of the next turn.
                unsafe { stream.start_to_host(t, next * chunk, &mut other.send, len_of(next)) };
            }
            request.wait();
        });
        to_device(t, k * chunk, &cur.recv[..len]);
    }
}
// ANCHOR_END: staged
