//! Given: sharded checkpoints. Each rank writes its own file, `DIR/shard-Q-of-N-step-S.ckpt`:
//! the real elements of its shard (the padding stripped) of the flat parameters and of
//! Adam's m and v, with the model's name, the step, P, N and Q. When every shard is on disk
//! (written to a temporary file, synced, renamed), rank 0 replaces `DIR/manifest.ckpt` the
//! same atomic way: the model, the step, P, N, and each shard file's length and FNV-1a
//! checksum; then it deletes the shard files of earlier saves. The new shards have new
//! names, so until the new manifest is in place the old manifest and its shards are
//! untouched: a save cut short at any point leaves the previous checkpoint whole. The
//! containers are the trainer kit's (`trainer_kit::ckpt`: magic, version, length, body,
//! checksum).
//!
//! Reading ([`open`]) checks the manifest and every shard against it and refuses, in one
//! line, another model's checkpoint, a missing, truncated or corrupt shard, and a shard
//! the manifest does not list. A checkpoint saved at N ranks loads at any M
//! ([`Saved::shard`], with `reshard`'s arithmetic). Every rank reads every shard, so that
//! all ranks reach the same verdict without a message (the lab checks before MPI starts).

use crate::reshard::sources;
use crate::shards::{saved_slice, Layout};
use ch06::model::ModelKind;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use trainer_kit::ckpt::{fnv1a, same_model, Format, Reader, SealError, Writer};

/// A shard file's format.
const SHARD: Format = Format {
    magic: *b"CH08SHRD",
    version: 1,
};
/// The manifest's format.
const MANIFEST: Format = Format {
    magic: *b"CH08MANI",
    version: 1,
};

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

/// One saved rank's slice: the real elements of its shard of the parameters, m and v.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    pub values: Vec<f32>,
    pub m: Vec<f32>,
    pub v: Vec<f32>,
}

/// A checkpoint as read back and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Saved {
    pub step: u64,
    /// P.
    pub params: usize,
    /// N: the ranks that saved it.
    pub ranks: usize,
    /// Saved rank q's slice, for q in 0..N.
    pub slices: Vec<Slice>,
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

/// Makes a folder's entries (a rename, a deletion) durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// What a rank saves: the step, the whole flat parameters (`values`; a rank writes its
/// layout's real elements of them) and its Adam moments (`layout.shard` elements each).
pub struct ToSave<'a> {
    pub step: u64,
    pub values: &'a [f32],
    pub m: &'a [f32],
    pub v: &'a [f32],
}

/// Saves this rank's part of `state` into `dir`. Collective over `world`; with
/// `layout.ranks == 1` (plain data parallelism) only rank 0 writes.
pub fn save(
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    layout: &Layout,
    state: ToSave,
) -> Result<(), String> {
    let ToSave { step, values, m, v } = state;
    let root = world.rank() == 0;
    let shown = dir.display();
    let mut failed = 0u64;
    if root {
        failed = std::fs::create_dir_all(dir).is_err() as u64;
    }
    world.process_at_rank(0).broadcast_into(&mut failed);
    if failed != 0 {
        return Err(format!(
            "cannot save into {shown}: rank 0 could not create it"
        ));
    }
    let writes = layout.ranks == world.size() as usize || root;
    let mut mine = [0u64; 3]; // failed, checksum, length
    if writes {
        let real = layout.real();
        let own = real.start - layout.mine.start..real.end - layout.mine.start;
        let mut body = Writer::default();
        body.str(model);
        for x in [step as usize, layout.params, layout.ranks, layout.rank].map(|x| x as u64) {
            body.u64(x);
        }
        let len = [own.len() as i64];
        body.tensor("values", &len, &values[real.clone()]);
        body.tensor("adam_m", &len, &m[own.clone()]);
        body.tensor("adam_v", &len, &v[own]);
        let bytes = SHARD.seal(&body.bytes);
        let file = shard_file(dir, layout.rank, layout.ranks, step);
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
        for x in [step, layout.params as u64, layout.ranks as u64] {
            body.u64(x);
        }
        all.chunks(3).take(layout.ranks).for_each(|c| {
            body.u64(c[1]);
            body.u64(c[2]);
        });
        failed = write_atomic(&manifest_file(dir), &MANIFEST.seal(&body.bytes)).is_err() as u64;
        if failed == 0 {
            // The new checkpoint is whole: the shards of earlier saves can go.
            let current = |q| shard_file(dir, q, layout.ranks, step);
            let keep: Vec<PathBuf> = (0..layout.ranks).map(current).collect();
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

/// Why a container cannot be read, in words.
fn sealed(e: SealError, what: &str) -> String {
    match e {
        SealError::Truncated { expected, got } => {
            format!("truncated: {got} bytes of {expected} (was its write cut short?)")
        }
        SealError::NotACheckpoint => format!("not a chapter-8 {what}"),
        SealError::Corrupt => "corrupt: checksum mismatch".into(),
    }
}

/// Reads the checkpoint in `dir` and checks it against this run's `model` (its name from
/// [`model_id`]) with `params` parameters: the manifest, then every shard against it.
/// Errors are one line, starting with the file at fault.
pub fn open(dir: &Path, model: &str, params: usize) -> Result<Saved, String> {
    let file = manifest_file(dir);
    let at = |f: &Path, why: String| format!("{}: {why}", f.display());
    let bytes = std::fs::read(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => at(
            &file,
            "missing: not a checkpoint, or its save did not finish".into(),
        ),
        _ => at(&file, e.to_string()),
    })?;
    let body = MANIFEST
        .unseal(&bytes)
        .map_err(|e| at(&file, sealed(e, "manifest")))?;
    let mut r = Reader::new(body);
    let odd = |f: &Path| at(f, "corrupt: its fields do not add up".into());
    let saved = r.str().ok_or_else(|| odd(&file))?;
    same_model(&saved, model).map_err(|e| at(&file, e))?;
    let mut head = [0u64; 3];
    for x in head.iter_mut() {
        *x = r.u64().ok_or_else(|| odd(&file))?;
    }
    let [step, p, n] = head.map(|x| x as usize);
    if p != params || n == 0 || n > p {
        return Err(odd(&file));
    }
    let mut listed = vec![];
    for _ in 0..n {
        listed.push((
            r.u64().ok_or_else(|| odd(&file))?,
            r.u64().ok_or_else(|| odd(&file))?,
        ));
    }
    if !r.at_end() {
        return Err(odd(&file));
    }
    let mut slices = vec![];
    for (q, (sum, len)) in listed.into_iter().enumerate() {
        let f = shard_file(dir, q, n, step as u64);
        let bytes = std::fs::read(&f).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                at(&f, format!("missing (the manifest lists {n} shards)"))
            }
            _ => at(&f, e.to_string()),
        })?;
        let body = SHARD
            .unseal(&bytes)
            .map_err(|e| at(&f, sealed(e, "shard")))?;
        if fnv1a(&bytes) != sum || bytes.len() as u64 != len {
            return Err(at(
                &f,
                format!("not the shard the manifest lists (step {step}): from another save?"),
            ));
        }
        let mut r = Reader::new(body);
        let head = (r.str(), r.u64(), r.u64(), r.u64(), r.u64());
        let want = (Some(saved.clone()), Some(step as u64), Some(p as u64));
        if (head.0, head.1, head.2) != want || (head.3, head.4) != (Some(n as u64), Some(q as u64))
        {
            return Err(odd(&f));
        }
        let real = saved_slice(p, n, q).len();
        let mut read = |name: &str| match r.tensor::<f32>() {
            Some((got, _, x)) if got == name && x.len() == real => Ok(x),
            _ => Err(odd(&f)),
        };
        let (values, m, v) = (read("values")?, read("adam_m")?, read("adam_v")?);
        slices.push(Slice { values, m, v });
    }
    Ok(Saved {
        step: step as u64,
        params,
        ranks: n,
        slices,
    })
}

impl Saved {
    /// Every parameter, in flat order (P elements): what every rank of every stage holds.
    pub fn values(&self) -> Vec<f32> {
        self.slices.iter().flat_map(|s| s.values.clone()).collect()
    }

    /// `layout`'s shard of m and of v (its padding zeros), rebuilt from the saved slices
    /// whatever N they were saved at.
    pub fn shard(&self, layout: &Layout) -> (Vec<f32>, Vec<f32>) {
        let (mut m, mut v) = (vec![0.0; layout.shard], vec![0.0; layout.shard]);
        for c in sources(self.params, self.ranks, layout) {
            let s = &self.slices[c.from];
            m[c.dst.clone()].copy_from_slice(&s.m[c.src.clone()]);
            v[c.dst].copy_from_slice(&s.v[c.src]);
        }
        (m, v)
    }
}
