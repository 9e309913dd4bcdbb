//! Given: the tensor-parallel transformer block, forward and backward.
//!
//! `h = x + attention(ln1(x))`, `h + mlp(ln2(h))`, each half with its f and g: two
//! allreduces forward (the two g's), two backward (the two f's). The block's input and
//! `h` are marked on the tape: each feeds a residual and a layer norm, and its gradient
//! is the sum of both before it goes upstream. The layer norms are not split: every rank
//! computes them on the whole (replicated) activations.

use crate::attention::attention_forward;
use crate::mlp::mlp_forward;
use crate::ops::layer_norm;
use crate::params::{BlockConfig, BlockParams};
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: block_forward
/// The block's forward on this rank's shard `p`, recording its cuts on `tape`.
pub fn block_forward<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &BlockParams,
    cfg: &BlockConfig,
    x: &Tensor,
) -> Tensor {
    let x = tape.mark(x);
    let h = &x + attention_forward(tape, tp, p, cfg, &layer_norm(&x, &p.ln1_w, &p.ln1_b));
    let h = tape.mark(&h);
    &h + mlp_forward(tape, tp, p, &layer_norm(&h, &p.ln2_w, &p.ln2_b))
}
// ANCHOR_END: block_forward

/// One forward and backward of the block: the output and the input's gradient, given the
/// output's gradient `dy`; the parameters' gradients accumulate in `p`.
pub fn forward_backward(
    tp: &Tp,
    p: &BlockParams,
    cfg: &BlockConfig,
    x: &Tensor,
    dy: &Tensor,
) -> (Tensor, Tensor) {
    let mut tape = Tape::new();
    let y = block_forward(&mut tape, tp, p, cfg, x);
    let dx = tape.backward(&y, dy);
    (y.detach(), dx)
}
