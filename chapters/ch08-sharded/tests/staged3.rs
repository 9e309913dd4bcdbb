//! Checks of ZeRO-3 staged (`ch08::staged3`), the path `zero --stage 3 --device cuda`
//! runs: the shards, gradients, Adam's state and gathered layers on the device, the
//! allgathers and reduce-scatters through host buffers allocated once. Where there is no
//! GPU it runs on the CPU with the same staging and must end every step where the host
//! path ends, bit for bit, with and without prefetch (tests/zero3_common:
//! `staged3_equals_host`); on a GPU, near it, with the bytes the formulas say. Without a
//! GPU, `--stage 3 --device cuda` is refused in one line that says why.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main staged3::`.

use crate::zero3_common::{staged3_equals_host, GridHalves};
use mpi::traits::*;
use tch::Device;
use toolkit::mpi_test;

mpi_test! {
    fn the_staged_stage3_step_ends_where_the_host_step_ends(world at &[1, 3]) {
        let backward = ch08::layer_step::backward_layer;
        let grid = GridHalves(world);
        staged3_equals_host(world, &grid, false, Device::Cpu, backward, None)?;
        if world.size() > 1 {
            staged3_equals_host(world, &grid, true, Device::Cpu, backward, None)?;
        }
        // Chapter 3's ring too where its solutions are in (your ex 3.1 and 3.2 otherwise).
        #[cfg(feature = "solution")]
        {
            let ring = ch08::halves::RingHalves::new(world);
            staged3_equals_host(world, &ring as &dyn ch08::halves::Halves, false, Device::Cpu, backward, None)?;
        }
        Ok(())
    }
}

mpi_test! {
    fn on_a_gpu_the_staged_stage3_step_is_near_the_host_step(world at &[2]) {
        if torch_link::skip_without_gpu("stage 3 staged on a GPU", tch::Cuda::is_available()) {
            return Ok(());
        }
        let grid = GridHalves(world);
        for prefetch in [false, true] {
            let backward = ch08::layer_step::backward_layer;
            staged3_equals_host(world, &grid, prefetch, Device::Cuda(0), backward, Some(1e-3))?;
        }
        Ok(())
    }
}

#[test]
fn stage3_device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) else {
        println!("a GPU can be used here: --stage 3 --device cuda is accepted, nothing to refuse");
        return;
    };
    let want = format!("--device cuda: {why}");
    let cases: [(&[&str], &str); 1] = [(&["--stage", "3", "--device", "cuda"], &want)];
    trainer_kit::testing::check_refusals(env!("CARGO_BIN_EXE_zero"), "zero", 2, &cases);
}
