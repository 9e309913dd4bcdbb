//! Given: gradient compression as a chapter 6 [`Allreduce`] backend, so that chapter 6's
//! trainer syncs its CNN's gradients through this chapter's pieces: the dense
//! MPI_Allreduce (chapter 6's [`MpiAllreduce`]), ex 12.1's hierarchical allreduce through
//! one leader per node (two nodes in blocks: on the two-node namespace cluster, the real
//! ones), ex 12.3's top-k step with or without error feedback, or ex 12.4's 8-bit codes
//! with error feedback, summed by ex 12.4's `quantized_sum`
//! ([`crate::side_by_side::quantized_sum`] counts the bytes); or no sum at all, for local
//! SGD (the run averages the parameters itself). Every call counts the bytes this rank
//! hands to the exchange. Nothing to run here: the `compress_cnn` and `compress_gpt` labs
//! and the tests use it.
//!
//! A residual belongs to one gradient buffer. Chapter 6's bucketed sync calls
//! `sum_in_place` once per bucket, in the same order every step, so the backend keeps one
//! residual per bucket and takes them in turn; a buffer of another length than its
//! bucket's stops the job with a message (the trainer's buckets are not the ones given).

use crate::feedback::Feedback;
use crate::nodes::{NodeGroups, Nodes};
use crate::side_by_side::{quantized_sum, BUCKET};
use crate::{hier, quant, topk};
use ch06::reducer::{Allreduce, MpiAllreduce};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// How the ranks' gradients are summed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme {
    /// MPI_Allreduce of the whole buffer (chapter 6's default backend).
    Dense,
    /// Ex 12.1: the node sums, an allreduce among the leaders, a broadcast in each node.
    Leaders,
    /// Ex 12.3: the top `percent` of each buffer; `feedback: false` drops the residual
    /// after every step.
    TopK { percent: f64, feedback: bool },
    /// Ex 12.4: 8-bit codes and one scale per [`BUCKET`] elements, with error feedback.
    Quant8,
    /// Ex 12.5: no gradient sum at all (each rank steps on its own gradient); the run
    /// averages the parameters every `every` steps (`crate::cnn_run`).
    LocalSgd { every: usize },
}

impl Scheme {
    /// The name in the lab's table.
    pub fn name(self) -> String {
        match self {
            Scheme::Dense => "dense allreduce".into(),
            Scheme::Leaders => "hierarchical, leaders".into(),
            Scheme::TopK {
                percent,
                feedback: true,
            } => format!("top-k {percent}% + feedback"),
            Scheme::TopK { percent, .. } => format!("top-k {percent}%, no feedback"),
            Scheme::Quant8 => "8-bit + feedback".into(),
            Scheme::LocalSgd { every } => format!("local SGD, H = {every}"),
        }
    }
}

/// The compressed sums both compression labs compare with the dense one: top-k at 10% and
/// at 1% with error feedback, top-k at 1% without it, and the 8-bit codes.
pub const COMPRESSED: [Scheme; 4] = [
    Scheme::TopK {
        percent: 10.0,
        feedback: true,
    },
    Scheme::TopK {
        percent: 1.0,
        feedback: true,
    },
    Scheme::TopK {
        percent: 1.0,
        feedback: false,
    },
    Scheme::Quant8,
];

/// The per-bucket state and which bucket the next call sums.
struct State {
    buckets: Vec<Feedback>,
    next: usize,
}

/// A chapter 6 [`Allreduce`] that sums with a [`Scheme`] and counts the bytes sent.
pub struct Compressed<'w> {
    world: &'w SimpleCommunicator,
    scheme: Scheme,
    dense: MpiAllreduce<'w>,
    /// The node groups of [`Scheme::Leaders`] (two nodes, ranks in blocks).
    groups: Option<NodeGroups>,
    state: RefCell<State>,
    bytes: Rc<Cell<usize>>,
}

impl<'w> Compressed<'w> {
    /// A backend over `world` for buffers of `bucket_lens` elements, summed in that order
    /// every step (one residual each). A share outside (0, 100] percent, or no buckets,
    /// refused in one line before any communication.
    pub fn new(
        world: &'w SimpleCommunicator,
        scheme: Scheme,
        bucket_lens: &[usize],
    ) -> Result<Self, String> {
        if bucket_lens.is_empty() {
            return Err("compressed sync: no gradient buckets to sum".into());
        }
        let percent = match scheme {
            Scheme::TopK { percent, .. } => percent,
            Scheme::Dense | Scheme::Leaders | Scheme::Quant8 | Scheme::LocalSgd { .. } => 100.0,
        };
        let buckets = bucket_lens
            .iter()
            .map(|&len| Feedback::new(len, percent))
            .collect::<Result<Vec<_>, _>>()?;
        let groups = match scheme {
            Scheme::Leaders => Some(NodeGroups::new(
                world,
                Nodes::Emulated(world.size().min(2) as usize),
            )?),
            _ => None,
        };
        Ok(Compressed {
            world,
            scheme,
            dense: MpiAllreduce::new(world),
            groups,
            state: RefCell::new(State { buckets, next: 0 }),
            bytes: Rc::new(Cell::new(0)),
        })
    }

    /// The count of bytes this rank has handed to the exchanges, shared: it can still be
    /// read after the backend has moved into the trainer.
    pub fn bytes(&self) -> Rc<Cell<usize>> {
        Rc::clone(&self.bytes)
    }
}

impl Allreduce for Compressed<'_> {
    fn sum_in_place(&self, buf: &mut [f32]) {
        let mut state = self.state.borrow_mut();
        let at = state.next;
        state.next = (at + 1) % state.buckets.len();
        let fb = &mut state.buckets[at];
        assert_eq!(
            fb.residual.len(),
            buf.len(),
            "compressed sync: call {at} of a step summed {} elements, but bucket {at} has {}: \
             sync bucketed, with the buckets the backend was built for",
            buf.len(),
            fb.residual.len()
        );
        let sent = match self.scheme {
            Scheme::Dense => {
                self.dense.sum_in_place(buf);
                std::mem::size_of_val(buf)
            }
            Scheme::Leaders => {
                let groups = self.groups.as_ref().expect("built with the scheme");
                buf.copy_from_slice(&hier::allreduce_leaders(groups, buf));
                std::mem::size_of_val(buf)
            }
            Scheme::TopK { feedback, .. } => {
                let before = fb.bytes_sent;
                let sum = topk::step(self.world, fb, buf);
                if !feedback {
                    fb.residual.fill(0.0);
                }
                buf.copy_from_slice(&sum);
                fb.bytes_sent - before
            }
            Scheme::LocalSgd { .. } => {
                // The trainer divides the "sum" by the ranks: p times its own gradient
                // leaves this rank's own gradient. Nothing is sent.
                let p = self.world.size() as f32;
                buf.iter_mut().for_each(|x| *x *= p);
                0
            }
            Scheme::Quant8 => {
                let (scales, codes) = quant::quantize_with_feedback(&mut fb.residual, buf, BUCKET);
                let (sum, sent) = quantized_sum(self.world, &scales, &codes);
                buf.copy_from_slice(&sum);
                sent
            }
        };
        self.bytes.set(self.bytes.get() + sent);
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn name(&self) -> &'static str {
        match self.scheme {
            Scheme::Dense => "mpi",
            Scheme::Leaders => "leaders",
            Scheme::TopK { .. } => "top-k",
            Scheme::Quant8 => "8-bit",
            Scheme::LocalSgd { .. } => "local",
        }
    }
}
