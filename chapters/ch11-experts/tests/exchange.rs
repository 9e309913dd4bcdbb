//! Checks of exercise 11.2 (dispatch and combine) under mpirun, at 1, 2, 3, 4 and 8
//! ranks, on proptest-generated cases (T, E, k, capacity factor, hidden), every rank
//! generating the same case (`toolkit::lockstep`). Run: `make check CH=11` or
//! `cargo test -p ch11-experts --features solution --test main exchange::`.

use crate::common::layer::{check_dispatch, check_layer};
use crate::common::Case;
use ch11::exchange::{combine, dispatch};
use ch11::experts::Experts;
use proptest::prelude::*;
use toolkit::lockstep::property;

/// The cases: up to 24 tokens per rank, 1 to 9 experts (often not a multiple of the
/// ranks, sometimes fewer than them), k = 1 or 2, factors 0.25 to 3, rows of 1 to 6.
pub fn cases() -> impl Strategy<Value = Case> {
    (
        0usize..24,
        1usize..10,
        1usize..=2,
        1u32..=12,
        1usize..7,
        any::<u64>(),
    )
        .prop_map(|(tokens, experts, k, quarters, hidden, seed)| Case {
            tokens,
            experts,
            k: k.min(experts),
            quarters,
            hidden,
            seed,
        })
}

toolkit::mpi_test! {
    /// Every kept (token, choice) reaches its expert's rank once, in order; counts agree.
    fn ex11_2_tokens_are_conserved(world at &[1, 2, 3, 4, 8]) {
        property(world, "dispatch conserves tokens")
            .cases(24)
            .check(cases(), |case| check_dispatch(world, dispatch, case))
    }

    /// With identity experts, out[t] is exactly the sum of gate × x[t] over kept choices.
    fn ex11_2_identity_experts_give_x_times_the_kept_gates(world at &[1, 2, 3, 4, 8]) {
        property(world, "identity experts")
            .cases(24)
            .check(cases(), |case| {
                let id = Experts::identity(case.experts, case.hidden);
                check_layer(world, (dispatch, combine), &id, case, 0.0)
            })
    }

    /// With linear experts, the layer equals one process within 1e-6 · (1 + |y|).
    fn ex11_2_the_layer_equals_one_process(world at &[1, 2, 3, 4, 8]) {
        property(world, "the layer against one process")
            .cases(24)
            .check(cases(), |case| {
                let experts = Experts::linear(case.experts, case.hidden, case.seed);
                check_layer(world, (dispatch, combine), &experts, case, 1e-6)
            })
    }
}
