//! Checks of exercise 9.2 (f and g) at t = 1..4 ranks: each forward and backward on its
//! own against known sums (small integers: exact), then each across a graph cut of the
//! tape, the gradient reaching the leaf before the cut.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main mappings::`.

use crate::common;

use crate::common::RANKS;
use ch09::mappings::{f_backward, f_forward, g_backward, g_forward};
use ch09::tape::Tape;
use ch09::tp::Tp;
use tch::{Kind, Tensor};
use toolkit::mpi_test;

/// Rank r's tensor: `r * 100 + i` at element i (exact in f32 and f64).
fn marked(r: usize, kind: Kind) -> Tensor {
    (Tensor::arange(6, (kind, tch::Device::Cpu)) + (r * 100) as f64).view([2, 3])
}

/// The sum over t ranks of [`marked`].
fn summed(t: usize, kind: Kind) -> Tensor {
    let all: Vec<Tensor> = (0..t).map(|r| marked(r, kind)).collect();
    Tensor::stack(&all, 0).sum_dim_intlist(&[0i64][..], false, kind)
}

fn exact(what: &str, tp: &Tp, got: &Tensor, want: &Tensor) -> Result<(), String> {
    common::close(what, tp, got, want, 0.0)
}

mpi_test! {
    fn ex9_2_f_is_identity_forward_and_a_sum_backward(world at RANKS) {
        let tp = Tp::new(world);
        let (r, t) = (tp.rank(), tp.size());
        for kind in [Kind::Double, Kind::Float] {
            let x = marked(r, kind);
            exact("f_forward (f's forward: the identity)", &tp, &f_forward(&x), &x)?;
            exact("f_backward (f's backward: the sum over the ranks)", &tp, &f_backward(&tp, &x), &summed(t, kind))?;
            // Across a cut: y = f(x) feeds this rank's loss sum(y * marked(r)).
            let leaf = marked(0, kind).set_requires_grad(true);
            let mut tape = Tape::new();
            let y = tape.f(&tp, &leaf);
            let loss = (&y * marked(r, kind)).sum(kind);
            let dx = tape.backward(&loss, &loss.ones_like());
            exact("the gradient before f's cut", &tp, &leaf.grad(), &summed(t, kind))?;
            exact("the tape's returned gradient", &tp, &dx, &summed(t, kind))?;
        }
        Ok(())
    }
}

mpi_test! {
    fn ex9_2_g_is_a_sum_forward_and_identity_backward(world at RANKS) {
        let tp = Tp::new(world);
        let (r, t) = (tp.rank(), tp.size());
        for kind in [Kind::Double, Kind::Float] {
            let x = marked(r, kind);
            exact("g_forward (g's forward: the sum over the ranks)", &tp, &g_forward(&tp, &x), &summed(t, kind))?;
            exact("g_backward (g's backward: the identity)", &tp, &g_backward(&x), &x)?;
            // Across a cut: z = g(x_r) feeds sum(z * marked(0)): the same gradient on
            // every rank reaches each rank's leaf unchanged.
            let leaf = marked(r, kind).set_requires_grad(true);
            let mut tape = Tape::new();
            let z = tape.g(&tp, &(&leaf * 1.0));
            exact("g's output across the cut", &tp, &z, &summed(t, kind))?;
            let loss = (&z * marked(0, kind)).sum(kind);
            let dx = tape.backward(&loss, &loss.ones_like());
            exact("the gradient before g's cut", &tp, &leaf.grad(), &marked(0, kind))?;
            exact("the tape's returned gradient", &tp, &dx, &marked(0, kind))?;
        }
        Ok(())
    }
}
