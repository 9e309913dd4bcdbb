//! Checks of exercise 6.2 (broadcast the parameters) at 1, 2, 3, 4 ranks: afterwards
//! every value on every rank is rank 0's, bit for bit.
//!
//! Run: `make check CH=06` or `cargo test -p ch06-data-parallel --features solution
//! --test main broadcast::`.

use crate::common;

use ch06::broadcast::broadcast_parameters;
use ch06::flat::check_identical;
use ch06::model::ModelKind;
use mpi::traits::*;
use toolkit::compare::exact;
use toolkit::mpi_test;

mpi_test! {
    fn ex6_2_every_rank_holds_rank_0s_parameters(world at &[1, 2, 3, 4]) {
        tch::set_num_threads(1);
        let rank = world.rank();
        for kind in [ModelKind::Mlp, ModelKind::Cnn, ModelKind::DeepMlp(3)] {
            let mut mine = common::net(kind, 10 + i64::from(rank)).params; // differs per rank
            let mut want = common::net(kind, 10).params; // rank 0's values, built locally
            broadcast_parameters(world, 0, &mut mine);
            // Every rank checks its tensors, then all agree: a rank that stopped here alone
            // would leave the others in the next collective.
            let same = mine.iter().zip(&want).enumerate().try_for_each(|(i, (m, w))| {
                let what = format!("{kind:?} parameter tensor {i} on rank {rank}");
                exact(&what, &common::values::<f32>(m), &common::values::<f32>(w)).map_err(|e| match i {
                    0 => e,
                    _ => format!(
                        "{e}: tensor 0 arrived, tensor {i} did not: your broadcast_parameters \
                         must send every tensor (all of them in one flat buffer)"
                    ),
                })
            });
            toolkit::lockstep::agree(world, same)?;
            // the given fingerprint check agrees
            check_identical(world, &mine, "after broadcast_parameters")?;
            // and a broadcast of identical parameters changes nothing
            broadcast_parameters(world, 0, &mut want);
            exact(
                "second broadcast",
                &common::values::<f32>(&want[0]),
                &common::values::<f32>(&mine[0]),
            )?;
        }
        Ok(())
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): the last
/// rank skips the broadcast (`if rank != last { broadcast }`). The watchdog names each rank's
/// blocked call within the deadline, and the desync: the last rank's first collective is
/// the check's agreement, the others' the broadcast.
#[cfg(feature = "solution")]
#[test]
fn planted_ex6_2_a_rank_that_skips_the_broadcast_is_named() {
    toolkit::testing::assert_fault_named(
        "ex6_2_every_rank_holds_rank_0s_parameters",
        3,
        "MPI_Bcast@2:skip",
        &[
            "blocked in MPI_Bcast(root=0",
            "rank 2: DEADLOCK?",
            "desync: rank 2 called MPI_Allreduce(4 bytes) as the 1st collective on WORLD; \
             ranks 0-1 called MPI_Bcast",
        ],
    );
}
