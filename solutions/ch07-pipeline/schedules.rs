//! Exercises 7.3 and 7.4: solutions. Compiled instead of the stubs by `--features
//! solution` (`make run CH=07 SOLUTION=1`, `cargo test -p ch07-pipeline --features
//! solution`).

use crate::plan::{Kind, Op, Schedule};

// ANCHOR: gpipe
/// GPipe: all forwards, then all backwards, in the forwards' order. Any backward order is
/// correct; this one makes every link carry its messages in the order the receiver
/// consumes them, and differs from 1F1B only in where the backwards go.
pub fn gpipe(p: usize, m: usize) -> Schedule {
    let stage: Vec<Op> = (0..m)
        .map(Op::Forward)
        .chain((0..m).map(Op::Backward))
        .collect();
    vec![stage; p]
}
// ANCHOR_END: gpipe

// ANCHOR: one_f_one_b
/// 1F1B: warm-up of `min(p - s - 1, m)` forwards, steady forward/backward pairs, then the
/// cool-down backwards.
pub fn one_f_one_b(p: usize, m: usize) -> Schedule {
    (0..p)
        .map(|s| {
            let warmup = (p - s - 1).min(m);
            let mut ops: Vec<Op> = (0..warmup).map(Op::Forward).collect();
            for i in 0..m - warmup {
                ops.push(Op::Forward(warmup + i));
                ops.push(Op::Backward(i));
            }
            ops.extend((m - warmup..m).map(Op::Backward));
            ops
        })
        .collect()
}
// ANCHOR_END: one_f_one_b

/// The schedule of `kind` (given: calls yours).
pub fn build(kind: Kind, p: usize, m: usize) -> Schedule {
    match kind {
        Kind::GPipe => gpipe(p, m),
        Kind::OneFOneB => one_f_one_b(p, m),
    }
}
