//! Checks of ex 1.2 (a deadlock-free shift with blocking calls) at 1, 2, 3, 4, 5 and 8
//! ranks, for i32, i64, f32 and f64, at random lengths: 0 to 64 elements, and one case in
//! four 1<<17 to 1<<19 elements, beyond the eager limit, where a wrong order deadlocks
//! (the watchdog then names the call each rank is blocked in).
//!
//! Run: `make check CH=01` (your code) or `cargo test -p ch01-send-recv --features solution`.

use crate::common::{lengths, shift_property};
use ch01::exchange::shift_right;
use toolkit::mpi_test;

// ANCHOR: ex1_2
mpi_test! {
    fn ex1_2_shift_right(world at &[1, 2, 3, 4, 5, 8]) for T in [i32, i64, f32, f64] {
        shift_property::<T>(world, shift_right, lengths())
    }
}
// ANCHOR_END: ex1_2
