//! Chapter 3 exercise 3.6: solution.

use crate::ops::{Elem, Op};
use crate::{chunk_range, split_chunks};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: allreduce_rabenseifner
/// Ex 3.4's folds around a reduce-scatter by halves and an allgather by doubling.
pub fn allreduce_rabenseifner<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = |r: usize| world.process_at_rank(r as i32);
    let (q, n) = (1usize << p.ilog2(), xs.len());
    let extra = p - q;
    let mut acc = xs.to_vec();
    // The most a rank receives at once: a whole vector to fold in, else the first halving's
    // lower half (the lower blocks are the larger ones).
    let most = match (extra, q) {
        (0, 1) => 0,
        (0, _) => chunk_range(n, q, q / 2 - 1).end,
        _ => n,
    };
    let mut inbox = vec![T::default(); most];
    // fold in: even ranks below 2·extra hand their vector to the odd rank above
    let me = if rank >= 2 * extra {
        Some(rank - extra)
    } else if rank % 2 == 0 {
        at(rank + 1).send(&acc[..]);
        None
    } else {
        at(rank - 1).receive_into(&mut inbox[..]);
        op.reduce_into(&mut acc, &inbox);
        Some(rank / 2)
    };
    if let Some(me) = me {
        let real = |v: usize| if v < extra { 2 * v + 1 } else { v + extra };
        // the elements of blocks lo..hi
        let elems =
            |lo: usize, hi: usize| chunk_range(n, q, lo).start..chunk_range(n, q, hi - 1).end;
        let (mut lo, mut hi) = (0, q);
        let mut mask = q / 2;
        while mask > 0 {
            let mid = lo + (hi - lo) / 2;
            let (keep, give) = match me & mask {
                0 => ((lo, mid), (mid, hi)),
                _ => ((mid, hi), (lo, mid)),
            };
            let (k, g) = (elems(keep.0, keep.1), elems(give.0, give.1));
            let partner = at(real(me ^ mask));
            let got = &mut inbox[..k.len()];
            send_receive_into(&acc[g], &partner, got, &partner);
            op.reduce_into(&mut acc[k], got);
            (lo, hi) = keep;
            mask >>= 1;
        }
        let mut mask = 1;
        while mask < q {
            let (plo, phi) = match me & mask {
                0 => (hi, hi + mask),
                _ => (lo - mask, lo),
            };
            let partner = at(real(me ^ mask));
            let (mine, theirs) = split_chunks(&mut acc, elems(lo, hi), elems(plo, phi));
            send_receive_into(mine, &partner, theirs, &partner);
            (lo, hi) = (lo.min(plo), hi.max(phi));
            mask <<= 1;
        }
    }
    // fold out: the odd ranks give the result back
    if rank < 2 * extra {
        if rank % 2 == 1 {
            at(rank - 1).send(&acc[..]);
        } else {
            at(rank + 1).receive_into(&mut acc[..]);
        }
    }
    acc
}
// ANCHOR_END: allreduce_rabenseifner
