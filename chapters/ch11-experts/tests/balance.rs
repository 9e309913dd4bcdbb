//! Checks of exercise 11.4 (the load-balancing loss): the formula on worked examples
//! without MPI, then `f` and the loss with its gradient over 1 to 4 ranks against one
//! process holding every rank's tokens.
//! Run: `make check CH=11` or `cargo test -p ch11-experts --features solution --test main balance::`.

use crate::common::balance::{check_aux_loss, check_fractions, check_switch_loss};
use crate::common::Case;
use ch11::balance::{aux_loss, fractions, switch_loss};

#[test]
fn ex11_4_the_formula_on_worked_examples() {
    assert_eq!(check_switch_loss(switch_loss), Ok(()));
}

/// k = 1 and 2, 4 and 5 experts, ties among the logits, drops (they do not change f).
fn cases() -> Vec<Case> {
    let c = |tokens, experts, k, quarters, seed| Case {
        tokens,
        experts,
        k,
        quarters,
        hidden: 1,
        seed,
    };
    vec![c(6, 4, 2, 4, 1), c(7, 5, 1, 2, 2), c(9, 5, 2, 6, 3)]
}

toolkit::mpi_test! {
    /// f equals one process's exactly; the loss and the logits' gradient within
    /// 1e-6·(1 + |want|) (P summed in another order).
    fn ex11_4_the_loss_over_the_ranks_equals_one_process(world at &[1, 2, 3, 4]) {
        for case in cases() {
            check_fractions(world, fractions, &case)?;
            for alpha in [0.01, 1.0] {
                check_aux_loss(world, aux_loss, &case, alpha, 1e-6)?;
            }
        }
        Ok(())
    }
}
