//! Given: the model the chapter trains and checkpoints. Each rank holds a shard of P
//! parameters (the ranks' shards in rank order make the whole vector) and Adam's two
//! moments for it, as a ZeRO stage-3 rank does. The loss is `1/2 |w - t|^2` for a target
//! `t` that the program generates from the element's global index, so every element's
//! trajectory is the same at any rank count: the one-process run is the truth. A step
//! touches every element (gradient, Adam) and sums the loss over the ranks (one
//! MPI_Allreduce), so its time grows with P as a real step's does.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A rank's training state at a step, copied to host memory: what a save writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The number of steps taken.
    pub step: u64,
    /// The global index of this shard's first element.
    pub offset: u64,
    /// The parameters of the shard.
    pub params: Vec<f32>,
    /// Adam's first moment.
    pub m: Vec<f32>,
    /// Adam's second moment.
    pub v: Vec<f32>,
}

impl Snapshot {
    /// Bytes of the three vectors.
    pub fn bytes(&self) -> u64 {
        4 * (self.params.len() + self.m.len() + self.v.len()) as u64
    }
}

/// The elements `[start, end)` of P that rank `q` of `n` holds: P/n each, the first
/// P mod n ranks one more.
pub fn shard_range(p: usize, q: usize, n: usize) -> (usize, usize) {
    let (base, extra) = (p / n, p % n);
    let start = q * base + q.min(extra);
    (start, start + base + usize::from(q < extra))
}

/// The target of element `i`: a fixed pattern in [-1, 1).
fn target(i: usize) -> f32 {
    ((i.wrapping_mul(2_654_435_761) % 2001) as f32 - 1000.0) / 1000.0
}

/// One rank's shard of the model and its optimizer.
pub struct ShardModel {
    /// The state a checkpoint saves.
    pub state: Snapshot,
    target: Vec<f32>,
}

/// Adam's constants (learning rate 0.01, the usual betas and epsilon).
const LR: f32 = 0.01;
const BETAS: (f32, f32) = (0.9, 0.999);
const EPS: f32 = 1e-8;

impl ShardModel {
    /// Rank `q`'s shard of a model of `p` parameters over `n` ranks, at step 0 (all zero).
    pub fn new(p: usize, q: usize, n: usize) -> ShardModel {
        let (start, end) = shard_range(p, q, n);
        let zeros = vec![0.0; end - start];
        ShardModel {
            state: Snapshot {
                step: 0,
                offset: start as u64,
                params: zeros.clone(),
                m: zeros.clone(),
                v: zeros,
            },
            target: (start..end).map(target).collect(),
        }
    }

    /// One Adam step on the shard; the loss over every rank of `world` (collective).
    pub fn step(&mut self, world: &SimpleCommunicator) -> f64 {
        let s = &mut self.state;
        s.step += 1;
        let t = s.step as i32;
        let (c1, c2) = (1.0 - BETAS.0.powi(t), 1.0 - BETAS.1.powi(t));
        let mut loss = 0.0f64;
        for i in 0..s.params.len() {
            let g = s.params[i] - self.target[i];
            loss += 0.5 * f64::from(g) * f64::from(g);
            s.m[i] = BETAS.0 * s.m[i] + (1.0 - BETAS.0) * g;
            s.v[i] = BETAS.1 * s.v[i] + (1.0 - BETAS.1) * g * g;
            s.params[i] -= LR * (s.m[i] / c1) / ((s.v[i] / c2).sqrt() + EPS);
        }
        let mut total = 0.0f64;
        world.all_reduce_into(&loss, &mut total, SystemOperation::sum());
        total
    }

    /// The state, copied: what the training thread hands to a save (it goes on changing
    /// its own copy).
    pub fn snapshot(&self) -> Snapshot {
        self.state.clone()
    }

    /// Takes up training from `saved` (a checkpoint of this rank's shard).
    pub fn restore(&mut self, saved: Snapshot) -> Result<(), String> {
        if saved.offset != self.state.offset || saved.params.len() != self.state.params.len() {
            return Err(format!(
                "the checkpoint holds elements {}.. ({} of them), this rank {}.. ({}): another shard",
                saved.offset,
                saved.params.len(),
                self.state.offset,
                self.state.params.len()
            ));
        }
        self.state = saved;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::shard_range;

    #[test]
    fn the_shards_cover_p_in_order() {
        for (p, n) in [(10, 3), (7, 7), (5, 8), (1 << 20, 4)] {
            let mut next = 0;
            for q in 0..n {
                let (s, e) = shard_range(p, q, n);
                assert_eq!(s, next);
                assert!(e - s <= p / n + 1);
                next = e;
            }
            assert_eq!(next, p);
        }
    }
}
