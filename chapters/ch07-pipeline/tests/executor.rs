//! Checks of exercise 7.5 (the executor): p stages x m micro-batches train like one
//! process on the whole batch (same parameters after 2 SGD steps, within 1e-10
//! relative: f64, the same sums in another order), at p = 1..4, m = 1, 2, 4, 8, for GPipe
//! and 1F1B (the reference schedules of `greedy`, moved with a reference transfer); with
//! recomputation (`--recompute stage`) the same, bit for bit as without, at p = 1..4,
//! each forward run without its graph and again with it; every send of a stage staged in
//! one buffer, reused (each send completes with the next op's receive).
//!
//! Run: `make check CH=07` or `cargo test -p ch07-pipeline --features solution --test main executor::`.

use crate::common;

use ch07::executor::run_ops;
use ch07::greedy;
use ch07::optim::{Optimizer, Rule};
use ch07::plan::{Action, ScheduleKind};
use ch07::recompute::Recompute;
use ch07::spans::{Phase, Timeline};
use ch07::stage_model::StageModel;
use ch07::wire::{SendRequest, Transfer};
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use std::collections::BTreeSet;
use tch::Tensor;
use toolkit::mpi_test;

const BATCH: usize = 16;
const STEPS: u64 = 2;

/// `STEPS` SGD steps of `stage` through `run_ops` with `ops`, `m` micro-batches of the
/// whole batch; the trace of all of them.
fn sgd_steps(
    world: &SimpleCommunicator,
    ops: &[Action],
    stage: &mut StageModel,
    m: usize,
) -> Result<Timeline, String> {
    let mut opt = Optimizer::new(Rule::Sgd { lr: common::LR }, &stage.params);
    let mut trace = Timeline::new();
    for step in 0..STEPS {
        let batch = common::batch(step, BATCH, 0..BATCH, m);
        stage.zero_grad();
        run_ops(
            world,
            ops,
            stage,
            &batch,
            common::reference_transfer(),
            &mut trace,
        )?;
        let grads = stage.grads();
        opt.step(&mut stage.params, &grads);
    }
    Ok(trace)
}

mpi_test! {
    fn ex7_5_the_pipeline_trains_like_one_process(world at &[1, 2, 3, 4]) {
        let (s, p) = (world.rank() as usize, world.size() as usize);
        tch::set_num_threads(1);
        let reference = common::one_process(STEPS, BATCH);
        for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
            for m in [1, 2, 4, 8] {
                let ops = greedy::schedule(kind, p, m);
                let mut stage = common::stage(s, p);
                let trace = sgd_steps(world, &ops[s], &mut stage, m)?;
                let what = format!("{kind:?}, {p} stages x {m} micro-batches, stage {s}");
                let mine = common::same_as_one_process(&stage, &reference, &what);
                toolkit::lockstep::agree(world, mine)?;
                let computed = trace.spans.iter().filter(|sp| matches!(sp.phase, Phase::Forward | Phase::Backward)).count();
                if computed != (2 * m) * STEPS as usize {
                    return Err(format!("{what}: {computed} forward/backward spans recorded, expected {}", 2 * m * STEPS as usize));
                }
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn ex7_5_recomputation_changes_nothing_but_memory(world at &[1, 2, 3, 4]) {
        let (s, p) = (world.rank() as usize, world.size() as usize);
        tch::set_num_threads(1);
        let reference = common::one_process(STEPS, BATCH);
        for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
            for m in [1, 4] {
                let ops = greedy::schedule(kind, p, m);
                let mut after = vec![];
                for mode in [Recompute::None, Recompute::Stage] {
                    let mut stage = common::stage(s, p);
                    stage.recompute = mode;
                    sgd_steps(world, &ops[s], &mut stage, m)?;
                    let what = format!("{kind:?}, {p} stages x {m} micro-batches, recompute {mode:?}, stage {s}");
                    // None: m forwards recording their graph per step; Stage: m without, m again with.
                    let n = m * STEPS as usize;
                    let want = match mode {
                        Recompute::None => (0, n),
                        Recompute::Stage => (n, n),
                    };
                    let (free, graph) = stage.passes();
                    let ran = match (free, graph) == want {
                        true => Ok(()),
                        false => Err(format!("{what}: {free} forwards without a graph and {graph} recording one over {STEPS} steps, expected {} and {}", want.0, want.1)),
                    };
                    toolkit::lockstep::agree(world, ran)?;
                    toolkit::lockstep::agree(world, common::same_as_one_process(&stage, &reference, &what))?;
                    after.push(common::bits(&stage.params));
                }
                // The recomputed forward is the same computation: the same bits, not just close.
                let same = match after[0] == after[1] {
                    true => Ok(()),
                    false => Err(format!("{kind:?}, {p} stages x {m} micro-batches, stage {s}: recompute Stage's parameters differ from None's")),
                };
                toolkit::lockstep::agree(world, same)?;
            }
        }
        Ok(())
    }
}

thread_local! {
    /// The address of each send's staging buffer (a `Vec`) on this rank.
    static STAGED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The reference send, noting the buffer it was given.
fn noting_send<'a, 'b>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    shape: &[i64],
    buf: &'a mut Vec<f64>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b>, String> {
    let at = &*buf as *const Vec<f64> as usize;
    let request = (common::reference_transfer().send)(comm, to, tag, t, shape, buf, scope)?;
    STAGED.with(|v| v.borrow_mut().push(at));
    Ok(request)
}

mpi_test! {
    fn ex7_5_one_staging_buffer_per_stage(world at &[2, 3, 4]) {
        let (s, p) = (world.rank() as usize, world.size() as usize);
        let m = 8;
        let io = Transfer { send: noting_send, recv: common::reference_transfer().recv };
        for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
            let ops = greedy::schedule(kind, p, m);
            STAGED.with(|v| v.borrow_mut().clear());
            run_ops(world, &ops[s], &common::stage(s, p), &common::batch(0, BATCH, 0..BATCH, m), io, &mut Timeline::new())?;
            let staged = STAGED.with(|v| v.borrow().clone());
            let sends = if s == 0 || s + 1 == p { m } else { 2 * m };
            let buffers: BTreeSet<usize> = staged.iter().copied().collect();
            let mine = match (staged.len(), buffers.len()) {
                (n, 1) if n == sends => Ok(()),
                (n, b) => Err(format!("{kind:?}, {p} stages x {m} micro-batches, stage {s}: {n} sends (expected {sends}) from {b} staging buffers, expected one, reused: complete each send with the next op's receive")),
            };
            toolkit::lockstep::agree(world, mine)?;
        }
        Ok(())
    }
}

mpi_test! {
    fn ex7_5_the_loss_is_the_batch_mean(world at &[2]) {
        let (s, p) = (world.rank() as usize, world.size() as usize);
        let ops = greedy::schedule(ScheduleKind::OneFOneB, p, 4);
        let stage = common::stage(s, p);
        let batch = common::batch(0, BATCH, 0..BATCH, 4);
        let loss = run_ops(world, &ops[s], &stage, &batch, common::reference_transfer(), &mut Timeline::new())?;
        if s + 1 == p {
            let whole = ch07::stage_model::whole(common::SHAPE, common::SEED, tch::Device::Cpu);
            let (x, y) = common::SHAPE.task.train_batch(common::SEED, 0, BATCH);
            let want = ch07::stage_model::StageModel::loss(&whole.forward(&x), &y).double_value(&[]);
            if (loss - want).abs() > 1e-12 * want.abs().max(1.0) {
                let ratio = loss / want;
                let why = if (ratio - 4.0).abs() < 1e-6 {
                    ": 4 times it, the sum of the 4 micro-batches' losses: your run_ops must \
                     divide each micro-batch's loss by m (the batch's loss is their mean; the \
                     gradients too)"
                } else {
                    ""
                };
                return Err(format!(
                    "the last stage returned loss {loss}, the batch's mean loss is {want} \
                     (ratio {ratio:.4}){why}"
                ));
            }
        } else if loss != 0.0 {
            return Err(format!("stage {s} returned loss {loss}: only the last stage has one"));
        }
        Ok(())
    }
}

/// Planted fault, in the test above as the learner runs it (built with the solutions): the last
/// stage sends its gradients back with tag `i + 1`. The watchdog names each rank's blocked call
/// within the deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex7_5_a_gradient_sent_back_with_the_wrong_tag_is_named() {
    toolkit::testing::assert_fault_named(
        "ex7_5_the_loss_is_the_batch_mean",
        2,
        "MPI_Isend@1:tag+1",
        &[
            "rank 0: DEADLOCK?",
            "blocked in MPI_Mprobe(source=1 tag=0)",
            "hint:",
        ],
    );
}
