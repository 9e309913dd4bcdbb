//! Given: the model the `compress` lab trains, least squares on data the program makes
//! from a seed, and its data-parallel training loop with a dense or a compressed sum of
//! the gradients (ex 12.3). Row `i` of the data is the same at any number of ranks: the
//! rows are dealt to the ranks in blocks, so every job trains the same problem. Nothing
//! to run here: the lab and the tests use it.

use crate::feedback::Feedback;
use crate::topk::step;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use toolkit::split::block_range;

/// This rank's rows of the problem: `y ≈ x · w_true`, with noise.
pub struct Problem {
    /// The number of features.
    pub dim: usize,
    /// The rows in the whole job.
    pub total_rows: usize,
    /// This rank's rows, `dim` features each, row after row.
    pub x: Vec<f32>,
    /// This rank's targets.
    pub y: Vec<f32>,
}

/// splitmix64, as a uniform number in [-1, 1).
fn uniform(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

impl Problem {
    /// Rank `rank`'s block of `rows` rows of `dim` features, from `seed`: features
    /// uniform in [-1, 1), true weights uniform in [-1, 1), noise uniform in [-0.1, 0.1).
    pub fn new(seed: u64, rows: usize, dim: usize, rank: usize, ranks: usize) -> Problem {
        let mut s = seed;
        let w_true: Vec<f32> = (0..dim).map(|_| uniform(&mut s)).collect();
        let (mut x, mut y) = (vec![], vec![]);
        for row in block_range(rows, ranks, rank) {
            let mut s = seed ^ (row as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
            let xs: Vec<f32> = (0..dim).map(|_| uniform(&mut s)).collect();
            let dot: f32 = xs.iter().zip(&w_true).map(|(a, b)| a * b).sum();
            y.push(dot + 0.1 * uniform(&mut s));
            x.extend(xs);
        }
        Problem {
            dim,
            total_rows: rows,
            x,
            y,
        }
    }

    /// This rank's part of the loss (Σ ½(x·w − y)² over its rows, divided by the rows in
    /// the job) and of the gradient, so that the sums over the ranks are the loss and
    /// the gradient of the mean.
    pub fn loss_and_grad(&self, w: &[f32]) -> (f64, Vec<f32>) {
        let n = self.total_rows as f32;
        let (mut loss, mut grad) = (0f64, vec![0f32; self.dim]);
        for (xs, y) in self.x.chunks(self.dim).zip(&self.y) {
            let err = xs.iter().zip(w).map(|(a, b)| a * b).sum::<f32>() - y;
            loss += 0.5 * (err as f64).powi(2);
            for (g, a) in grad.iter_mut().zip(xs) {
                *g += err * a / n;
            }
        }
        (loss / self.total_rows as f64, grad)
    }
}

/// How the ranks sum their gradients.
#[derive(Clone, Copy, Debug)]
pub enum Sync {
    /// MPI_Allreduce of the whole gradient.
    Dense,
    /// Ex 12.3's step keeping `percent` of the elements; without `feedback` the residual
    /// is set back to zero after every step (what was not sent is lost).
    TopK { percent: f64, feedback: bool },
}

/// What a training run measured.
pub struct Run {
    /// The loss before the first step and after each step, on every rank.
    pub losses: Vec<f64>,
    /// The weights at the end.
    pub weights: Vec<f32>,
    /// The bytes one rank contributed per step, counted.
    pub bytes_per_step: usize,
    /// The seconds per step, the slowest rank's.
    pub secs_per_step: f64,
}

/// `steps` steps of gradient descent with learning rate `lr` from zero weights; a bad
/// share of top-k refused in one line before the first step.
pub fn train(
    world: &SimpleCommunicator,
    p: &Problem,
    sync: Sync,
    steps: usize,
    lr: f32,
) -> Result<Run, String> {
    let percent = match sync {
        Sync::Dense => 100.0,
        Sync::TopK { percent, .. } => percent,
    };
    let mut fb = Feedback::new(p.dim, percent)?;
    let mut w = vec![0f32; p.dim];
    let (mut losses, mut dense_bytes) = (vec![], 0);
    let global = |local: f64| {
        let mut sum = 0f64;
        world.all_reduce_into(&local, &mut sum, SystemOperation::sum());
        sum
    };
    world.barrier();
    let start = Instant::now();
    for _ in 0..steps {
        let (loss, grad) = p.loss_and_grad(&w);
        losses.push(global(loss));
        let sum = match sync {
            Sync::Dense => {
                let mut sum = vec![0f32; p.dim];
                world.all_reduce_into(&grad[..], &mut sum[..], SystemOperation::sum());
                dense_bytes += std::mem::size_of_val(&grad[..]);
                sum
            }
            Sync::TopK { feedback, .. } => {
                let sum = step(world, &mut fb, &grad);
                if !feedback {
                    fb.residual.fill(0.0);
                }
                sum
            }
        };
        for (wi, g) in w.iter_mut().zip(&sum) {
            *wi -= lr * g;
        }
    }
    let mine = start.elapsed().as_secs_f64() / steps.max(1) as f64;
    let mut secs_per_step = 0f64;
    world.all_reduce_into(&mine, &mut secs_per_step, SystemOperation::max());
    losses.push(global(p.loss_and_grad(&w).0));
    Ok(Run {
        losses,
        weights: w,
        bytes_per_step: (dense_bytes + fb.bytes_sent) / steps.max(1),
        secs_per_step,
    })
}
