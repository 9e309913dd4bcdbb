//! Chapter 9 exercise 9.5: self-attention split by heads (solution).

use crate::linear::{column_forward, row_forward};
use crate::params::{BlockConfig, BlockParams};
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: attention_forward
/// Causal self-attention on this rank's heads, with its cuts f and g.
pub fn attention_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &BlockParams,
    cfg: &BlockConfig,
    x: &Tensor,
) -> Tensor {
    let x = tape.f(tp, x);
    let q = column_forward(&x, &p.wq, &p.bq);
    let k = column_forward(&x, &p.wk, &p.bk);
    let v = column_forward(&x, &p.wv, &p.bv);
    let heads = tape.attend(tp, &q, &k, &v, cfg.head_dim());
    row_forward(tape, tp, &heads, &p.wo, &p.bo)
}
// ANCHOR_END: attention_forward
