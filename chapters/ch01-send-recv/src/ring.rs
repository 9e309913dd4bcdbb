//! Exercise 1.1: pass a token once around a ring of ranks.
//!
//! Every rank runs `pass_token` at the same time. Check: `make check CH=01`; see it run:
//! `make run CH=01 BIN=ring` (prints the path the token took).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::{neighbours, TOKEN_TAG};
use mpi::datatype::Equivalence;
use mpi::topology::{Rank, SimpleCommunicator};
use mpi::traits::*;

// ANCHOR: pass_token
/// One lap of `token` around the ring 0 -> 1 -> ... -> size-1 -> 0, every message tagged
/// [`crate::TOKEN_TAG`].
///
/// Rank 0 sends its `token` to its right neighbour (the others' `token` is ignored).
/// Every other rank receives the token from its left neighbour and forwards it, unchanged,
/// to its right neighbour. Rank 0 finally receives it back from the last rank.
/// Every rank returns the token it received and the rank its status says it came from.
/// At 1 rank there is nobody to pass to: return `(token.to_vec(), 0)` at once.
///
/// Only rank 0 knows the token's length: receive with `receive_vec_with_tag`, which
/// probes for the message first and sizes the vector from its status.
pub fn pass_token<T: Equivalence + Copy>(
    world: &SimpleCommunicator,
    token: &[T],
) -> (Vec<T>, Rank) {
    // TODO(ex 1.1): send, receive and forward the token around the ring
    todo!("ex 1.1: pass the token once around the ring")
}
// ANCHOR_END: pass_token
