//! Check of ex 5.4 (threads that each communicate, MPI_THREAD_MULTIPLE): at 1 to 4 ranks
//! x 1 to 4 threads, thread t of every rank gets exactly the message thread t of the rank
//! on its left sent; a message that reached another thread is named.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use crate::common::{ring_property, RANKS};
use mpi::environment::Threading;
use toolkit::testing::at_ranks_with;

#[test]
fn ex5_4_each_thread_gets_its_partners_message() {
    let name = "ex5_4_each_thread_gets_its_partners_message";
    at_ranks_with(name, RANKS, Threading::Multiple, |world| {
        ring_property(world, ch05::per_thread::ring_per_thread)
    });
}
