//! Chapter 1: point-to-point communication, one message at a time.
//!
//! Given code (read it, use it):
//! - [`neighbours`] and the tags: who talks to whom on a ring, and how messages are told
//!   apart;
//! - [`model`]: the alpha-beta cost model `T = alpha + bytes / beta`;
//! - [`pingpong`]: timing round trips between ranks 0 and 1;
//! - [`pending`]: why Rust will not let you touch a buffer a request still uses.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! - [`ring`] (ex 1.1), [`exchange`] (ex 1.2), [`halo`] (ex 1.3), [`fit`] (ex 1.4).
//!
//! Check your work with `make check CH=01`; run the labs with `make run CH=01 BIN=<lab>`.

pub mod model;
pub mod pending;
pub mod pingpong;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch01-send-recv/ring.rs"
)]
pub mod ring;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch01-send-recv/exchange.rs"
)]
pub mod exchange;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch01-send-recv/halo.rs"
)]
pub mod halo;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch01-send-recv/fit.rs"
)]
pub mod fit;

use mpi::topology::Rank;
use mpi::Tag;

// ANCHOR: tags
/// Tag of the token that travels around the ring (ex 1.1).
pub const TOKEN_TAG: Tag = 1;
/// Tag of the data shifted one rank to the right (ex 1.2).
pub const SHIFT_TAG: Tag = 2;
/// Tag of a halo message travelling to the left neighbour (ex 1.3).
pub const TO_LEFT_TAG: Tag = 10;
/// Tag of a halo message travelling to the right neighbour (ex 1.3).
pub const TO_RIGHT_TAG: Tag = 11;
/// Tag of the ping-pong messages.
pub const PING_TAG: Tag = 20;
// ANCHOR_END: tags

// ANCHOR: neighbours
/// The ranks on either side of `rank` on a ring of `size` ranks: `(left, right)`.
///
/// Rank 0's left neighbour is the last rank; the last rank's right neighbour is 0.
/// At 1 rank both neighbours are the rank itself.
pub fn neighbours(rank: Rank, size: Rank) -> (Rank, Rank) {
    let left = (rank - 1 + size) % size;
    let right = (rank + 1) % size;
    (left, right)
}
// ANCHOR_END: neighbours

#[cfg(test)]
mod tests {
    use super::neighbours;

    #[test]
    fn neighbours_wrap_around() {
        assert_eq!(neighbours(0, 4), (3, 1));
        assert_eq!(neighbours(3, 4), (2, 0));
        assert_eq!(neighbours(0, 1), (0, 0));
        assert_eq!(neighbours(1, 2), (0, 0));
    }
}
