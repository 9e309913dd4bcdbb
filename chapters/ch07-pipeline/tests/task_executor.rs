//! Checks of exercise 7.9 (the executor for plans by rank): p ranks x v chunks train like
//! one process on the whole batch (same parameters after 2 SGD steps, within 1e-10
//! relative), at p = 1..4, on given reference plans (so that ex 7.9 does not wait for ex
//! 7.7 and 7.8): GPipe over v = 2 chunks per rank, and 1F1B with every backward split
//! (InputGrad then WeightGrad). Then the schedules of ex 7.7 and 7.8 themselves.
//!
//! Run: `make check CH=07` or `cargo test -p ch07-pipeline --features solution --test main task_executor::`.

use crate::common;

use ch07::greedy;
use ch07::optim::{Optimizer, Rule};
use ch07::plan::{by_rank, Pass, RankPlan, ScheduleKind, Task};
use ch07::rank_schedules::{interleaved, zero_bubble_h1};
use ch07::spans::Timeline;
use ch07::stage_model::StageModel;
use ch07::task_executor::run_tasks;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;
use toolkit::mpi_test;

const BATCH: usize = 16;
const STEPS: u64 = 2;

/// Stage `s` of `stages`, an even split of the blocks.
fn stage(s: usize, stages: usize) -> StageModel {
    let blocks = toolkit::split::block_range(common::SHAPE.depth, stages, s);
    StageModel::new(
        common::SHAPE,
        blocks,
        s == 0,
        s + 1 == stages,
        common::SEED,
        Device::Cpu,
    )
}

/// A reference plan by rank: every forward (chunk by chunk, micro-batches in order),
/// then every backward (chunks in reverse): GPipe over `v * p` stages.
fn gpipe_chunks(p: usize, v: usize, m: usize) -> RankPlan {
    let task = |stage, mb, pass| Task { stage, mb, pass };
    (0..p)
        .map(|r| {
            let f = (0..v).flat_map(|c| (0..m).map(move |mb| task(c * p + r, mb, Pass::Forward)));
            let b = (0..v)
                .rev()
                .flat_map(|c| (0..m).map(move |mb| task(c * p + r, mb, Pass::Backward)));
            f.chain(b).collect()
        })
        .collect()
}

/// 1F1B (the given reference) with each backward split in place.
fn split_1f1b(p: usize, m: usize) -> RankPlan {
    let plan = by_rank(&greedy::schedule(ScheduleKind::OneFOneB, p, m));
    let split = |t: &Task| match t.pass {
        Pass::Backward => vec![
            Task {
                pass: Pass::InputGrad,
                ..*t
            },
            Task {
                pass: Pass::WeightGrad,
                ..*t
            },
        ],
        _ => vec![*t],
    };
    plan.iter()
        .map(|ts| ts.iter().flat_map(split).collect())
        .collect()
}

/// Trains `plan` (v chunks per rank) for STEPS steps and compares every chunk with one
/// process.
fn trains_like_one_process(
    world: &SimpleCommunicator,
    plan: &RankPlan,
    v: usize,
    m: usize,
    what: &str,
) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    let reference = common::one_process(STEPS, BATCH);
    let mut chunks: Vec<StageModel> = (0..v).map(|c| stage(c * p + r, v * p)).collect();
    let mut opts: Vec<Optimizer> = chunks
        .iter()
        .map(|c| Optimizer::new(Rule::Sgd { lr: common::LR }, &c.params))
        .collect();
    let mut trace = Timeline::new();
    for step in 0..STEPS {
        let batch = common::batch(step, BATCH, 0..BATCH, m);
        chunks.iter_mut().for_each(StageModel::zero_grad);
        run_tasks(
            world,
            &plan[r],
            &chunks,
            &batch,
            common::reference_transfer(),
            &mut trace,
        )?;
        for (c, opt) in chunks.iter_mut().zip(&mut opts) {
            let grads = c.grads();
            opt.step(&mut c.params, &grads);
        }
    }
    let mine = chunks.iter().enumerate().try_for_each(|(c, chunk)| {
        let what = format!(
            "{what}, {p} ranks x {v} chunks x {m} micro-batches, stage {}",
            c * p + r
        );
        common::same_as_one_process(chunk, &reference, &what)
    });
    toolkit::lockstep::agree(world, mine)
}

mpi_test! {
    fn ex7_9_a_rank_with_several_stages_and_split_backwards_trains_like_one_process(world at &[1, 2, 3, 4]) {
        tch::set_num_threads(1);
        let p = world.size() as usize;
        for m in [1, 2, 4] {
            trains_like_one_process(world, &gpipe_chunks(p, 2, m), 2, m, "GPipe over chunks")?;
            trains_like_one_process(world, &split_1f1b(p, m), 1, m, "1F1B, backwards split")?;
        }
        Ok(())
    }
}

mpi_test! {
    fn interleaved_and_zero_bubble_train_like_one_process(world at &[1, 2, 3, 4]) {
        tch::set_num_threads(1);
        let p = world.size() as usize;
        for m in [1, 2, 4, 8] {
            trains_like_one_process(world, &interleaved(p, 2, m), 2, m, "interleaved 1F1B")?;
            trains_like_one_process(world, &zero_bubble_h1(p, m), 1, m, "ZB-H1")?;
        }
        Ok(())
    }
}
