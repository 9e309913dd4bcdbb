//! Given: the `less_bench` benchmark's methods, each a way for the ranks to combine their
//! gradients of [`crate::lsq`]'s least-squares problem, trained by one loop: the dense
//! MPI_Allreduce, both hierarchical allreduces (ex 12.1, 12.2), top-k with error
//! feedback (ex 12.3), 8-bit codes with error feedback (ex 12.4, gathered here) and
//! local SGD (ex 12.5). Nothing to run here: the benchmark uses it.

use crate::averaging::Averaging;
use crate::feedback::Feedback;
use crate::lsq::Problem;
use crate::nodes::NodeGroups;
use crate::{busy, hier, local, quant, topk};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// The 8-bit codes' bucket: one `f32` scale per this many elements.
pub const BUCKET: usize = 64;

/// How the ranks combine their gradients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// MPI_Allreduce of the whole gradient (chapters 3 and 6).
    Dense,
    /// Ex 12.1: through one leader per node.
    Leaders,
    /// Ex 12.2: every rank carries a shard across the nodes (nodes of equal size).
    Busy,
    /// Ex 12.3: the top `percent` with error feedback.
    TopK(f64),
    /// Ex 12.4: 8-bit codes and a scale per [`BUCKET`], with error feedback, gathered.
    Quant8,
    /// Ex 12.5: local SGD, the parameters averaged every `H` steps.
    Local(usize),
}

impl Method {
    /// The name in the table.
    pub fn name(self) -> String {
        match self {
            Method::Dense => "dense allreduce".into(),
            Method::Leaders => "hierarchical, leaders".into(),
            Method::Busy => "hierarchical, busy".into(),
            Method::TopK(pct) => format!("top-k {pct}% + feedback"),
            Method::Quant8 => "8-bit + feedback".into(),
            Method::Local(h) => format!("local SGD, H = {h}"),
        }
    }
}

/// What one method measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The bytes one rank handed to the exchange per step, counted.
    pub bytes_per_step: usize,
    /// Seconds per step in the exchange, the slowest rank's.
    pub exchange_secs: f64,
    /// Seconds per step in all, the slowest rank's.
    pub step_secs: f64,
    /// The loss after the last step (of the averaged parameters for local SGD).
    pub loss: f64,
}

/// The sum over the ranks of every rank's 8-bit codes in buckets of [`BUCKET`]
/// (ex 12.4's `quantized_sum`), and the bytes this rank sent: its scales and its codes.
/// The `compress_cnn` lab's 8-bit backend uses it too ([`crate::compressed`]).
pub fn quantized_sum(
    world: &SimpleCommunicator,
    scales: &[f32],
    codes: &[i8],
) -> (Vec<f32>, usize) {
    (
        quant::quantized_sum(world, scales, codes, BUCKET),
        std::mem::size_of_val(scales) + std::mem::size_of_val(codes),
    )
}

/// `steps` steps of `method` with learning rate `lr` from zero weights; `groups` are the
/// node groups of the hierarchical methods. A bad share or period refused in one line
/// before the first step.
pub fn measure(
    world: &SimpleCommunicator,
    groups: &NodeGroups,
    p: &Problem,
    method: Method,
    steps: usize,
    lr: f32,
) -> Result<Measured, String> {
    let pct = match method {
        Method::TopK(pct) => pct,
        _ => 100.0,
    };
    let mut fb = Feedback::new(p.dim, pct)?;
    let mut avg = Averaging::new(if let Method::Local(h) = method { h } else { 1 })?;
    let mut residual = vec![0f32; p.dim];
    let (mut w, mut bytes, mut exchange) = (vec![0f32; p.dim], 0usize, 0f64);
    let ranks = world.size() as f32;
    toolkit::idle::barrier(world);
    let start = Instant::now();
    for _ in 0..steps {
        let grad = p.loss_and_grad(&w).1;
        let t = Instant::now();
        let sum = match method {
            Method::Dense => {
                let mut sum = vec![0f32; p.dim];
                world.all_reduce_into(&grad[..], &mut sum[..], SystemOperation::sum());
                Some(sum)
            }
            Method::Leaders => Some(hier::allreduce_leaders(groups, &grad)),
            Method::Busy => Some(busy::allreduce_busy(groups, &grad)),
            Method::TopK(_) => Some(topk::step(world, &mut fb, &grad)),
            Method::Quant8 => {
                let (scales, codes) = quant::quantize_with_feedback(&mut residual, &grad, BUCKET);
                let (sum, sent) = quantized_sum(world, &scales, &codes);
                bytes += sent;
                Some(sum)
            }
            Method::Local(_) => {
                let mine: Vec<f32> = grad.iter().map(|g| g * ranks).collect();
                local::step(world, &mut avg, &mut w, &mine, lr);
                None
            }
        };
        exchange += t.elapsed().as_secs_f64();
        if let Some(sum) = sum {
            bytes += match method {
                Method::Dense | Method::Leaders | Method::Busy => std::mem::size_of_val(&grad[..]),
                _ => 0,
            };
            for (wi, g) in w.iter_mut().zip(&sum) {
                *wi -= lr * g;
            }
        }
    }
    let n = steps.max(1) as f64;
    let mine = [exchange / n, start.elapsed().as_secs_f64() / n];
    let mut slowest = [0f64; 2];
    world.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
    let mut loss = 0f64;
    world.all_reduce_into(&p.loss_and_grad(&w).0, &mut loss, SystemOperation::sum());
    Ok(Measured {
        bytes_per_step: (bytes + fb.bytes_sent + avg.bytes_sent) / steps.max(1),
        exchange_secs: slowest[0],
        step_secs: slowest[1],
        loss,
    })
}
