//! Checks of the one-file checkpoint (`--checkpoint-format one-file`, MPI-IO): saved at N
//! by the trainers of stage 2 and of stage 3, the file holds the parameters, m and v in the
//! model's order, as one process would write them; loaded at M, every rank's state is the
//! one the per-rank shards give, bit for bit; a flipped byte, a cut file, the other
//! format's folder and a save cut short are each refused or survived, on every rank alike.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main one_file::`.

use crate::ckpt_common::{self, bits, first, shared_dir};
use ch08::config::Config;
use ch08::memory::Stage;
use ch08::one_file::one_file;
use ch08::sharded_ckpt::CheckpointFormat;
use ch08::train::Trainer;
use ch08::trainer3::Trainer3;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::Path;
use toolkit::lockstep::agree;
use toolkit::mpi_test;

/// The lab's settings (`ckpt_common::cfg`) in `format`.
fn cfg(stage: Stage, steps: u64, dir: &Path, resume: bool, format: CheckpointFormat) -> Config {
    let mut c = ckpt_common::cfg(stage, steps, Some(dir), resume);
    c.checkpoint_format = format;
    c
}

/// What [`run`] returns: this rank's parameters, m and v (bits), the whole state, the step.
type State = ([Vec<u32>; 3], Vec<f32>, u64);

/// A trainer's state after `c` (trained first unless it resumes): the parameters, m and v
/// this rank holds (as bits), then the parameters, m and v in the model's order, whole
/// (gathered), and the step.
fn run(comm: &SimpleCommunicator, c: Config) -> Result<State, String> {
    let train = ch06::data::digits()?.train;
    let (fit, stage3) = (!c.common.resume, c.stage == Stage::Zero3);
    let mut whole = vec![];
    let gather = |x: &[f32], padded: usize, p: usize| {
        let mut all = vec![0f32; padded];
        comm.all_gather_into(x, &mut all[..]);
        all.truncate(p);
        all
    };
    if stage3 {
        let mut t = Trainer3::new_on(comm, c, (8, 8), tch::Device::Cpu)?;
        if fit {
            t.fit(&train);
        }
        let (values, (m, v)) = (t.model.shard_values(), t.model.adam.moments());
        for (u, r) in t.model.units.iter().zip(&t.model.ranges) {
            for x in [&values, &m, &v] {
                whole.extend(gather(&x[r.clone()], u.layout.padded, u.params()));
            }
        }
        return Ok(([bits(&values), bits(&m), bits(&v)], whole, t.steps));
    }
    let mut t = Trainer::new(comm, c, (8, 8))?;
    if fit {
        t.fit(&train);
    }
    let (m, v) = t.adam.moments();
    let (l, values) = (&t.layout, t.flat.values());
    whole.extend_from_slice(&values[..l.params]);
    whole.extend(gather(&m, l.padded, l.params));
    whole.extend(gather(&v, l.padded, l.params));
    Ok(([bits(values), bits(&m), bits(&v)], whole, t.steps))
}

mpi_test! {
    fn a_one_file_checkpoint_loads_as_the_shards_do(world at &[5]) {
        tch::set_num_threads(1);
        for (stage, n) in [(Stage::Zero2, 3), (Stage::Zero3, 2)] {
            let (shards, one) = (CheckpointFormat::Shards, CheckpointFormat::OneFile);
            let dir = |f: CheckpointFormat| shared_dir(world, &format!("{}-{f:?}", stage.name()));
            let (ds, d1) = (dir(shards), dir(one));
            // Every block ends with the ranks agreeing on its verdict: a rank that fails does
            // not leave the others waiting in the next block's collectives.
            let saved = |comm: &SimpleCommunicator| -> Result<(), String> {
                run(comm, cfg(stage, 3, &ds, false, shards))?;
                let (_, whole, _) = run(comm, cfg(stage, 3, &d1, false, one))?;
                // The file's data is the whole state in the model's order, as one process writes it.
                let bytes = std::fs::read(one_file(&d1)).map_err(|e| e.to_string())?;
                let data = &bytes[bytes.len() - 4 * whole.len()..];
                let read: Vec<u32> = data.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
                match read == bits(&whole) {
                    true => Ok(()),
                    false => Err(format!("{}, saved at {n}: one-file.ckpt's data is not the parameters, m and v in order", stage.name())),
                }
            };
            agree(world, first(world, n).map_or(Ok(()), |comm| saved(&comm)))?;
            for m in [1, 4, 5] {
                let loaded = |comm: &SimpleCommunicator| -> Result<(), String> {
                    let (a, _, sa) = run(comm, cfg(stage, 5, &ds, true, shards))?;
                    let (b, _, sb) = run(comm, cfg(stage, 5, &d1, true, one))?;
                    let what = format!("{}: saved at {n}, loaded at {m}, rank {}: one file against the shards", stage.name(), comm.rank());
                    ckpt_common::same_state(&what, [&a[0], &a[1], &a[2]], [&b[0], &b[1], &b[2]])?;
                    match (sa, sb) {
                        (3, 3) => Ok(()),
                        _ => Err(format!("{what}: at steps {sa} and {sb}, saved at 3")),
                    }
                };
                agree(world, first(world, m).map_or(Ok(()), |comm| loaded(&comm)))?;
            }
            refusals(world, stage, &ds, &d1)?;
            ckpt_common::remove_shared(world, &ds);
            ckpt_common::remove_shared(world, &d1);
        }
        Ok(())
    }
}

/// Faults planted in copies of the one-file checkpoint `d1` (and the shards' folder `ds`
/// resumed as one file, and the reverse), each refused on every rank with its line; a
/// save cut short (a stale temporary file) does not stop a resume.
fn refusals(world: &SimpleCommunicator, stage: Stage, ds: &Path, d1: &Path) -> Result<(), String> {
    let file = one_file(d1);
    let len = std::fs::metadata(&file).map_err(|e| e.to_string())?.len() as usize;
    let plant = |name: &str, change: &dyn Fn(&mut Vec<u8>)| {
        let to = d1.with_file_name(format!(
            "{}-{name}",
            d1.file_name().unwrap().to_string_lossy()
        ));
        if world.rank() == 0 {
            let mut bytes = std::fs::read(&file).unwrap();
            change(&mut bytes);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::write(one_file(&to), bytes).unwrap();
        }
        world.barrier();
        to
    };
    let (shards, one) = (CheckpointFormat::Shards, CheckpointFormat::OneFile);
    let cases = [
        (
            plant("flip", &|b| b[len - 8] ^= 1),
            one,
            "corrupt: the elements of Adam's v of unit",
        ),
        (
            plant("cut", &|b| b.truncate(len - 12)),
            one,
            "the header says",
        ),
        (
            plant("stale", &|b| b[0] = 0),
            one,
            "not a chapter-8 one-file checkpoint",
        ),
        (
            ds.to_path_buf(),
            one,
            "resume with --checkpoint-format shards",
        ),
        (
            d1.to_path_buf(),
            shards,
            "resume with --checkpoint-format one-file",
        ),
    ];
    for (dir, format, line) in &cases {
        let got = run(world, cfg(stage, 5, dir, true, *format))
            .err()
            .unwrap_or_default();
        if !got.contains(line) {
            return Err(format!(
                "{}: rank {}: resuming from {} as {format:?}: wanted a refusal with \
                `{line}`, got `{got}`",
                stage.name(),
                world.rank(),
                dir.display()
            ));
        }
    }
    // A save cut short leaves its temporary file: the last checkpoint still loads.
    let stale = plant("tmp", &|_| {});
    if world.rank() == 0 {
        std::fs::write(one_file(&stale).with_extension("ckpt.tmp"), b"cut").unwrap();
    }
    world.barrier();
    let (_, _, step) = run(world, cfg(stage, 5, &stale, true, one))?;
    if step != 3 {
        return Err(format!(
            "beside a cut save's temporary file, resumed at step {step}, saved at 3"
        ));
    }
    for (dir, _, _) in cases.iter().take(3) {
        ckpt_common::remove_shared(world, dir);
    }
    ckpt_common::remove_shared(world, &stale);
    Ok(())
}
