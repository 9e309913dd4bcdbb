//! Checks of exercises 3.3 (segmented ring) and 3.4 (recursive doubling): each equals
//! MPI_Allreduce, and every rank holds the same bits, at 1, 2, 3, 4, 5, 8 ranks, for
//! i32, i64, f32, f64 and sum, max, min, AbsMax. The segmented ring runs with tiny
//! segments (1 to 7 elements), so that a chunk is many segments even in small cases.
//!
//! Run: `make check CH=03` or `cargo test -p ch03-ring-allreduce --features solution
//! --test allreduce`.

mod common;

use ch03::doubling::allreduce_recursive_doubling;
use ch03::segmented::allreduce_ring_segmented;
use common::{allreduce_property, lengths, RANKS};
use mpi::traits::*;
use toolkit::testing::at_ranks;

#[test]
fn ex3_3_allreduce_ring_segmented() {
    at_ranks("ex3_3_allreduce_ring_segmented", RANKS, |world| {
        let lens = || lengths(world.size());
        let name = "allreduce_ring_segmented";
        // The segment length varies with the case's length: 1 to 7 elements.
        macro_rules! seg {
            ($t:ty) => {
                |w: &_, xs: &[$t], op| allreduce_ring_segmented(w, xs, op, 1 + xs.len() % 7)
            };
        }
        allreduce_property::<i32>(world, name, seg!(i32), lens())?;
        allreduce_property::<i64>(world, name, seg!(i64), lens())?;
        allreduce_property::<f32>(world, name, seg!(f32), lens())?;
        allreduce_property::<f64>(world, name, seg!(f64), lens())
    });
}

#[test]
fn ex3_4_allreduce_recursive_doubling() {
    at_ranks("ex3_4_allreduce_recursive_doubling", RANKS, |world| {
        let lens = || lengths(world.size());
        let name = "allreduce_recursive_doubling";
        allreduce_property::<i32>(world, name, allreduce_recursive_doubling, lens())?;
        allreduce_property::<i64>(world, name, allreduce_recursive_doubling, lens())?;
        allreduce_property::<f32>(world, name, allreduce_recursive_doubling, lens())?;
        allreduce_property::<f64>(world, name, allreduce_recursive_doubling, lens())
    });
}
