//! Checks of exercise 12.5 (local SGD) under mpirun at 1 to 8 ranks: every step of
//! proptest-generated cases (period H, steps, length, seed), every rank generating the
//! same case (`toolkit::lockstep`); at H = 1 the `local_sgd` lab's training equals the
//! dense data-parallel step of the `compress` lab; H = 0 and the lab's bad flags refused
//! in one line; at H = 1 momentum SGD stays dense, Adam does not (given code). Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main local::`.

use crate::common::{check_local, LocalCase};
use ch12::averaging::Averaging;
use ch12::local::step;
use ch12::local_flags::parse;
use ch12::local_run::train_local;
use ch12::lsq::{train, Problem, Sync};
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::lockstep::property;
use toolkit::testing::refused_in_one_line;

/// H from 1 to 5, 1 to 12 steps, 1 to 16 parameters, a seed.
fn cases() -> impl Strategy<Value = LocalCase> {
    (1usize..6, 1usize..13, 1usize..17, any::<u64>()).prop_map(|(every, steps, dim, seed)| {
        LocalCase {
            every,
            steps,
            dim,
            seed,
        }
    })
}

toolkit::mpi_test! {
    /// Averages after steps H, 2H, ... only; the mean; the same parameters on every rank.
    fn ex12_5_local_steps_then_the_mean_every_h_steps(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        property(world, "local SGD, step by step")
            .cases(24)
            .check(cases(), |case| check_local(world, step, case))
    }

    /// H = 1 against the dense step (20 steps, 512 rows of 64 features): exactly at 1 rank;
    /// at p ranks within 1e-5 per weight (measured: at most 2.4e-7 at 2 to 8 ranks), where the
    /// two round differently (p · gradient, a sum of p parameter vectors, a division).
    fn ex12_5_h_1_trains_like_the_dense_allreduce(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        let (rank, p) = (world.rank() as usize, world.size() as usize);
        let problem = Problem::new(12, 512, 64, rank, p);
        let dense = train(world, &problem, Sync::Dense, 20, 0.3)?;
        let local = train_local(world, &problem, 1, 20, 0.3)?;
        let bound = if p == 1 { 0.0 } else { 1e-5 };
        let worst = dense.weights.iter().zip(&local.weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        match worst <= bound {
            true => Ok(()),
            false => Err(format!("rank {rank} of {p}: H = 1 weights differ from the dense step's by {worst:e}, more than {bound:e}"))
        }
    }
}

#[test]
fn h_0_and_bad_lab_flags_are_refused_in_one_line() {
    let h0 = "local SGD with H = 0: the ranks average their parameters after every H local \
              steps, so H must be 1 or more (H = 1 is plain data parallelism)";
    assert_eq!(Averaging::new(0), Err(h0.to_string()));
    let bad = [
        (
            "--every 0",
            format!("invalid value '0' for '--every <H,...>': {h0}"),
        ),
        (
            "--every 2,0",
            format!("invalid value '0' for '--every <H,...>': {h0}"),
        ),
        (
            "--steps 0",
            "invalid value '0' for '--steps <N>': not a positive whole number".into(),
        ),
        (
            "--steps 30 --every 4",
            "--steps 30 is not a multiple of H = 4: the last steps would not be averaged".into(),
        ),
        ("--lr 0", "--lr 0: the learning rate must be above 0".into()),
        (
            "--lr -1",
            "--lr -1: the learning rate must be above 0".into(),
        ),
        (
            "--dim 0",
            "invalid value '0' for '--dim <D>': not a positive whole number".into(),
        ),
        ("--period 2", "unexpected argument '--period' found".into()),
    ];
    let bad: Vec<(&str, &str)> = bad.iter().map(|(f, s)| (*f, s.as_str())).collect();
    refused_in_one_line(parse, &bad);
    let ok = parse(&[]).unwrap();
    assert_eq!((ok.steps, ok.every), (480, vec![1, 2, 4, 8]));
    assert_eq!(
        (ok.problem.dim, ok.problem.rows, ok.problem.seed),
        (256, 2048, 12)
    );
}

/// An optimizer's per-parameter state: heavy-ball momentum or Adam.
#[derive(Clone, Copy)]
enum Optimizer {
    Momentum,
    Adam,
}

/// `steps` steps of `opt` from zero weights on `problem`, with gradient `grad(w)`; when
/// `average_weights`, the weights are averaged over the ranks after every step (local
/// training at H = 1, the optimizer state left each rank's own).
fn run_optimizer(
    world: &mpi::topology::SimpleCommunicator,
    opt: Optimizer,
    steps: usize,
    dim: usize,
    grad: &dyn Fn(&[f32]) -> Vec<f32>,
    average_weights: bool,
) -> Vec<f32> {
    let (mut w, mut m, mut v) = (vec![0f32; dim], vec![0f32; dim], vec![0f32; dim]);
    let (lr, beta, b1, b2, eps) = (0.1f32, 0.9f32, 0.9f32, 0.999f32, 1e-8f32);
    for t in 1..=steps as i32 {
        let g = grad(&w);
        for i in 0..dim {
            match opt {
                Optimizer::Momentum => {
                    m[i] = beta * m[i] + g[i];
                    w[i] -= lr * m[i];
                }
                Optimizer::Adam => {
                    m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                    v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                    let (mh, vh) = (m[i] / (1.0 - b1.powi(t)), v[i] / (1.0 - b2.powi(t)));
                    w[i] -= 0.01 * mh / (vh.sqrt() + eps);
                }
            }
        }
        if average_weights {
            let mut sum = vec![0f32; dim];
            world.all_reduce_into(
                &w[..],
                &mut sum[..],
                mpi::collective::SystemOperation::sum(),
            );
            let p = world.size() as f32;
            w.iter_mut().zip(&sum).for_each(|(x, s)| *x = s / p);
        }
    }
    w
}

toolkit::mpi_test! {
    /// Beyond plain SGD, at H = 1 with the optimizer's state left each rank's own (the
    /// page's claim, measured): heavy-ball momentum is linear in the gradient, so local
    /// momentum SGD equals dense momentum SGD within rounding; Adam's second moment is not,
    /// so local Adam differs from dense Adam (measured: 2.4e-7 and 1.6e-1). Given code only:
    /// no exercise needed.
    fn at_h_1_local_momentum_is_dense_momentum_and_local_adam_is_not(world at &[4]) {
        let (rank, p) = (world.rank() as usize, world.size() as usize);
        let problem = Problem::new(12, 512, 64, rank, p);
        // Dense: the job's gradient (the sum of the ranks' parts); local: p x this rank's part.
        let dense = |w: &[f32]| {
            let mine = problem.loss_and_grad(w).1;
            let mut sum = vec![0f32; mine.len()];
            world.all_reduce_into(&mine[..], &mut sum[..], mpi::collective::SystemOperation::sum());
            sum
        };
        let local = |w: &[f32]| problem.loss_and_grad(w).1.iter().map(|g| g * p as f32).collect();
        let worst = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        let momentum = worst(
            &run_optimizer(world, Optimizer::Momentum, 20, 64, &dense, false),
            &run_optimizer(world, Optimizer::Momentum, 20, 64, &local, true),
        );
        let adam = worst(
            &run_optimizer(world, Optimizer::Adam, 20, 64, &dense, false),
            &run_optimizer(world, Optimizer::Adam, 20, 64, &local, true),
        );
        if rank == 0 {
            println!("at H = 1 on {p} ranks, 20 steps: momentum differs from dense by {momentum:.1e}, Adam by {adam:.1e}");
        }
        match (momentum <= 1e-5, adam >= 1e-3) {
            (true, true) => Ok(()),
            _ => Err(format!("at H = 1: local momentum differs from dense momentum by {momentum:e} \
                              (expected <= 1e-5), local Adam from dense Adam by {adam:e} (expected >= 1e-3)")),
        }
    }
}
