//! Checks of exercise 15.2 (how often to save), in one process: the waste of worked
//! intervals (the saves' share and the lost work's, each alone), Young's interval on
//! worked values, and that it is where the waste is smallest (no interval 1% shorter or
//! longer wastes less). Run: `make check CH=15` or `cargo test -p ch15-failures --features
//! solution --test main interval::`.

use crate::common::check_interval;
use ch15::interval::{waste, young_interval};

#[test]
fn ex15_2_the_waste_and_youngs_interval() {
    if let Err(why) = check_interval(waste, young_interval) {
        panic!("{why}");
    }
}
