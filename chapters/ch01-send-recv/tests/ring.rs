//! Checks of ex 1.1 (the token ring) at 1, 2, 3, 4, 5 and 8 ranks, for i32, i64, f32 and
//! f64 tokens of random length (0 included, some of several MiB).
//!
//! Run: `make check CH=01` (your code) or `cargo test -p ch01-send-recv --features solution`.

use crate::common::token_property;
use ch01::ring::pass_token;
use toolkit::mpi_test;

// ANCHOR: ex1_1
mpi_test! {
    fn ex1_1_pass_token(world at &[1, 2, 3, 4, 5, 8]) for T in [i32, i64, f32, f64] {
        token_property::<T>(world, pass_token)
    }
}
// ANCHOR_END: ex1_1

/// Planted fault, in the test above as the learner runs it (built with the solutions): rank 1 sends
/// the token with the wrong tag. The watchdog names each rank's blocked call within the deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex1_1_a_token_sent_with_the_wrong_tag_is_named() {
    toolkit::testing::assert_fault_named(
        "ex1_1_pass_token",
        3,
        "MPI_Send@1:tag+1",
        &[
            "rank 2: DEADLOCK?",
            "blocked in MPI_Mprobe(source=1 tag=1)",
            "hint:",
        ],
    );
}
