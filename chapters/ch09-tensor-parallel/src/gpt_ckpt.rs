//! Given: the GPT's checkpoints, written: one format for every layout.
//!
//! The unit is a parameter's name (`GptParams::named`'s) with its WHOLE tensor, and
//! Adam's m and v of it, whole too: nothing in a checkpoint says how many ranks held it
//! or how the blocks were split into stages, so any grid the model allows can read it. A
//! TP rank holds slices ([`crate::gpt_cut`]: the rules of `GptParams::shard`), so each TP
//! group gathers its slices to its rank 0 first (one MPI gather of all of them; the
//! replicated tensors are whole already). The replicas hold the same numbers, so only the
//! ranks [`writers`] names write: one per pipeline stage, its rank at dp 0, tp 0, with the
//! names its stage holds ([`crate::gpt_ckpt_state::Checkpointed`]; the tied table once,
//! by the first stage). Each writer writes its part, `DIR/part-P-of-N-step-S.ckpt`
//! (the model, the step, Adam's step count, then name, shape, values, m, v of each tensor
//! in f64), to a temporary file, synced, renamed. When every part is on disk (an
//! allgather of the writers' verdicts), world rank 0 replaces `DIR/manifest.ckpt` the
//! same atomic way (the model, the step, each part's file name, length and FNV-1a
//! checksum), and only then deletes the parts of earlier saves: the new parts have new
//! names, so a save cut short anywhere leaves the previous checkpoint whole. The
//! containers are the trainer kit's (`trainer_kit::ckpt`). Reading is
//! [`crate::gpt_ckpt_read`].
//!
//! Tests: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_ckpt::`,
//! `--test main gpt_ckpt_faults::` and `--test main gpt_ckpt_pipeline::`.

use crate::gpt::GptConfig;
use crate::gpt_ckpt_state::Checkpointed;
use crate::gpt_cut::{cut, len, slice_numel, Cut};
use crate::grid::{Coords, Layout};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use tch::{Kind, Tensor};
use trainer_kit::ckpt::{fnv1a, Format, Writer};

/// A part's format.
pub(crate) const PART: Format = Format {
    magic: *b"CH09PART",
    version: 1,
};
/// The manifest's format.
pub(crate) const MANIFEST: Format = Format {
    magic: *b"CH09MANI",
    version: 1,
};

/// The manifest of the checkpoint in `dir`.
pub fn manifest_file(dir: &Path) -> PathBuf {
    dir.join("manifest.ckpt")
}

/// The file name of part `p` of the `n` parts of a checkpoint saved at `step`.
pub fn part_name(p: usize, n: usize, step: u64) -> String {
    format!("part-{p}-of-{n}-step-{step}.ckpt")
}

/// The model's name in a checkpoint: its shape without the batch (which the layout
/// sets), and its element type.
pub fn model_name(cfg: &GptConfig, kind: Kind) -> String {
    let b = &cfg.block;
    let elem = match kind {
        Kind::Double => "f64",
        _ => "f32",
    };
    format!(
        "GPT V = {}, {} blocks, h = {}, {} heads, MLP {}, context {}, {elem}",
        cfg.vocab, cfg.layers, b.hidden, b.heads, b.ffn, b.seq
    )
}

// ANCHOR: writers
/// Who writes a checkpoint of `layout`: the number of parts, and the part the rank at `me`
/// writes (`None`: it writes none). One part per pipeline stage, written by the stage's
/// rank at dp 0, tp 0 (at one stage: one part, every name).
pub fn writers(layout: &Layout, me: &Coords) -> (usize, Option<usize>) {
    (layout.pp, (me.dp == 0 && me.tp == 0).then_some(me.pp))
}

/// Whether the part of stage `stage` holds the tensor `name` its stage holds: all but the
/// tied table on the last stage (the first stage's part holds it; both copies are equal,
/// their gradients summed every step).
pub fn part_holds(stage: usize, name: &str) -> bool {
    stage == 0 || name != "tok"
}
// ANCHOR_END: writers

/// A tensor's shape and values in f64, row-major.
pub type Values = (Vec<i64>, Vec<f64>);

/// A tensor's name with [parameters, Adam's m, Adam's v] of it.
pub type NamedState = (String, [Values; 3]);

/// `t`'s shape and values in f64.
fn values(t: &Tensor) -> Values {
    let mut out = vec![];
    ch07::wire::copy_out(t, &mut out);
    (t.size(), out)
}

/// The tensors of this rank's part with their names: [parameters, Adam's m, Adam's v] of
/// each ([`part_holds`]).
fn held(tr: &impl Checkpointed) -> Vec<NamedState> {
    let (opt, stage) = (tr.optimizer(), tr.grid().me.pp);
    let named = tr.named().into_iter().enumerate();
    let named = named.filter(|(_, (n, _))| part_holds(stage, n));
    named
        .map(|(i, (n, p))| (n, [values(p), values(&opt.m[i]), values(&opt.v[i])]))
        .collect()
}

/// The whole tensors of this rank's TP group, gathered to its rank 0 (`None` on the
/// others): one gather of every slice, each rank's padded to the longest. Collective over
/// the TP group.
fn gather_whole(tr: &impl Checkpointed) -> Result<Option<Vec<NamedState>>, String> {
    let (tp, cfg) = (tr.tp(), tr.cfg());
    let (t, mine) = (tp.size(), held(tr));
    let cuts = |n: &str| {
        (0..t)
            .map(|r| cut(n, cfg, t, r))
            .collect::<Result<Vec<_>, _>>()
    };
    let mut plans = vec![]; // per name: every rank's cut, and the whole shape
    for (name, [(shape, _), ..]) in &mine {
        let c = cuts(name)?;
        let mut whole = shape.clone();
        match &c[tp.rank()] {
            Cut::Whole => {}
            Cut::Rows(_) => whole[0] = c.iter().map(len).sum::<usize>() as i64,
            Cut::Cols(_) => whole[1] = c.iter().map(len).sum::<usize>() as i64,
        }
        plans.push((c, whole));
    }
    let count = |r: usize| -> usize {
        let sliced = plans.iter().filter(|(c, _)| c[r] != Cut::Whole);
        sliced.map(|(c, w)| 3 * slice_numel(w, &c[r])).sum()
    };
    let longest = (0..t).map(count).max().unwrap_or(0);
    let mut send: Vec<f64> = Vec::with_capacity(longest);
    for ((_, three), (c, _)) in mine.iter().zip(&plans) {
        if c[tp.rank()] != Cut::Whole {
            three.iter().for_each(|(_, v)| send.extend_from_slice(v));
        }
    }
    send.resize(longest, 0.0);
    let root = tp.comm().process_at_rank(0);
    if tp.rank() != 0 {
        root.gather_into(&send[..]);
        return Ok(None);
    }
    let mut all = vec![0f64; longest * t];
    root.gather_into_root(&send[..], &mut all[..]);
    let mut at = vec![0usize; t]; // where each rank's next slice starts in its chunk
    let mut out = vec![];
    for ((name, three), (c, whole)) in mine.into_iter().zip(&plans) {
        if c[0] == Cut::Whole {
            out.push((name, three));
            continue;
        }
        let dim = matches!(c[0], Cut::Cols(_)) as i64;
        let gathered = std::array::from_fn(|_| {
            let pieces: Vec<Tensor> = (0..t)
                .map(|r| {
                    let n = slice_numel(whole, &c[r]);
                    let from = &all[r * longest + at[r]..r * longest + at[r] + n];
                    at[r] += n;
                    let mut shape = whole.clone();
                    shape[dim as usize] = len(&c[r]) as i64;
                    Tensor::from_slice(from).view(&shape[..])
                })
                .collect();
            values(&Tensor::cat(&pieces, dim))
        });
        out.push((name, gathered));
    }
    Ok(Some(out))
}

/// Writes `bytes` to `file` atomically: a temporary file, synced, renamed over `file`,
/// the folder synced.
fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)?;
    std::fs::File::open(file.parent().unwrap_or(Path::new(".")))?.sync_all()
}

/// Saves the trainer's state after `step` steps into `dir`: the writers' parts, then the
/// manifest, then the old parts deleted. Collective over `world` (the trainer's grid);
/// every rank returns the same verdict.
pub fn save(
    world: &SimpleCommunicator,
    tr: &impl Checkpointed,
    dir: &Path,
    step: u64,
) -> Result<(), String> {
    let (shown, root) = (dir.display(), world.rank() == 0);
    let mut failed = u64::from(root && std::fs::create_dir_all(dir).is_err());
    world.process_at_rank(0).broadcast_into(&mut failed);
    if failed != 0 {
        return Err(format!(
            "cannot save into {shown}: rank 0 could not create it"
        ));
    }
    let (layout, me) = (&tr.grid().layout, tr.grid().me);
    let (parts, _) = writers(layout, &me);
    let leader = Coords { tp: 0, ..me }; // the TP group's rank 0
    let whole = match writers(layout, &leader).1 {
        Some(_) => gather_whole(tr)?,
        None => None,
    };
    let model = model_name(tr.cfg(), tr.kind());
    let mut mine = [0u64; 4]; // writes, failed, checksum, length
    if let (Some(part), Some(tensors)) = (writers(layout, &me).1, whole) {
        let mut body = Writer::default();
        body.str(&model);
        for x in [
            step,
            tr.optimizer().t,
            part as u64,
            parts as u64,
            tensors.len() as u64,
        ] {
            body.u64(x);
        }
        for (name, three) in &tensors {
            body.str(name);
            for (tag, (shape, v)) in ["values", "adam_m", "adam_v"].iter().zip(three) {
                body.tensor(tag, shape, v);
            }
        }
        let bytes = PART.seal(&body.bytes);
        mine = match write_atomic(&dir.join(part_name(part, parts, step)), &bytes) {
            Ok(()) => [1 + part as u64, 0, fnv1a(&bytes), bytes.len() as u64],
            Err(_) => [1 + part as u64, 1, 0, 0],
        };
    }
    let mut all = vec![0u64; 4 * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    if let Some(r) = all.chunks(4).position(|c| c[1] != 0) {
        return Err(format!(
            "cannot save into {shown}: rank {r} could not write its part"
        ));
    }
    if root {
        let mut listed: Vec<&[u64]> = all.chunks(4).filter(|c| c[0] != 0).collect();
        listed.sort_by_key(|c| c[0]);
        let mut body = Writer::default();
        body.str(&model);
        body.u64(step);
        body.u64(listed.len() as u64);
        for c in &listed {
            body.str(&part_name(c[0] as usize - 1, parts, step));
            body.u64(c[2]);
            body.u64(c[3]);
        }
        failed = write_atomic(&manifest_file(dir), &MANIFEST.seal(&body.bytes)).is_err() as u64;
        if failed == 0 {
            // The new checkpoint is whole: the parts of earlier saves can go.
            let keep: Vec<String> = (0..parts).map(|p| part_name(p, parts, step)).collect();
            for f in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                if name.starts_with("part-") && !keep.contains(&name) {
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
