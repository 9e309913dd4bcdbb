//! Checks of the GPT on a device (`GridTrainer::on`, the path `gpt --device cuda` runs):
//! at dp 1 x tp 2, 3 steps of Adam in f64 with the shard, its gradients and Adam's m and
//! v on the device, the collectives staged through host memory, against the same steps
//! in one process on the CPU (`train::OneProcess`, the whole model): every step's loss
//! within `compare::gpt_bound`; every tensor where it should be; a checkpoint saved from
//! the device loads on the CPU with exactly the device's numbers. The same checks run
//! with the CPU as the device, so the path is tested where there is no GPU. The GPU run
//! skips with its one-line reason where no GPU can be used (`WORKBOOK_REQUIRE_GPU=1`, as
//! the GPU kit sets, makes it fail instead), and there `--device cuda` is refused in that
//! same line before MPI starts.
//!
//! Run: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_device::` (the
//! GPU kit runs it on a GPU: `make gpu-kit`).

use crate::gpt_ckpt_common::{bits, cfg, shared_dir, trainer, GLOBAL, LR};
use ch09::compare::gpt_bound;
use ch09::corpus::Corpus;
use ch09::gpt_ckpt::save;
use ch09::gpt_ckpt_read::open_for;
use ch09::gpt_ckpt_state::Checkpointed;
use ch09::grid::{Grid, Layout};
use ch09::train::{GridTrainer, OneProcess};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::lockstep::agree;
use toolkit::mpi_test;

/// 3 steps at dp 1 x tp 2 on `device` against one process on the CPU: the losses within
/// the bound, where the tensors live, and a checkpoint saved from `device` read back on
/// the CPU bit for bit.
fn like_the_cpu(world: &SimpleCommunicator, device: Device) -> Result<(), String> {
    let corpus = Corpus::shipped()?;
    let vocab = corpus.vocab();
    let grid = Grid::new(world, Layout::new(1, 2, 2)?);
    let c = cfg(vocab, 1); // one replica: its batch is the global batch
    let mut one = OneProcess::new(c, Kind::Double, 11, LR);
    let mut dev = GridTrainer::on(&grid, c, Kind::Double, 11, LR, device)?;
    let longest = c.block.ffn.max(vocab).max(GLOBAL * c.block.seq);
    let mut mine = Ok(());
    for step in 1..=3 {
        let (want, got) = (one.step(&corpus, 5, step), dev.step(&corpus, 5, step).loss);
        let bound = gpt_bound(&Tensor::from(want), longest, c.layers);
        if (got - want).abs() > bound && mine.is_ok() {
            mine = Err(format!(
                "on {device:?}, step {step}'s loss {got} vs one process's {want} (bound {bound:.1e})"
            ));
        }
    }
    let opt = dev.optimizer();
    for (i, (name, p)) in dev.named().into_iter().enumerate() {
        let at = [
            p.device(),
            p.grad().device(),
            opt.m[i].device(),
            opt.v[i].device(),
        ];
        if at.iter().any(|d| *d != device) && mine.is_ok() {
            mine = Err(format!(
                "{name}: its values, gradient, m and v are on {at:?}, not all on {device:?}"
            ));
        }
    }
    agree(world, mine)?;
    let dir = shared_dir(world, "device-save");
    save(world, &dev, &dir, 3)?;
    let mut back = trainer(&grid, vocab, 12)?;
    open_for(&dir, &back)?.install(&mut back)?;
    let on_cpu = |t: &Tensor| bits(&t.to_device(Device::Cpu));
    let mut mine = Ok(());
    for ((name, d), (_, h)) in dev.named().into_iter().zip(back.named()) {
        if on_cpu(d) != bits(h) && mine.is_ok() {
            mine = Err(format!(
                "saved on {device:?}, read back on the CPU: {name} is not the device's"
            ));
        }
    }
    world.barrier();
    if world.rank() == 0 {
        std::fs::remove_dir_all(&dir).ok();
    }
    agree(world, mine)
}

mpi_test! {
    fn the_device_path_on_the_cpu_trains_like_one_process(world at &[2]) {
        like_the_cpu(world, Device::Cpu)
    }
}

mpi_test! {
    fn on_a_gpu_the_gpt_trains_like_on_the_cpu(world at &[2]) {
        if torch_link::skip_without_gpu("the GPT on a GPU", tch::Cuda::is_available()) {
            return Ok(());
        }
        like_the_cpu(world, Device::Cuda(0))
    }
}

#[test]
fn gpt_device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) else {
        // (The binary's path is this build's: on the GPU kit's machine it is not there.)
        println!("a GPU can be used here: --device cuda is accepted, nothing to refuse");
        return;
    };
    let want = format!("--device cuda: {why}");
    let cases: [(&[&str], &str); 2] = [
        (&["--device", "cuda"], &want),
        (&["--device", "cuda", "--pp", "2"], &want),
    ];
    trainer_kit::testing::check_refusals(env!("CARGO_BIN_EXE_gpt"), "gpt", 2, &cases);
}
