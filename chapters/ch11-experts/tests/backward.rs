//! Checks of exercise 11.3 (the backward through the exchanges) under mpirun at 1 to 4
//! ranks: with identity experts the input's gradient is the upstream gradient times the
//! kept gates; with linear experts every gradient (input, router logits, experts' `W`
//! and `b`) equals the same layer's in one process.
//! Run: `make check CH=11` or `cargo test -p ch11-experts --features solution --test main backward::`.

use crate::common::grad::{check_against_one_process, check_input_grad};
use crate::common::Case;
use ch11::backward::backward;

/// The cases: k = 1 and 2, 4 or 5 experts (5 on 3 ranks: blocks of 2, 2, 1), a capacity
/// factor of 1/2 or 1 (drops), 1 1/2 (few), with ties among the logits.
fn cases() -> Vec<Case> {
    let c = |tokens, experts, k, quarters, seed| Case {
        tokens,
        experts,
        k,
        quarters,
        hidden: 3,
        seed,
    };
    vec![
        c(6, 4, 2, 4, 1),
        c(7, 5, 1, 2, 2),
        c(8, 5, 2, 6, 3),
        c(5, 4, 1, 4, 4),
    ]
}

toolkit::mpi_test! {
    /// Identity experts: x's gradient is (sum of kept gates) · g, within 1e-6·(1 + |want|).
    fn ex11_3_identity_experts_pass_the_gradient_times_the_kept_gates(world at &[1, 2, 3, 4]) {
        for case in cases() {
            check_input_grad(world, backward, &case, 1e-6)?;
        }
        Ok(())
    }

    /// Linear experts: every gradient equals one process's within 1e-5·(1 + |want|).
    fn ex11_3_the_gradients_equal_one_process(world at &[1, 2, 3, 4]) {
        for case in cases() {
            check_against_one_process(world, backward, &case, 1e-5)?;
        }
        Ok(())
    }
}
