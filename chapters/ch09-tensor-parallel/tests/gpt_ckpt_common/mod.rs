//! Shared setup of the GPT's checkpoint checks (tests/gpt_ckpt.rs, tests/gpt_ckpt_faults.rs,
//! tests/gpt_ckpt_pipeline.rs): the model, a trainer on a DP x TP grid or a pipeline,
//! folders every rank agrees on, a communicator of the first ranks, a tensor's bits, two
//! trainers' states compared bit for bit.
//!
//! Not a test itself; `mod gpt_ckpt_common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch09::gpt::GptConfig;
use ch09::gpt_ckpt_state::Checkpointed;
use ch09::grid::Grid;
use ch09::params::BlockConfig;
use ch09::pipeline::PipeTrainer;
use ch09::train::GridTrainer;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::path::PathBuf;
use tch::{Kind, Tensor};

/// Adam's learning rate in the checks.
pub const LR: f64 = 0.01;
/// The global batch.
pub const GLOBAL: usize = 4;

/// 2 blocks of 12 heads (divided by 1 to 4) of 4 features, context 8, `GLOBAL / dp`
/// sequences a replica.
pub fn cfg(vocab: usize, dp: usize) -> GptConfig {
    tch::set_num_threads(1); // ranks share 2 cores in the tests
    let block = BlockConfig::new(GLOBAL / dp, 8, 48, 12).expect("12 heads divide 48");
    GptConfig {
        vocab,
        layers: 2,
        block,
    }
}

/// A trainer at `dp x tp` on `comm`, from seed `seed`.
pub fn trainer<'g>(grid: &'g Grid, vocab: usize, seed: i64) -> Result<GridTrainer<'g>, String> {
    GridTrainer::new(grid, cfg(vocab, grid.layout.dp), Kind::Double, seed, LR)
}

/// A trainer of this rank's stage at `dp x tp x pp` on `grid`, from seed `seed`, GPipe
/// over `micro` micro-batches.
pub fn pipe_trainer<'g>(
    grid: &'g Grid,
    vocab: usize,
    seed: i64,
    micro: usize,
) -> Result<PipeTrainer<'g>, String> {
    let c = cfg(vocab, grid.layout.dp);
    PipeTrainer::new(grid, c, micro, Kind::Double, seed, LR)
}

/// The first of `a`'s tensors (parameters, m, v) that is not bit for bit `b`'s, named;
/// or Adam's step counts that differ.
pub fn same_state(what: &str, a: &impl Checkpointed, b: &impl Checkpointed) -> Result<(), String> {
    let (oa, ob) = (a.optimizer(), b.optimizer());
    for (i, ((name, x), (_, y))) in a.named().into_iter().zip(b.named()).enumerate() {
        let pairs = [(x, y), (&oa.m[i], &ob.m[i]), (&oa.v[i], &ob.v[i])];
        for (which, (x, y)) in ["", "Adam's m of ", "Adam's v of "].iter().zip(pairs) {
            if bits(x) != bits(y) {
                return Err(format!("{what}: {which}{name} differs"));
            }
        }
    }
    match oa.t == ob.t {
        true => Ok(()),
        false => Err(format!("{what}: Adam at step {} vs {}", ob.t, oa.t)),
    }
}

/// A fresh folder, the same on every rank of `comm`.
pub fn shared_dir(comm: &SimpleCommunicator, what: &str) -> PathBuf {
    let mut pid = std::process::id();
    comm.process_at_rank(0).broadcast_into(&mut pid);
    std::env::temp_dir().join(format!("ch09-{what}-{pid}"))
}

/// The first `n` ranks of `world` (None on the others).
pub fn first(world: &SimpleCommunicator, n: usize) -> Option<SimpleCommunicator> {
    let color = match (world.rank() as usize) < n {
        true => Color::with_value(0),
        false => Color::undefined(),
    };
    world.split_by_color(color)
}

/// The bits of a tensor's values.
pub fn bits(t: &Tensor) -> Vec<u64> {
    let v = Vec::<f64>::try_from(t.flatten(0, -1)).expect("f64 values");
    v.iter().map(|x| x.to_bits()).collect()
}
