//! Chapter 8 exercise 8.3: the backward of one ZeRO-3 layer.
//!
//! At ZeRO-3 a rank holds only its shard of each layer's parameters. The executor
//! (`crate::zero3`) gathers a layer's parameters for its forward and frees them at once,
//! keeping only the layer's input. The backward, last layer first, needs the parameters
//! again: it is handed a freshly gathered copy, recomputes the layer's forward from the
//! kept input, takes the vector-Jacobian product (`Tensor::run_backward`), reduce-scatters
//! the layer's whole gradient so that this rank keeps the average of its shard, and frees
//! the gathered copy and the whole gradient. Check with `make check CH=08` (tests/zero3.rs:
//! N = 1..8 ranks against one process's Adam, bit for bit).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::halves::Halves;
use crate::layers::{Counted, Meter, Unit, Upstream};
use tch::{Kind, Tensor};

// ANCHOR: backward_layer
/// The backward of `unit` on this rank. `gathered`: the unit's parameters, all N shards
/// gathered (`gathered.params(unit)` gives them as tensors that require a gradient).
/// `input`: the unit's input kept from the forward; it requires a gradient unless the
/// unit is the first. Recompute the unit's output from `input`, back-propagate
/// `upstream` through it, then reduce-scatter the unit's gradient (flat: bias, weight,
/// then zeros up to `unit.layout.padded`, in a buffer counted on `meter` with
/// [`Counted::zeros`], made before the VJP: the gradient exists from then on) into
/// `grad_shard` (S elements), averaged over the ranks. Frees
/// the gathered copy and the whole gradient before it returns. Returns the gradient of
/// `input`, or `None` when `input` does not require one.
pub fn backward_layer(
    halves: &dyn Halves,
    unit: &Unit,
    gathered: Counted,
    input: &Tensor,
    upstream: Upstream,
    grad_shard: &mut [f32],
    meter: &Meter,
) -> Option<Tensor> {
    // TODO(ex 8.3): recompute, run_backward, pack into a counted buffer, sum_scatter, / N
    todo!("ex 8.3: the backward of one ZeRO-3 layer: recompute, VJP, reduce-scatter, free")
}
// ANCHOR_END: backward_layer
