//! Chapter 9 exercise 9.7 (optional): the MLP with sequence parallelism (solution).

use crate::linear::column_forward;
use crate::ops::gelu;
use crate::params::BlockParams;
use crate::tape::Tape;
use crate::tp::Tp;
use tch::Tensor;

// ANCHOR: sp_mlp_forward
/// The MLP with sequence parallelism: allgather in, reduce-scatter out, each the other's
/// backward.
pub fn sp_mlp_forward<'a>(tape: &mut Tape<'a>, tp: &'a Tp, p: &BlockParams, x: &Tensor) -> Tensor {
    let whole = tape.cut(
        x,
        |x| tp.gather_tokens(x),
        move |d| tp.scatter_tokens_sum(d),
    );
    let u = gelu(&column_forward(&whole, &p.w1, &p.b1));
    let partial = u.linear::<&Tensor>(&p.w2, None);
    let mine = tape.cut(
        &partial,
        |q| tp.scatter_tokens_sum(q),
        move |d| tp.gather_tokens(d),
    );
    mine + &p.b2
}
// ANCHOR_END: sp_mlp_forward
