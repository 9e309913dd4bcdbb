//! Mistakes learners make in this chapter's trainer half, planted on purpose: each test
//! asserts what the checks SAY about the mistake (which parameter, which rank is blocked
//! in which call), not only that something failed. Near-answers: they live with the
//! solutions and build only with `--features solution`.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test planted_mistakes --
//! --nocapture` to see the messages.

#[path = "../../chapters/ch07-pipeline/tests/common/mod.rs"]
mod common;
mod planted_executor;

use ch07::executor::run_ops;
use ch07::greedy;
use ch07::optim::{Optimizer, Rule};
use ch07::plan::{Action, Schedule, ScheduleKind};
use ch07::spans::Timeline;
use ch07::stage_model::StageModel;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, launch_self, learner_view, run_body};

/// One pipelined training step of a stage: the communicator, its ops, the stage, the batch.
type StepFn<'a> = dyn Fn(
        &SimpleCommunicator,
        &[Action],
        &StageModel,
        &ch07::addition::MicroBatches,
    ) -> Result<f64, String>
    + 'a;

/// Trains the stage of this rank for 2 SGD steps with `step_fn` and compares it with
/// one process.
fn equivalence(
    world: &SimpleCommunicator,
    ops: &Schedule,
    m: usize,
    step_fn: &StepFn<'_>,
) -> Result<(), String> {
    let (s, p) = (world.rank() as usize, world.size() as usize);
    let reference = common::one_process(2, 16);
    let mut stage = common::stage(s, p);
    let mut opt = Optimizer::new(Rule::Sgd { lr: common::LR }, &stage.params);
    for step in 0..2 {
        let batch = common::batch(step, 16, 0..16, m);
        stage.zero_grad();
        step_fn(world, &ops[s], &stage, &batch)?;
        let grads = stage.grads();
        opt.step(&mut stage.params, &grads);
    }
    let what = format!("{p} stages x {m} micro-batches, stage {s}");
    common::same_as_one_process(&stage, &reference, &what)
}

// ANCHOR: no_scaling
/// Mistake 1 (ex 7.5): each micro-batch's loss not divided by `m`: the accumulated
/// gradients are those of the SUM of the micro-batches' mean losses, m times too large.
fn without_scaling(
    pipe: &SimpleCommunicator,
    ops: &[Action],
    stage: &StageModel,
    batch: &ch07::addition::MicroBatches,
) -> Result<f64, String> {
    let m = batch.len();
    let scaled_up = ch07::addition::MicroBatches {
        inputs: batch.inputs.iter().map(|t| t.shallow_clone()).collect(),
        targets: batch.targets.iter().map(|t| t.shallow_clone()).collect(),
    };
    // The same executor, run as if each micro-batch were the whole batch: its loss is
    // multiplied back by m (the mistake: `loss` instead of `loss / m`).
    let trace = &mut Timeline::new();
    let io = ch07::wire::Transfer::<f64> {
        send: ch07::transfer::send_tensor,
        recv: ch07::transfer::recv_tensor::<f64>,
    };
    let loss = run_ops(pipe, ops, stage, &scaled_up, io, trace)?;
    tch::no_grad(|| {
        for p in &stage.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.g_mul_scalar_(m as f64);
            }
        }
    });
    Ok(loss * m as f64)
}
// ANCHOR_END: no_scaling

#[test]
#[ignore = "planted mistake: started by a_missing_one_over_m_is_named"]
fn planted_no_scaling() {
    run_body("planted_no_scaling", |world| {
        tch::set_num_threads(1);
        let ops = greedy::schedule(ScheduleKind::OneFOneB, world.size() as usize, 4);
        equivalence(world, &ops, 4, &without_scaling)
    });
}

#[test]
fn a_missing_one_over_m_is_named() {
    let out = launch_self("planted_no_scaling", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(60));
    assert!(
        text.contains("2 stages x 4 micro-batches, stage 0: parameter `embed.bias` element 0 is"),
        "{text}"
    );
    println!("{}", learner_view(&out));
}

// ANCHOR: bad_1f1b
/// Mistake 2 (a 1F1B order): the warm-up counted from the wrong end: stage s runs `s`
/// forwards before its first backward instead of `p - 1 - s`. Stage 0 then waits for the
/// gradient of micro-batch 0, which stage 1 cannot send before stage 0 sends it
/// micro-batch 1: a cycle of receives.
fn warm_up_reversed(p: usize, m: usize) -> Schedule {
    (0..p)
        .map(|s| {
            let warm = s.min(m);
            let mut ops: Vec<Action> = (0..warm).map(Action::Forward).collect();
            for i in warm..m {
                ops.push(Action::Forward(i));
                ops.push(Action::Backward(i - warm));
            }
            ops.extend((m - warm..m).map(Action::Backward));
            ops
        })
        .collect()
}
// ANCHOR_END: bad_1f1b

#[test]
#[ignore = "planted mistake: started by a_deadlocking_1f1b_order_is_named"]
fn planted_bad_1f1b() {
    run_body("planted_bad_1f1b", |world| {
        let ops = warm_up_reversed(world.size() as usize, 4);
        property(world, "the pipeline trains like one process")
            .cases(1)
            .check(proptest::strategy::Just(4usize), |&m| {
                let io = ch07::pipe_train::learner_transfer::<f64>();
                equivalence(world, &ops, m, &|c, o, s, b| {
                    run_ops(c, o, s, b, io, &mut Timeline::new())
                })
            })
    });
}

#[test]
fn a_deadlocking_1f1b_order_is_named() {
    let out = launch_self("planted_bad_1f1b", 3, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    assert!(text.contains("DEADLOCK?"), "{text}");
    assert!(text.contains("rank 0: DEADLOCK? `the pipeline trains like one process case 1: 4` not finished after 3 s; blocked in MPI_Mprobe(source=1 tag=0"), "{text}");
    println!("{}", learner_view(&out));
}

// ANCHOR: wrong_stage
/// Mistake 3 (ex 7.6): on a 2 x 2 grid, the executor handed the WORLD communicator
/// instead of the grid's pipeline. World rank 1, the last stage of pipeline 0, takes
/// itself for stage 1 of 4 and sends its output on to world rank 2, the first stage of
/// the other pipeline; world ranks 2 and 3 wait for activations from world ranks 1 and 2.
fn on_the_world(
    world: &SimpleCommunicator,
    g: &ch07::grid::Grid,
    ops: &Schedule,
    m: usize,
) -> Result<f64, String> {
    let stage = common::stage(g.stage, g.pp);
    let batch = common::batch(0, 16, toolkit::split::block_range(16, g.dp, g.replica), m);
    let io = ch07::pipe_train::learner_transfer::<f64>();
    run_ops(
        world,
        &ops[g.stage],
        &stage,
        &batch,
        io,
        &mut Timeline::new(),
    ) // the mistake: `world`
}
// ANCHOR_END: wrong_stage

#[test]
#[ignore = "planted mistake: started by activations_to_the_wrong_stage_are_named"]
fn planted_wrong_stage() {
    run_body("planted_wrong_stage", |world| {
        let g = ch07::grid::make_grid(world, 2, 2)?;
        let ops = greedy::schedule(ScheduleKind::GPipe, 2, 2);
        property(world, "DP x PP runs a step")
            .cases(1)
            .check(proptest::strategy::Just(2usize), |&m| {
                on_the_world(world, &g, &ops, m).map(|_| ())
            })
    });
}

#[test]
fn activations_to_the_wrong_stage_are_named() {
    let out = launch_self("planted_wrong_stage", 4, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    assert!(text.contains("rank 2: DEADLOCK? `DP x PP runs a step case 1: 2` not finished after 3 s; blocked in MPI_Mprobe(source=1 tag=0"), "{text}");
    println!("{}", learner_view(&out));
}

/// Mistake 4 (ex 7.5): the received input not marked `set_requires_grad(true)`
/// (`planted_executor.rs`): stage 1's backward computes no gradient for it, and sending
/// `x.grad()` back hands LibTorch an undefined tensor.
#[test]
#[ignore = "planted mistake: started by a_received_input_without_requires_grad_is_named"]
fn planted_no_requires_grad() {
    run_body("planted_no_requires_grad", |world| {
        tch::set_num_threads(1);
        let (s, p) = (world.rank() as usize, world.size() as usize);
        let ops = greedy::schedule(ScheduleKind::GPipe, p, 2);
        let (stage, batch) = (common::stage(s, p), common::batch(0, 16, 0..16, 2));
        let io = common::reference_transfer();
        let trace = &mut Timeline::new();
        planted_executor::run_ops(world, &ops[s], &stage, &batch, io, trace).map(|_| ())
    });
}

#[test]
fn a_received_input_without_requires_grad_is_named() {
    let out = launch_self("planted_no_requires_grad", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(60));
    // The learner's function and line, LibTorch's message without its C++ backtrace, and
    // the likely cause.
    let place = "rank 1: panicked at tch-0.24.0/src/wrappers/tensor_generated.rs:";
    assert!(text.contains(place), "{text}");
    assert!(text.contains(", called from your exchange at "), "{text}");
    assert!(text.contains("planted_executor.rs:"), "{text}");
    let message = "Torch(\"Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #0 'self'\") [LibTorch's C++ backtrace (";
    assert!(text.contains(message), "{text}");
    assert!(!text.contains("frame #"), "{text}");
    let hint =
        "did the received tensor require grad (`set_requires_grad(true)`) before the forward?";
    assert!(text.contains(hint), "{text}");
    println!("{}", learner_view(&out));
}
