//! Given: sharded checkpoints, written. A checkpoint holds units: at stages 0 to 2 one,
//! `flat` (the whole model's flat buffer), at stage 3 one per layer (each its own padded
//! flat buffer, `crate::layers`). Each rank writes its own file,
//! `DIR/shard-Q-of-N-step-S.ckpt`: for every unit, the real elements of its shard (the
//! padding stripped) of the unit's parameters and of Adam's m and v, with the model's
//! name, the step, N, Q and each unit's name and P_l. When every shard is on disk (written
//! to a temporary file, synced, renamed), rank 0 replaces `DIR/manifest.ckpt` the same
//! atomic way: the model, the step, N, the units (name, P_l), and each shard file's length
//! and FNV-1a checksum; then it deletes the shard files of earlier saves. The new shards
//! have new names, so until the new manifest is in place the old manifest and its shards
//! are untouched: a save cut short at any point leaves the previous checkpoint whole. The
//! containers are the trainer kit's (`trainer_kit::ckpt`: magic, version, length, body,
//! checksum). Reading and checking them, and resharding, is `crate::ckpt_read`.

pub use crate::ckpt_read::{open, Saved, SavedUnit, Slice};
use crate::memory::Stage;
use crate::shards::Layout;
use ch06::model::ModelKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use trainer_kit::ckpt::{fnv1a, Format, Writer};

/// A shard file's format (version 2: the units listed).
pub(crate) const SHARD: Format = Format {
    magic: *b"CH08SHRD",
    version: 2,
};
/// The manifest's format (version 2: the units listed).
pub(crate) const MANIFEST: Format = Format {
    magic: *b"CH08MANI",
    version: 2,
};
/// The one unit of a checkpoint of stages 0 to 2: the whole model's flat buffer (its
/// tensors sorted by name).
pub const FLAT_UNIT: &str = "flat";

/// How a checkpoint is stored (`--checkpoint-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CheckpointFormat {
    /// A file per rank and a manifest (this module).
    #[default]
    Shards,
    /// One file, written and read by every rank at once with MPI-IO (`crate::one_file`).
    OneFile,
}

/// Saves `units` in `format`: [`save`], or `crate::one_file::save`. Collective.
pub fn save_in(
    format: CheckpointFormat,
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    step: u64,
    units: &[ToSave],
) -> Result<(), String> {
    match format {
        CheckpointFormat::Shards => save(world, dir, model, step, units),
        CheckpointFormat::OneFile => crate::one_file::save(world, dir, model, step, units),
    }
}

/// Saved rank `q`'s file of a checkpoint saved by `n` ranks at `step`.
pub fn shard_file(dir: &Path, q: usize, n: usize, step: u64) -> PathBuf {
    dir.join(format!("shard-{q}-of-{n}-step-{step}.ckpt"))
}

/// The manifest of the checkpoint in `dir`.
pub fn manifest_file(dir: &Path) -> PathBuf {
    dir.join("manifest.ckpt")
}

/// The model's name in a checkpoint (its kind, P, and a hash of its tensors' names and
/// shapes) and P, for a model built once here on the CPU (before the trainer seeds it).
pub fn model_id(kind: ModelKind) -> (String, usize) {
    let vs = tch::nn::VarStore::new(tch::Device::Cpu);
    let _model = ch06::model::build(&vs.root(), kind, (8, 8));
    let named = vs.variables().into_iter().map(|(n, t)| (n, t.size()));
    model_name(kind, named.collect())
}

/// [`model_id`] of a model whose tensors are `named` (name, shape; any order).
pub fn model_name(kind: ModelKind, mut named: Vec<(String, Vec<i64>)>) -> (String, usize) {
    named.sort();
    let p: i64 = named.iter().map(|(_, s)| s.iter().product::<i64>()).sum();
    let shapes = fnv1a(format!("{named:?}").as_bytes());
    (
        format!("{}, P = {p}, shapes {shapes:016x}", kind.name()),
        p as usize,
    )
}

/// The units a checkpoint of `kind`'s model at `stage` holds (name, P_l), in order: one,
/// [`FLAT_UNIT`] of all P, at stages 0 to 2; one per layer at stage 3.
pub fn units_of(kind: ModelKind, stage: Stage) -> Vec<(String, usize)> {
    match stage {
        Stage::Zero3 => crate::layers::layer_sizes(kind, (8, 8)),
        _ => vec![(FLAT_UNIT.into(), model_id(kind).1)],
    }
}

/// Writes `bytes` to `file` atomically: a temporary file, synced, renamed over `file`.
fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)?;
    sync_dir(file.parent().unwrap_or(Path::new(".")))
}

/// Rank 0 creates `dir` (if missing); every rank learns whether it could. Collective.
pub(crate) fn make_dir(world: &SimpleCommunicator, dir: &Path) -> Result<(), String> {
    let mut failed = 0u64;
    if world.rank() == 0 {
        failed = std::fs::create_dir_all(dir).is_err() as u64;
    }
    world.process_at_rank(0).broadcast_into(&mut failed);
    match failed {
        0 => Ok(()),
        _ => Err(format!(
            "cannot save into {}: rank 0 could not create it",
            dir.display()
        )),
    }
}

/// Makes a folder's entries (a rename, a deletion) durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// One unit of what a rank saves: its name, this rank's layout in the unit's padded flat
/// buffer, and this rank's shard of the unit's parameters and of Adam's m and v
/// (`layout.shard` elements each, the buffer's elements `layout.mine`; the padding is not
/// written).
pub struct ToSave<'a> {
    pub name: &'a str,
    pub layout: &'a Layout,
    pub values: &'a [f32],
    pub m: &'a [f32],
    pub v: &'a [f32],
}

/// Saves this rank's part of `units` at `step` into `dir`. Collective over `world`; with
/// one rank in the units' layouts (plain data parallelism) only rank 0 writes.
pub fn save(
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    step: u64,
    units: &[ToSave],
) -> Result<(), String> {
    let (ranks, rank) = (units[0].layout.ranks, units[0].layout.rank);
    assert!(units
        .iter()
        .all(|u| u.layout.ranks == ranks && u.layout.rank == rank));
    let root = world.rank() == 0;
    let shown = dir.display();
    let mut failed = 0u64;
    make_dir(world, dir)?;
    let writes = ranks == world.size() as usize || root;
    let mut mine = [0u64; 3]; // failed, checksum, length
    if writes {
        let mut body = Writer::default();
        body.str(model);
        for x in [step, ranks as u64, rank as u64, units.len() as u64] {
            body.u64(x);
        }
        for u in units {
            let (l, real) = (u.layout, u.layout.real());
            let own = real.start - l.mine.start..real.end - l.mine.start;
            body.str(u.name);
            body.u64(l.params as u64);
            let len = [own.len() as i64];
            body.tensor("values", &len, &u.values[own.clone()]);
            body.tensor("adam_m", &len, &u.m[own.clone()]);
            body.tensor("adam_v", &len, &u.v[own]);
        }
        let bytes = SHARD.seal(&body.bytes);
        let file = shard_file(dir, rank, ranks, step);
        mine = match write_atomic(&file, &bytes) {
            Ok(()) => [0, fnv1a(&bytes), bytes.len() as u64],
            Err(_) => [1, 0, 0],
        };
    }
    let mut all = vec![0u64; 3 * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    if let Some(r) = all.chunks(3).position(|c| c[0] != 0) {
        return Err(format!(
            "cannot save into {shown}: rank {r} could not write its shard"
        ));
    }
    if root {
        let mut body = Writer::default();
        body.str(model);
        for x in [step, ranks as u64, units.len() as u64] {
            body.u64(x);
        }
        for u in units {
            body.str(u.name);
            body.u64(u.layout.params as u64);
        }
        all.chunks(3).take(ranks).for_each(|c| {
            body.u64(c[1]);
            body.u64(c[2]);
        });
        failed = write_atomic(&manifest_file(dir), &MANIFEST.seal(&body.bytes)).is_err() as u64;
        if failed == 0 {
            // The new checkpoint is whole: the shards of earlier saves can go.
            let keep: Vec<PathBuf> = (0..ranks)
                .map(|q| shard_file(dir, q, ranks, step))
                .collect();
            for f in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                if name.starts_with("shard-")
                    && name.ends_with(".ckpt")
                    && !keep.contains(&f.path())
                {
                    std::fs::remove_file(f.path()).ok();
                }
            }
        }
    }
    world.process_at_rank(0).broadcast_into(&mut failed);
    match failed {
        0 => Ok(()),
        _ => Err(format!(
            "cannot save into {shown}: rank 0 could not write the manifest"
        )),
    }
}
