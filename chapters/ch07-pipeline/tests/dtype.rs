//! Checks of `--dtype` (every exercise together, so they pass once all are done): the
//! trainer's default is f32 and it learns in f32 (the loss falls), and the element type
//! reaches the wire: every message between stages carries 4 bytes per value in f32 and 8
//! in f64 (counted by the receiver, `MPI_Probe` + `MPI_Get_count` in bytes).
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main dtype::`.

use ch07::pipe_config::PipeConfig;
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::wire::{Dtype, Transfer, WireElem};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use tch::{Device, Tensor};
use toolkit::mpi_test;

thread_local! {
    /// (bytes, values) of every message this rank received from another stage.
    static SEEN: RefCell<Vec<(usize, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Ex 7.2's receive, after measuring the message in bytes (a probe leaves it queued).
fn measuring_recv<E: WireElem>(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    let status = comm.process_at_rank(from as i32).probe_with_tag(tag);
    let bytes = status.count(u8::equivalent_datatype()) as usize;
    SEEN.with(|s| s.borrow_mut().push((bytes, ch07::wire::numel(shape))));
    (learner_transfer::<E>().recv)(comm, from, tag, shape, device)
}

/// The trainer's pair with the measuring receive.
fn measuring<E: WireElem>() -> Transfer<E> {
    Transfer {
        send: learner_transfer::<E>().send,
        recv: measuring_recv::<E>,
    }
}

/// A small run: 4 blocks of width 32 over 2-digit addition, batch 64 in 4 micro-batches.
fn small(dtype: Dtype) -> PipeConfig {
    let mut c = PipeConfig {
        micro: 4,
        ..PipeConfig::default()
    };
    (c.common.batch, c.common.quiet, c.common.lr) = (64, true, 3e-3);
    (c.shape.task.digits, c.shape.width, c.shape.depth) = (2, 32, 4);
    c.shape.dtype = dtype;
    c
}

/// Trains `steps` steps of `cfg` with `E`s on the wire: (the losses, the bytes per value
/// of every message received, the kind of the stage's parameters).
fn run<E: WireElem>(
    world: &SimpleCommunicator,
    cfg: PipeConfig,
    steps: u64,
) -> Result<(Vec<f64>, Vec<usize>, tch::Kind), String> {
    SEEN.with(|s| s.borrow_mut().clear());
    let mut t = PipeTrainer::new(world, cfg, measuring::<E>(), Device::Cpu)?;
    let losses = (0..steps)
        .map(|_| t.train_step())
        .collect::<Result<_, _>>()?;
    let per_value = SEEN.with(|s| s.borrow().iter().map(|&(b, n)| b / n.max(1)).collect());
    Ok((losses, per_value, t.stage.params[0].kind()))
}

#[test]
fn the_default_is_f32_and_the_flag_reads_f64() {
    let parse = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        trainer_kit::cli::parse_checked::<PipeConfig>(&args, 2)
    };
    assert_eq!(parse(&[]).expect("the defaults").shape.dtype, Dtype::F32);
    let cfg = parse(&["--dtype", "f64"]).expect("--dtype f64");
    assert_eq!(cfg.shape.dtype, Dtype::F64);
    let bad = parse(&["--dtype", "f16"]).unwrap_err();
    assert!(bad.contains("--dtype") && bad.contains("f32|f64"), "{bad}");
}

mpi_test! {
    fn f32_trains_and_halves_every_message(world at &[2]) {
        tch::set_num_threads(1);
        let (losses, f32_bytes, kind) = run::<f32>(world, small(Dtype::F32), 150)?;
        let (_, f64_bytes, kind64) = run::<f64>(world, small(Dtype::F64), 2)?;
        let (first, last) = (mean(&losses[..10]), mean(&losses[losses.len() - 10..]));
        let mine = if kind != tch::Kind::Float || kind64 != tch::Kind::Double {
            Err(format!("parameters in {kind:?} and {kind64:?}, expected Float and Double"))
        } else if last.is_nan() || last >= 0.8 * first {
            Err(format!("f32: the loss went from {first:.4} to {last:.4} (expected a fall of 20% or more)"))
        } else if f32_bytes.is_empty() || f32_bytes.iter().any(|&b| b != 4) {
            Err(format!("f32: bytes per value of the messages received: {f32_bytes:?}, expected 4"))
        } else if f64_bytes.is_empty() || f64_bytes.iter().any(|&b| b != 8) {
            Err(format!("f64: bytes per value of the messages received: {f64_bytes:?}, expected 8"))
        } else {
            Ok(())
        };
        let mismatch = PipeTrainer::new(world, small(Dtype::F64), measuring::<f32>(), Device::Cpu);
        match (mine, mismatch) {
            (Err(e), _) => Err(e),
            (Ok(()), Ok(_)) => Err("a trainer of --dtype f64 accepted an f32 transfer".into()),
            (Ok(()), Err(e)) if e.contains("--dtype f64") => Ok(()),
            (Ok(()), Err(e)) => Err(format!("the refusal should name --dtype f64: {e}")),
        }
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}
