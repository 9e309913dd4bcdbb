//! Chapter 13 exercise 13.3: ring attention in the zig-zag layout. Under a causal mask the
//! plain layout gives the last rank `p` blocks of work and the first one: the ring waits
//! for the busiest rank at every step. Cut the sequence into `2p` chunks and give rank `r`
//! chunks `r` and `2p - 1 - r` (`blocks::zigzag_of`): one early chunk, one late, and every
//! rank the same work (`blocks::pairs_computed`). The ring is ex 13.2's; what changes is
//! which pairs of chunks attend. Check with `make check CH=13` (tests/zigzag.rs: 1 to 5
//! ranks against one process).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::blocks::{pack, unpack, zigzag_chunks};
use crate::merge::merge;
use crate::partial::{attend_block, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

// ANCHOR: zigzag_forward
/// Causal ring attention over the zig-zag layout. `q`, `k`, `v`: this rank's part
/// (`[batch, heads, 2c, head_dim]`: chunk `r` then chunk `2p - 1 - r`, `c` tokens each).
/// As in ex 13.2 the key/value part travels the ring (sent on to rank `r + 1` before
/// computing, received from `r - 1`); at step `s` it is rank `src = (r - s) mod p`'s, its
/// chunks `zigzag_chunks(src, p)`. For each of this rank's query chunks `i` and each key
/// chunk `j` held: `j < i` attend in full, `j == i` with `Mask::Diagonal`, `j > i` skip
/// (all future); merge each query chunk's parts (ex 13.1). Returns this rank's rows, chunk
/// `r`'s then chunk `2p - 1 - r`'s (out and lse, concatenated along the tokens).
pub fn zigzag_forward(world: &SimpleCommunicator, q: &Tensor, k: &Tensor, v: &Tensor) -> Partial {
    // TODO(ex 13.3): ex 13.2's ring over the two-chunk parts; the causal rule per pair of chunks
    todo!("ex 13.3: ring attention in the zig-zag layout")
}
// ANCHOR_END: zigzag_forward
