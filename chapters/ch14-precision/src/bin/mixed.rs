//! Lab: chapter 6's model trained data parallel on the shipped digits (`ch14::trainer`),
//! its forward and backward passes in f32, bf16 or f16 on a working copy of f32 master
//! weights, the gradients summed over the ranks in f32 or with bf16 on the wire (ex 14.2),
//! f16 under a dynamic loss scale (ex 14.3), each step by ex 14.4. Prints per run the
//! training loss at the start and the end, the test accuracy, the steps skipped, the last
//! scale, the bytes each rank sends per step for the sum, and the time per step.
//!
//! Run: `make run CH=14 BIN=mixed` (4 ranks; `ARGS='--precision bf16'` for one format,
//! `ARGS='--model mlp'`, `ARGS=--help` for the list). A bad flag, or a batch the ranks
//! cannot split, is refused in one line before MPI starts. It needs ex 14.1 to 14.4; until they are written it says which.

use ch06::data::digits;
use ch14::encode::encode;
use ch14::flags::{from_args, MixedFlags};
use ch14::format::BF16;
use ch14::loss_scale::LossScaler;
use ch14::master::step;
use ch14::trainer::{train, Report, Setup};
use ch14::weights::{Compute, Wire};
use mpi::traits::*;
use std::time::Instant;
use tch::{Device, Kind, Tensor};
use toolkit::gate::unless_todo;
use trainer_kit::cli::DeviceChoice;

fn main() {
    let flags: MixedFlags = from_args("mixed");
    let ranks = trainer_kit::cli::ranks_from_env();
    if !flags.batch.is_multiple_of(ranks) {
        eprintln!(
            "mixed: --batch {} does not split over {ranks} ranks: make it a multiple of {ranks}",
            flags.batch
        );
        std::process::exit(2);
    }
    if flags.device == DeviceChoice::Cuda {
        if let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) {
            eprintln!("mixed: --device cuda: {why}");
            std::process::exit(2);
        }
    }
    let universe = toolkit::init();
    let world = universe.world();
    let device = trainer_kit::place::place(&world, flags.device, None).device;
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let data = digits().unwrap_or_else(|why| {
        eprintln!("mixed: {why}");
        std::process::exit(2);
    });
    let steps = flags.epochs * (data.train.len() / flags.batch);
    let formats = [
        ("f32", Compute::F32),
        ("bf16", Compute::Bf16),
        ("f16", Compute::F16),
    ];
    let wires = [("f32", Wire::F32), ("bf16", Wire::Bf16)];
    let picked = |want: &Option<String>, name: &str| want.as_deref().is_none_or(|w| w == name);
    let mut runs = vec![];
    for (c_name, compute) in formats {
        for (w_name, wire) in wires {
            let default_row = compute != Compute::F32 || wire == Wire::F32;
            let asked = flags.precision.is_some() && flags.reduce_dtype.is_some();
            if picked(&flags.precision, c_name)
                && picked(&flags.reduce_dtype, w_name)
                && (default_row || asked)
            {
                let scaler = (compute == Compute::F16)
                    .then(|| LossScaler::new(2f32.powi(flags.scale), flags.growth as u32));
                let setup = Setup {
                    model: flags.model,
                    compute,
                    wire,
                    batch: flags.batch,
                    steps,
                    lr: flags.lr,
                    momentum: 0.9,
                    seed: flags.seed,
                    scaler,
                    device,
                };
                runs.push((format!("{c_name:<5} {w_name:<5}"), setup));
            }
        }
    }
    let reports = unless_todo(&world, || {
        runs.iter()
            .map(|(_, setup)| train(&world, &data, setup, step))
            .collect::<Vec<Report>>()
    });
    let reports =
        reports.unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "mixed", &task));
    if rank != 0 {
        return;
    }
    let on = match device {
        Device::Cpu => String::new(),
        gpu => format!(" on {gpu:?}"),
    };
    println!(
        "{} on the digits, {p} rank(s){on}, global batch {}, {} steps ({} epochs), SGD lr {} \
         momentum 0.9, f32 master weights; f16 under a loss scale from 2^{} (x2 after {} \
         clean steps)",
        flags.model.name(),
        flags.batch,
        steps,
        flags.epochs,
        flags.lr,
        flags.scale,
        flags.growth
    );
    println!(
        "{:<11} {:>9} {:>9} {:>9} {:>9} {:>8} {:>7} {:>11} {:>8}",
        "compute sum",
        "loss 0",
        "loss end",
        "test loss",
        "accuracy",
        "skipped",
        "scale",
        "bytes/step",
        "ms/step"
    );
    for ((name, _), r) in runs.iter().zip(&reports) {
        let tail = &r.losses[r.losses.len().saturating_sub(20)..];
        println!(
            "{name:<11} {:>9.4} {:>9.4} {:>9.4} {:>8.1}% {:>8} {:>7} {:>11} {:>8.3}",
            r.losses[0],
            tail.iter().sum::<f64>() / tail.len() as f64,
            r.test.0,
            r.test.1,
            r.skipped,
            format!("2^{}", r.scale.log2()),
            r.bytes_per_step,
            1e3 * r.secs_per_step
        );
    }
    println!("(loss end: the mean of the last 20 steps' losses; bytes/step: what rank 0 sends to sum the gradient)");
    let (ours, libtorch) = rounding_cost(reports[0].values);
    println!(
        "rounding the model's {} gradient values to bf16: ex 14.1's encode {ours:.1} ns a value, \
         LibTorch's cast {libtorch:.1} ns a value",
        reports[0].values
    );
}

/// Nanoseconds a value to round `n` f32 values to bf16 codes: ex 14.1's `encode` one by
/// one, and LibTorch's `to_kind` (the best of 20 tries each).
fn rounding_cost(n: usize) -> (f64, f64) {
    let xs = Tensor::randn([n as i64], (Kind::Float, Device::Cpu)) * 1e-3;
    let values = Vec::<f32>::try_from(&xs).expect("f32 values");
    let best = |f: &dyn Fn()| {
        (0..20)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
            * 1e9
            / n as f64
    };
    let ours = best(&|| {
        std::hint::black_box(
            values
                .iter()
                .map(|&x| encode(&BF16, x))
                .collect::<Vec<u16>>(),
        );
    });
    let libtorch = best(&|| {
        let _ = std::hint::black_box(xs.to_kind(Kind::BFloat16));
    });
    (ours, libtorch)
}
