//! Checks of ex 7.3 (GPipe) and 7.4 (1F1B), without MPI: every p in 1..=8 and m in
//! 1..=16 through the given checker (`ch07::schedule_check`).
//!
//! Run: `make check CH=07` (your code) or `cargo test -p ch07-pipeline --features solution`.

use crate::schedule_props::{every_case, gpipe_holds, one_f_one_b_holds};
use ch07::schedules::{gpipe, one_f_one_b};

#[test]
fn ex7_3_gpipe_is_correct_holds_m_activations_and_has_the_formula_bubble() {
    let name = "GPipe runs, holds m activations per stage, bubble (p-1)/(m+p-1)";
    if let Err(why) = every_case(name, |p, m| gpipe_holds(gpipe, p, m)) {
        toolkit::testing::fail(&why);
    }
}

#[test]
fn ex7_4_one_f_one_b_is_correct_holds_p_minus_s_activations_and_has_the_formula_bubble() {
    let name = "1F1B runs, holds at most p - s activations on stage s, bubble (p-1)/(m+p-1)";
    if let Err(why) = every_case(name, |p, m| one_f_one_b_holds(one_f_one_b, p, m)) {
        toolkit::testing::fail(&why);
    }
}
