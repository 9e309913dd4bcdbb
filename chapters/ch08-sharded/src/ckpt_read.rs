//! Given: sharded checkpoints, read back (written by `crate::sharded_ckpt`). [`open`]
//! checks the manifest and every shard against it and refuses, in one line, another
//! model's checkpoint, a checkpoint of the other kind of stage (a flat buffer of the whole
//! model for stages 0 to 2, a flat buffer per layer for stage 3), a missing, truncated or
//! corrupt shard, and a shard the manifest does not list. A checkpoint saved at N ranks
//! loads at any M, unit by unit ([`SavedUnit::shard`], with `reshard`'s arithmetic). Every
//! rank reads every shard, so that all ranks reach the same verdict without a message
//! (the lab checks before MPI starts).

use crate::one_file::{self, Want};
use crate::reshard::sources;
use crate::sharded_ckpt::{
    manifest_file, shard_file, CheckpointFormat, FLAT_UNIT, MANIFEST, SHARD,
};
use crate::shards::{saved_slice, Layout};
use mpi::topology::SimpleCommunicator;
use std::path::Path;
use trainer_kit::ckpt::{fnv1a, same_model, Reader, SealError};

/// One saved rank's slice of a unit: the real elements of its shard of the unit's
/// parameters, m and v.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    pub values: Vec<f32>,
    pub m: Vec<f32>,
    pub v: Vec<f32>,
}

/// One unit of a checkpoint: its name, P_l, and saved rank q's slice for q in 0..N.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedUnit {
    pub name: String,
    pub params: usize,
    pub slices: Vec<Slice>,
}

/// A checkpoint as read back and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Saved {
    pub step: u64,
    /// N: the ranks that saved it.
    pub ranks: usize,
    /// The units, in the order saved (one, `flat`, at stages 0 to 2; one per layer at 3).
    pub units: Vec<SavedUnit>,
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

/// Why a checkpoint's units are not this run's `want` (name, P_l), in words: a checkpoint
/// of the other kind of stage, or a mismatch that the model's name should have caught.
pub(crate) fn other_units(saved: &[(String, usize)], want: &[(String, usize)]) -> String {
    let flat = |u: &[(String, usize)]| u.len() == 1 && u[0].0 == FLAT_UNIT;
    match (flat(saved), flat(want)) {
        (true, false) => "a checkpoint of stages 0 to 2 (one flat buffer of the whole model), \
                          but stage 3 shards each layer's own buffer: resume it with --stage 0, \
                          1 or 2"
            .into(),
        (false, true) => format!(
            "a checkpoint of stage 3 (one flat buffer per layer: {}), but stages 0 to 2 shard \
             one flat buffer of the whole model: resume it with --stage 3",
            saved
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => format!("its units {saved:?} are not this run's {want:?}"),
    }
}

/// Reads the checkpoint in `dir` and checks it against this run's `model` (its name from
/// `sharded_ckpt::model_id`) and `units` (name, P_l; `sharded_ckpt::units_of`): the
/// manifest, then every shard against it. Errors are one line, starting with the file at
/// fault.
pub fn open(dir: &Path, model: &str, units: &[(String, usize)]) -> Result<Saved, String> {
    let file = manifest_file(dir);
    let at = |f: &Path, why: String| format!("{}: {why}", f.display());
    let bytes = std::fs::read(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound if one_file::one_file(dir).exists() => at(
            &file,
            "missing, but the folder holds a one-file checkpoint (one-file.ckpt): resume with \
             --checkpoint-format one-file"
                .into(),
        ),
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
    let (step, n, count) = match (r.u64(), r.u64(), r.u64()) {
        (Some(s), Some(n), Some(c)) if n > 0 && c > 0 && c < 1 << 16 => (s, n as usize, c),
        _ => return Err(odd(&file)),
    };
    let mut listed_units = vec![];
    for _ in 0..count {
        let name = r.str().ok_or_else(|| odd(&file))?;
        listed_units.push((name, r.u64().ok_or_else(|| odd(&file))? as usize));
    }
    if listed_units != units {
        return Err(at(&file, other_units(&listed_units, units)));
    }
    if units.iter().any(|(_, p)| n > *p) {
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
    let mut out: Vec<SavedUnit> = units
        .iter()
        .map(|(name, params)| SavedUnit {
            name: name.clone(),
            params: *params,
            slices: vec![],
        })
        .collect();
    for (q, (sum, len)) in listed.into_iter().enumerate() {
        let f = shard_file(dir, q, n, step);
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
        let want = (
            Some(saved.clone()),
            Some(step),
            Some(n as u64),
            Some(q as u64),
        );
        if (head.0, head.1, head.2, head.3) != want || head.4 != Some(count) {
            return Err(odd(&f));
        }
        for u in out.iter_mut() {
            if r.str().as_ref() != Some(&u.name) || r.u64() != Some(u.params as u64) {
                return Err(odd(&f));
            }
            let real = saved_slice(u.params, n, q).len();
            let mut read = |name: &str| match r.tensor::<f32>() {
                Some((got, _, x)) if got == name && x.len() == real => Ok(x),
                _ => Err(odd(&f)),
            };
            let (values, m, v) = (read("values")?, read("adam_m")?, read("adam_v")?);
            u.slices.push(Slice { values, m, v });
        }
        if !r.at_end() {
            return Err(odd(&f));
        }
    }
    Ok(Saved {
        step,
        ranks: n,
        units: out,
    })
}

/// Checks the checkpoint in `dir` stored in `format` against `model` and `units` without
/// communicating: [`open`] (every shard), or the one file's header and length
/// (`one_file::header`; its data's checksums are checked while loading). Every rank alike.
pub fn check(
    format: CheckpointFormat,
    dir: &Path,
    model: &str,
    units: &[(String, usize)],
) -> Result<(), String> {
    match format {
        CheckpointFormat::Shards => open(dir, model, units).map(|_| ()),
        CheckpointFormat::OneFile => one_file::header(dir, model, units).map(|_| ()),
    }
}

/// Loads this rank's `wants` (one per unit) from the checkpoint in `dir` stored in
/// `format`: the step, and per unit a [`Slice`] (its values all P_l parameters or the
/// shard, as asked; m and v the shard, padding zeros). Collective over `world`.
pub fn load(
    format: CheckpointFormat,
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    units: &[(String, usize)],
    wants: &[Want],
) -> Result<(u64, Vec<Slice>), String> {
    if format == CheckpointFormat::OneFile {
        return one_file::load(world, dir, model, units, wants);
    }
    let saved = open(dir, model, units)?;
    let slices = saved.units.iter().zip(wants).map(|(u, w)| {
        let shard = u.shard(w.layout);
        match w.all_values {
            true => Slice {
                values: u.values(),
                ..shard
            },
            false => shard,
        }
    });
    Ok((saved.step, slices.collect()))
}

impl SavedUnit {
    /// Every parameter of the unit, in flat order (P_l elements).
    pub fn values(&self) -> Vec<f32> {
        self.slices.iter().flat_map(|s| s.values.clone()).collect()
    }

    /// `layout`'s shard of the unit's parameters, m and v (`layout.shard` elements each,
    /// its padding zeros), rebuilt from the saved slices whatever N they were saved at.
    pub fn shard(&self, layout: &Layout) -> Slice {
        let zeros = || vec![0.0; layout.shard];
        let mut out = Slice {
            values: zeros(),
            m: zeros(),
            v: zeros(),
        };
        for c in sources(self.params, self.slices.len(), layout) {
            let s = &self.slices[c.from];
            out.values[c.dst.clone()].copy_from_slice(&s.values[c.src.clone()]);
            out.m[c.dst.clone()].copy_from_slice(&s.m[c.src.clone()]);
            out.v[c.dst].copy_from_slice(&s.v[c.src]);
        }
        out
    }
}
