//! Checks of the given trainer (ex 11.1 to 11.4 together): N steps over 1, 2 and 3 ranks
//! equal N steps of one process holding every rank's tokens and every expert; the same
//! with the layer on a GPU (`moe_train --device cuda`'s path) against one process on the
//! CPU, which skips with its one-line reason where no GPU can be used
//! (`WORKBOOK_REQUIRE_GPU=1`, as the GPU kit sets, makes it fail instead); and the
//! `moe_train` lab's bad flags refused in one line before MPI starts, `--device cuda`
//! among them where no GPU can be used.
//! Run: `make check CH=11` or `cargo test -p ch11-experts --features solution --test main train::`
//! (the GPU kit runs it on a GPU: `make gpu-kit`).

use ch11::config::MoeConfig;
use ch11::nets::values;
use ch11::train::{held, step, step_one_process, Model, Settings};
use ch11::train_flags::parse;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;
use toolkit::testing::refused_in_one_line;

fn settings(experts: usize, k: usize, alpha: f64) -> Settings {
    Settings {
        cfg: MoeConfig::new(experts, k, 1.0).unwrap(),
        hidden: 6,
        tokens: 24,
        alpha,
        lr: 0.01,
        skew: 1.0,
        seed: 7,
        router_scale: 0.1,
        device: Device::Cpu,
    }
}

/// The largest `|a - b| / (1 + |b|)` over two parameter lists.
fn worst(a: &[tch::Tensor], b: &[tch::Tensor]) -> f64 {
    let mut w = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        for (p, q) in values(x).iter().zip(values(y)) {
            w = w.max(((p - q).abs() / (1.0 + q.abs())) as f64);
        }
    }
    w
}

#[test]
fn device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    trainer_kit::testing::check_cuda_refusal(env!("CARGO_BIN_EXE_moe_train"), "moe_train");
}

#[test]
fn bad_train_flags_are_refused_in_one_line() {
    let bad = [
        (
            "--alpha -0.1",
            "--alpha -0.1: the balancing loss's weight must be 0 or more",
        ),
        ("--alpha 0,x", "--alpha 0,x: not a number"),
        (
            "--lr 0",
            "--lr 0: the learning rate must be a positive number",
        ),
        ("--skew -1", "--skew -1: it must be 0 or more"),
        (
            "--router-scale -1",
            "--router-scale -1: it must be 0 or more",
        ),
        ("--k 3", "k = 3: each token goes to 1 or 2 experts"),
        (
            "--tokens 0",
            "--hidden, --tokens and --every must be at least 1",
        ),
        ("--steps", "--steps needs a value"),
        ("--alfa 1", "unknown flag --alfa"),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&["--alpha".into(), "0,0.5,1".into()]).unwrap();
    let alphas: Vec<f64> = ok.runs.iter().map(|s| s.alpha).collect();
    assert_eq!((alphas, ok.steps, ok.every), (vec![0.0, 0.5, 1.0], 200, 20));
}

/// 8 Adam steps over `world` with the layer on `device`, k = 1 and 2, α = 0 and 0.01,
/// against one process on the CPU: the router and each rank's experts within
/// `bound·(1 + |w|)`, and every parameter still on `device`.
fn trains_like_one_process(
    world: &SimpleCommunicator,
    device: Device,
    bound: f64,
) -> Result<(), String> {
    let (me, p) = (world.rank() as usize, world.size() as usize);
    for (experts, k, alpha) in [(4, 1, 0.01), (5, 2, 0.0), (5, 2, 0.01)] {
        let cpu = settings(experts, k, alpha);
        let s = Settings { device, ..cpu };
        let (mut ep, mut one) = (
            Model::new(&s, held(&s, p, me)),
            Model::new(&cpu, 0..experts),
        );
        for n in 0..8 {
            step(world, &s, &mut ep, n)?;
            step_one_process(&cpu, p, &mut one, n)?;
        }
        let at = format!("rank {me} of {p} on {device:?}, E={experts} k={k} α={alpha}");
        let mut params = vec![ep.router.shallow_clone()];
        params.extend(ep.nets.parameters());
        if let Some(t) = params.iter().find(|t| t.device() != device) {
            return Err(format!(
                "{at}: a parameter of shape {:?} is on {:?}",
                t.size(),
                t.device()
            ));
        }
        let first = held(&s, p, me).start;
        let mine = |m: &Model, l: usize| {
            [
                m.nets.weights[l].shallow_clone(),
                m.nets.biases[l].shallow_clone(),
            ]
        };
        let mut w = worst(&[ep.router.shallow_clone()], &[one.router.shallow_clone()]);
        for l in 0..ep.nets.weights.len() {
            w = w.max(worst(&mine(&ep, l), &mine(&one, first + l)));
        }
        println!("{at}: largest difference {w:.2e}");
        if w > bound {
            return Err(format!(
                "{at}: after 8 steps the weights differ from one process by {w:.2e} > {bound:.0e}"
            ));
        }
    }
    Ok(())
}

toolkit::mpi_test! {
    /// On the CPU: within 1e-6 (measured: below 5e-8).
    fn training_equals_one_process(world at &[1, 2, 3]) {
        trains_like_one_process(world, Device::Cpu, 1e-6)
    }
}

toolkit::mpi_test! {
    /// On a GPU (its matrix products add in another order than the CPU's): within 1e-5.
    fn on_a_gpu_the_layer_trains_like_one_process_on_the_cpu(world at &[2]) {
        if torch_link::skip_without_gpu("the MoE layer on a GPU", tch::Cuda::is_available()) {
            return Ok(());
        }
        trains_like_one_process(world, Device::Cuda(0), 1e-5)
    }
}
