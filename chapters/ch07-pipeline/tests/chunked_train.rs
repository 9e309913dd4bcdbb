//! Checks of the trainer on plans by rank (`pipeline --schedule interleaved|zb-h1`, the
//! given `chunked_train` on ex 7.6-7.9): at p = 1..4 ranks (and 2 x 2 with data
//! parallelism) interleaved 1F1B (v = 2) and ZB-H1 train like one process for several
//! SGD steps in f64; a run stopped at a checkpoint and resumed equals one straight run bit
//! for bit; a checkpoint saved under another schedule or chunk count (1F1B, ZB-H1,
//! interleaved with 2 or 3 chunks) is refused; bad settings fail in one line before MPI
//! starts.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main chunked_train::`.

use crate::common;

use ch07::chunked_train::ChunkedTrainer;
use ch07::pipe_config::{PipeConfig, TrainSchedule};
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::plan::ScheduleKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;
use toolkit::mpi_test;
use trainer_kit::testing::check_refusals;

const STEPS: u64 = 3;
const BATCH: usize = 16;

/// The equivalence checks' model (`common::SHAPE`, seed, learning rate) with SGD in f64,
/// quiet, on `schedule` with `dp` replicas and `m` micro-batches.
fn config(schedule: TrainSchedule, dp: usize, m: usize, steps: u64) -> PipeConfig {
    let mut c = PipeConfig {
        shape: common::SHAPE,
        micro: m,
        steps,
        sgd: true,
        schedule,
        dp,
        ..PipeConfig::default()
    };
    (c.common.batch, c.common.quiet) = (BATCH, true);
    (c.common.seed, c.common.lr) = (common::SEED, common::LR);
    c
}

fn trainer(world: &SimpleCommunicator, cfg: PipeConfig) -> Result<ChunkedTrainer<'_>, String> {
    ChunkedTrainer::new(world, cfg, learner_transfer::<f64>(), Device::Cpu)
}

/// Trains `t` to `t.cfg.steps`; the losses of the steps taken.
fn train(t: &mut ChunkedTrainer) -> Result<Vec<f64>, String> {
    let mut losses = vec![];
    while t.step < t.cfg.steps {
        losses.push(t.train_step()?);
    }
    Ok(losses)
}

mpi_test! {
    fn interleaved_and_zb_h1_train_like_one_process(world at &[1, 2, 3, 4]) {
        tch::set_num_threads(1);
        let size = world.size() as usize;
        let reference = common::one_process(STEPS, BATCH);
        for dp in [1, 2].into_iter().filter(|d| size.is_multiple_of(*d)) {
            for (schedule, m) in [
                (TrainSchedule::Interleaved, 4),
                (TrainSchedule::Interleaved, 2),
                (TrainSchedule::ZbH1, 4),
            ] {
                let mut t = trainer(world, config(schedule, dp, m, STEPS))?;
                train(&mut t)?;
                let p = t.grid.pp;
                let mine = t.chunks.iter().enumerate().try_for_each(|(c, chunk)| {
                    let what = format!(
                        "{schedule:?}, {dp} x {p} grid x {} chunk(s), {m} micro-batches, replica {} stage {}",
                        t.chunks.len(), t.grid.replica, c * p + t.grid.stage
                    );
                    common::same_as_one_process(chunk, &reference, &what)
                });
                toolkit::lockstep::agree(world, mine)?;
            }
        }
        Ok(())
    }
}

/// Every value of the chunks' parameters and Adam moments, as bit patterns.
fn state_bits(t: &ChunkedTrainer) -> Vec<u64> {
    let mut all = vec![];
    for (chunk, opt) in t.chunks.iter().zip(&t.opts) {
        for list in [&chunk.params, &opt.m, &opt.v] {
            all.extend(common::bits(list));
        }
    }
    all
}

mpi_test! {
    fn a_chunked_run_resumes_bit_for_bit_and_refuses_another_plans_files(world at &[2, 4]) {
        tch::set_num_threads(1);
        let size = world.size() as usize;
        let dp = size / 2; // 1 x 2 at 2 ranks, 2 x 2 at 4
        let mut id = std::process::id(); // rank 0's: one folder for the whole job
        world.process_at_rank(0).broadcast_into(&mut id);
        let k = 2; // steps before the stop
        for schedule in [TrainSchedule::Interleaved, TrainSchedule::ZbH1] {
            let dir = std::env::temp_dir().join(format!("ch07-chunked-{size}-{id}-{schedule:?}"));
            let mut straight_cfg = config(schedule, dp, 4, 2 * k);
            straight_cfg.sgd = false; // Adam: its moments are saved too
            let mut straight = trainer(world, straight_cfg.clone())?;
            let straight_losses = train(&mut straight)?;
            let mut first = PipeConfig { steps: k, ..straight_cfg.clone() };
            (first.common.checkpoint, first.common.every) = (Some(dir.clone()), k);
            train(&mut trainer(world, first.clone())?)?;
            world.barrier(); // every chunk has written its file
            let mut second = PipeConfig { steps: 2 * k, ..first };
            second.common.resume = true;
            let mut resumed = trainer(world, second.clone())?;
            let resumed_losses = train(&mut resumed)?;
            let mine = (|| {
                if resumed_losses[..] != straight_losses[k as usize..] {
                    return Err(format!(
                        "{schedule:?}: losses of steps {}..={}: straight {:?}, stopped and resumed {resumed_losses:?}",
                        k + 1, 2 * k, &straight_losses[k as usize..]
                    ));
                }
                if state_bits(&straight) != state_bits(&resumed) {
                    return Err(format!("{schedule:?}: parameters or Adam moments differ after resuming"));
                }
                Ok(())
            })();
            toolkit::lockstep::agree(world, mine)?;
            // The same files under another plan: refused, in one line, naming both.
            let other = match schedule {
                TrainSchedule::Interleaved => PipeConfig { chunks: Some(1), schedule: TrainSchedule::ZbH1, ..second.clone() },
                _ => PipeConfig { chunks: Some(2), schedule: TrainSchedule::Interleaved, ..second.clone() },
            };
            let refused = |got: Result<(), String>, under: &str| match got {
                Ok(()) => Err(format!("{schedule:?}'s checkpoint accepted by {under}")),
                Err(e) if e.contains("--resume") && e.contains("a checkpoint of model") && !e.contains('\n') => Ok(()),
                Err(e) => Err(format!("{under} refused {schedule:?}'s checkpoint, but with: {e}")),
            };
            let mine = refused(trainer(world, other).map(|_| ()), "the other chunked schedule");
            toolkit::lockstep::agree(world, mine)?;
            let three = PipeConfig { chunks: Some(3), schedule: TrainSchedule::Interleaved, ..second.clone() };
            let mine = refused(trainer(world, three).map(|_| ()), "interleaved with 3 chunks");
            toolkit::lockstep::agree(world, mine)?;
            let one_f_one_b = PipeConfig { chunks: None, schedule: ScheduleKind::OneFOneB.into(), ..second };
            let got = PipeTrainer::new(world, one_f_one_b, learner_transfer::<f64>(), Device::Cpu);
            toolkit::lockstep::agree(world, refused(got.map(|_| ()), "1F1B"))?;
            world.barrier();
            if world.rank() == 0 {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
        Ok(())
    }
}

#[test]
fn bad_chunked_settings_fail_in_one_line_before_any_communication() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--schedule", "interleaved", "--chunks", "1"],
            "--chunks 1: interleaved needs at least 2 chunks per rank",
        ),
        (
            &["--schedule", "zb-h1", "--chunks", "2"],
            "--chunks 2: only --schedule interleaved holds several chunks per rank",
        ),
        (
            &["--schedule", "interleaved", "--depth", "6"],
            "8 stages (4 ranks x 2 chunks) but the model has 6 blocks",
        ),
        (
            &["--schedule", "zb-h1", "--recompute", "stage"],
            "--recompute stage runs with --schedule gpipe or 1f1b only",
        ),
        (&["--schedule", "zb"], "(gpipe|1f1b|interleaved|zb-h1)"),
    ];
    check_refusals(env!("CARGO_BIN_EXE_pipeline"), "pipeline", 4, &cases);
}
