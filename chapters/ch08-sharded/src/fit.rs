//! Given: the training loop every stage of the `zero` lab runs ([`fit_with`]), and stage
//! 0's allreduce ([`sum_over_ranks`]). Run through the lab: `make run CH=08`.

use crate::config::{Collectives, Config};
use ch06::data::Dataset;
use ch06::shuffle;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;

/// Stage 0's allreduce: the sum over all ranks of `full`, in place, with `collectives`.
pub fn sum_over_ranks(world: &SimpleCommunicator, collectives: Collectives, full: &mut [f32]) {
    match collectives {
        Collectives::Ring => {
            let sum = ch03::allreduce_ring(world, full, ch03::ops::Op::Sum);
            full.copy_from_slice(&sum);
        }
        Collectives::Mpi => {
            let send = full.to_vec();
            world.all_reduce_into(&send[..], full, SystemOperation::sum());
        }
    }
}

/// A step of any stage: `(images, labels, count_sent)` to the batch's loss and, when
/// counted, the bytes this rank sent.
pub type StepFn<'a> = &'a mut dyn FnMut(&Tensor, &Tensor, bool) -> (f64, Option<usize>);

/// Trains `cfg.epochs` epochs (or until `steps` reaches `cfg.max_steps`) on `train` with
/// `step`, each rank its strided part of every global batch, skipping the first `steps`
/// batches (done before a resume); this run's first step counts its bytes. Returns per
/// epoch the mean loss over steps and ranks, and the bytes sent in the first step; pushes
/// per epoch its seconds (the slowest rank's) and samples to `time`. With `--losses`, rank
/// 0 prints each step's loss, the mean over ranks.
pub fn fit_with(
    world: &SimpleCommunicator,
    cfg: &Config,
    train: &Dataset,
    steps: &mut u64,
    time: &mut Vec<(f64, usize)>,
    step: StepFn,
) -> (Vec<f64>, Option<usize>) {
    let (rank, ranks) = (world.rank() as usize, world.size() as usize);
    let batch = cfg.common.batch;
    let (mut losses, mut sent, done) = (vec![], None, *steps);
    'epochs: for epoch in 0..cfg.epochs {
        let order = shuffle::shuffled(train.len(), cfg.common.seed, epoch);
        let (mut total, mut ran) = (0.0, 0);
        let (per_epoch, start) = (train.len() / batch, std::time::Instant::now());
        for k in 0..per_epoch {
            if cfg.max_steps.is_some_and(|m| *steps >= m) {
                break 'epochs;
            }
            if epoch * per_epoch as u64 + (k as u64) < done {
                continue; // done before the checkpoint this run resumed from
            }
            let global = &order[k * batch..(k + 1) * batch];
            let mine: Vec<usize> = global.iter().copied().skip(rank).step_by(ranks).collect();
            let (x, y) = train.batch(&mine);
            let (loss, s) = step(&x, &y, *steps == done);
            sent = sent.or(s);
            (total, ran) = (total + loss, ran + 1);
            *steps += 1;
            if cfg.losses {
                let mut sum = 0.0;
                world.all_reduce_into(&loss, &mut sum, SystemOperation::sum());
                if rank == 0 {
                    println!("step {}: loss {}", *steps, sum / ranks as f64);
                }
            }
        }
        if ran > 0 {
            let (secs, mut slowest) = (start.elapsed().as_secs_f64(), 0.0);
            world.all_reduce_into(&secs, &mut slowest, SystemOperation::max());
            time.push((slowest, ran * batch));
            let mut sum = 0.0;
            world.all_reduce_into(&(total / ran as f64), &mut sum, SystemOperation::sum());
            losses.push(sum / ranks as f64);
        }
    }
    (losses, sent)
}
