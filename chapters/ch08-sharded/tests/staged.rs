//! Checks of the staged step, the path `zero --device cuda` runs (parameters, kept gradient
//! and Adam on the device, collectives on host staging buffers). Where there is no GPU it
//! runs on the CPU with the same staging and must end with the parameters the host step
//! ends with, bit for bit; on a GPU it must hold what the stage's formula says, its host
//! staging what `staging_formula` says, and end near the host step's parameters.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main staged::`.

use crate::common;

use ch08::config::{Collectives, Config};
use ch08::memory::{formula, Stage};
use ch08::staged::{staging_formula, OnDevice};
use ch08::train::Trainer;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};
use toolkit::mpi_test;

const STAGES: [Stage; 3] = [Stage::Replicated, Stage::Zero1, Stage::Zero2];

fn cfg(stage: Stage, collectives: Collectives) -> Config {
    common::lab_cfg(stage, collectives, 3)
}

/// A trained host-step trainer and a trained staged one (on `device`) of `stage`.
fn both<'w>(
    world: &'w SimpleCommunicator,
    stage: Stage,
    collectives: Collectives,
    device: Device,
) -> Result<(Trainer<'w>, Trainer<'w>), String> {
    let train = ch06::data::digits()?.train;
    let mut host = Trainer::new(world, cfg(stage, collectives), (8, 8))?;
    host.fit(&train);
    let mut staged = Trainer::new_on(world, cfg(stage, collectives), (8, 8), device)?;
    if staged.on_device.is_none() {
        staged.on_device = Some(OnDevice::new(device, stage, &staged.layout));
    }
    staged.fit(&train);
    Ok((host, staged))
}

/// Held bytes and host staging bytes of `t` against their formulas.
fn check_bytes(t: &Trainer, stage: Stage, n: usize) -> Result<(), String> {
    let (held, l) = (t.held(), &t.layout);
    let want = formula(stage, l.padded, n);
    if held.total() as f64 != want {
        return Err(format!(
            "{} staged: holds {held:?}, formula {want}",
            stage.name()
        ));
    }
    let staging = t.on_device.as_ref().map_or(0, |d| d.staging.bytes());
    let want = staging_formula(stage, l.padded, l.shard);
    if staging != want {
        return Err(format!(
            "{} staged: {staging} B of staging, formula {want}",
            stage.name()
        ));
    }
    Ok(())
}

mpi_test! {
    fn the_staged_step_ends_where_the_host_step_ends(world at &[1, 3]) {
        tch::set_num_threads(1);
        let n = world.size() as usize;
        // Chapter 3's ring too where its solutions are in (your ex 3.1 and 3.2 otherwise).
        let kinds: &[Collectives] = match cfg!(feature = "solution") {
            true => &[Collectives::Ring, Collectives::Mpi],
            false => &[Collectives::Mpi],
        };
        for stage in STAGES {
            for &collectives in kinds {
                let (host, staged) = both(world, stage, collectives, Device::Cpu)?;
                if host.flat.values() != staged.flat.values() {
                    return Err(format!(
                        "{} ({collectives:?}) at {n} ranks: the staged step's parameters differ \
                         from the host step's", stage.name()
                    ));
                }
                check_bytes(&staged, stage, n)?;
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn on_a_gpu_the_staged_step_holds_what_its_formula_says(world at &[2]) {
        if torch_link::skip_without_gpu("staged on a GPU", tch::Cuda::is_available()) {
            return Ok(());
        }
        let n = world.size() as usize;
        for stage in STAGES {
            let (host, gpu) = both(world, stage, Collectives::Mpi, Device::Cuda(0))?;
            check_bytes(&gpu, stage, n)?;
            ch06::flat::check_identical(world, &gpu.flat.params, "after the staged steps")?;
            let on_host = gpu.flat.tensor().to_device(Device::Cpu);
            let diff = (on_host - Tensor::from_slice(host.flat.values())).abs().max();
            let diff = diff.double_value(&[]);
            if diff > 1e-4 {
                return Err(format!("{} on the GPU: {diff} from the host step", stage.name()));
            }
        }
        Ok(())
    }
}
