//! Chapter 8 exercise 8.3: the backward of one ZeRO-3 layer (solution).

use crate::halves::Halves;
use crate::layers::{Counted, Meter, Unit, Upstream};
use tch::{Kind, Tensor};

// ANCHOR: backward_layer
/// The backward of `unit` on this rank: recompute, VJP, reduce-scatter (averaged), free.
pub fn backward_layer(
    halves: &dyn Halves,
    unit: &Unit,
    gathered: Counted,
    input: &Tensor,
    upstream: Upstream,
    grad_shard: &mut [f32],
    meter: &Meter,
) -> Option<Tensor> {
    // Recompute the forward on the gathered parameters: a graph from `input` and them.
    let params = gathered.params(unit);
    let out = unit.forward(input, &params);
    let z = match upstream {
        Upstream::Loss(labels) => out.cross_entropy_for_logits(labels),
        // d/d out of sum(out * g) is g: the VJP with the gradient from above.
        Upstream::Grad(g) => (&out * g).sum(Kind::Float),
    };
    let mut wrt: Vec<&Tensor> = params.iter().collect();
    let needs_dx = input.requires_grad();
    if needs_dx {
        wrt.push(input);
    }
    // The unit's whole gradient, counted from now until it is scattered.
    let mut full = Counted::zeros(unit.layout.padded, meter);
    let mut grads = Tensor::run_backward(&[&z], &wrt, false, false);
    let dx = needs_dx.then(|| grads.pop().expect("the input's gradient"));
    ch06::flat::pack(&grads, &mut full.values_mut()[..unit.params()]);
    drop((grads, params, out, z));
    drop(gathered); // free the gathered parameters

    // Communication: this rank's shard of the summed gradient, then the average.
    halves.sum_scatter(full.values(), grad_shard);
    let n = halves.ranks() as f32;
    grad_shard.iter_mut().for_each(|g| *g /= n);
    drop(full);
    dx
}
// ANCHOR_END: backward_layer
