//! Checks of ex 7.1 (the stage split), without MPI: random layer costs against a brute
//! force over every split, and bad settings.
//!
//! Run: `make check CH=07` (your code) or `cargo test -p ch07-pipeline --features solution`.

use crate::schedule_props::split_property;
use ch07::stages::split_stages;

#[test]
fn ex7_1_split_is_contiguous_and_optimal() {
    if let Err(why) = split_property(split_stages, 300, None) {
        toolkit::testing::fail(&why);
    }
}

#[test]
fn ex7_1_bad_settings_are_refused_in_one_line() {
    let bad: [(&[f64], usize, &str); 5] = [
        (&[1.0, 2.0], 0, "0 stages"),
        (&[1.0, 2.0], 3, "3 stages for 2 layers"),
        (&[], 1, "no layer at all"),
        (&[1.0, f64::NAN], 1, "a NaN cost"),
        (&[1.0, -2.0, 3.0], 2, "a negative cost"),
    ];
    for (costs, p, what) in bad {
        match split_stages(costs, p) {
            Ok(r) => toolkit::testing::fail(&format!("{what}: accepted ({r:?}); refuse it")),
            Err(why) if why.trim().is_empty() || why.contains('\n') => toolkit::testing::fail(
                &format!("{what}: refuse in one line that says why, not {why:?}"),
            ),
            Err(_) => {}
        }
    }
}
