//! Given: the experts. Each is a linear map of a row, `y = W·x + b` (`W` is
//! `hidden × hidden`), its weights drawn from a seed, so every rank can build the same
//! experts without communicating; or the identity, for the checks.
//!
//! Part 1 runs the forward only, so plain `f32` arithmetic serves; part 2, which trains
//! the layer, copies these weights into LibTorch tensors for autograd ([`crate::nets`]).

use crate::config::Layout;
use crate::routing::Dispatched;
use crate::task::Rng;

/// E experts of `hidden` floats in and out.
#[derive(Clone, Debug, PartialEq)]
pub struct Experts {
    /// Floats per row.
    pub hidden: usize,
    /// Per expert, `W` row by row (`hidden × hidden`).
    weights: Vec<Vec<f32>>,
    /// Per expert, `b`.
    biases: Vec<Vec<f32>>,
}

impl Experts {
    /// `experts` linear maps with weights drawn from `seed` (entries of scale
    /// `1/sqrt(hidden)`, so an output row is about as large as its input).
    pub fn linear(experts: usize, hidden: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let scale = 1.0 / (hidden.max(1) as f32).sqrt();
        let mut draw = |n: usize, s: f32| (0..n).map(|_| rng.normal() * s).collect();
        let weights = (0..experts).map(|_| draw(hidden * hidden, scale)).collect();
        let biases = (0..experts).map(|_| draw(hidden, 0.1)).collect();
        Experts {
            hidden,
            weights,
            biases,
        }
    }

    /// `experts` identities: `W = I`, `b = 0`; each output row equals its input exactly.
    pub fn identity(experts: usize, hidden: usize) -> Self {
        let eye = (0..hidden * hidden)
            .map(|i| f32::from(u8::from(i / hidden == i % hidden)))
            .collect();
        Experts {
            hidden,
            weights: vec![eye; experts],
            biases: vec![vec![0.0; hidden]; experts],
        }
    }

    /// The number of experts.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Expert `expert`'s `W`, row by row (`hidden × hidden`), and its `b`.
    pub fn params(&self, expert: usize) -> (&[f32], &[f32]) {
        (&self.weights[expert], &self.biases[expert])
    }

    /// `true` when there are no experts.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Expert `expert` applied to one row: `y[i] = b[i] + sum_j W[i][j]·x[j]`, summed in
    /// order of `j` (the same arithmetic on every rank, so a row's output does not depend
    /// on where it is computed).
    pub fn apply(&self, expert: usize, x: &[f32]) -> Vec<f32> {
        let (w, b) = (&self.weights[expert], &self.biases[expert]);
        (0..self.hidden)
            .map(|i| {
                let row = &w[i * self.hidden..(i + 1) * self.hidden];
                row.iter()
                    .zip(x)
                    .fold(b[i], |acc, (wij, xj)| acc + wij * xj)
            })
            .collect()
    }

    /// What rank `rank` computes after a dispatch: each received row through its expert
    /// (the local expert `l` of [`Dispatched::local_experts`] is the global expert
    /// `layout.local(rank).start + l`), the outputs in the order the rows came.
    pub fn run(&self, layout: &Layout, rank: usize, got: &Dispatched) -> Vec<f32> {
        let first = layout.local(rank).start;
        let h = self.hidden;
        got.local_experts(layout.max_local())
            .iter()
            .enumerate()
            .flat_map(|(n, &l)| self.apply(first + l, &got.rows[n * h..(n + 1) * h]))
            .collect()
    }
}
