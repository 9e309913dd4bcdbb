//! Chapter 9 exercise 9.4: the tensor-parallel MLP block (solution).

use crate::linear::{column_forward, row_forward};
use crate::ops::gelu;
use crate::params::BlockParams;
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: mlp_forward
/// The MLP's forward on this rank's shard, with its cuts f and g.
pub fn mlp_forward<'a>(tape: &mut Tape<'a>, tp: &'a Tp, p: &BlockParams, x: &Tensor) -> Tensor {
    let x = tape.f(tp, x);
    let u = gelu(&column_forward(&x, &p.w1, &p.b1));
    row_forward(tape, tp, &u, &p.w2, &p.b2)
}
// ANCHOR_END: mlp_forward
