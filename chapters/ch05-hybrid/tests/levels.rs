//! Check of ex 5.1 (refusing a thread level lower than needed): every pair of needed and
//! granted levels, 16 in all, without MPI.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use ch05::levels::require;
use ch05::threading::{level_name, LEVELS};

#[test]
fn ex5_1_levels() {
    let mut problems = vec![];
    for needed in LEVELS {
        for granted in LEVELS {
            let pair = format!("require({needed:?}, {granted:?})");
            match (require(needed, granted), granted >= needed) {
                (Ok(()), true) => {}
                (Ok(()), false) => problems.push(format!(
                    "{pair} is Ok, but code that needs {} cannot run under {}",
                    level_name(needed),
                    level_name(granted)
                )),
                (Err(why), true) => problems.push(format!(
                    "{pair} refused ({why}), but {} is enough for code that needs {}",
                    level_name(granted),
                    level_name(needed)
                )),
                (Err(why), false) => {
                    let names =
                        why.contains(level_name(needed)) && why.contains(level_name(granted));
                    if !names || !why.contains("Fix:") || why.contains('\n') {
                        problems.push(format!(
                            "{pair}: the refusal should be one line naming {} and {} and a \
                             `Fix: ...`; it says: {why}",
                            level_name(needed),
                            level_name(granted)
                        ));
                    }
                }
            }
        }
    }
    if !problems.is_empty() {
        toolkit::testing::fail(&problems.join("\n"));
    }
}
