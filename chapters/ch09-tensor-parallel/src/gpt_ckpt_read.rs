//! Given: the GPT's checkpoints, read back (written by [`crate::gpt_ckpt`]). [`open`]
//! checks the manifest and every part it lists, and refuses in one line, naming the file
//! at fault and what to do: a missing manifest or part, a truncated or changed file (its
//! length or checksum), a part of another save, another model. Every rank reads the same
//! files and reaches the same verdict without a message, before any communication (the
//! lab checks before MPI starts). [`Saved::install`] then gives a trainer at any layout its
//! slices of the whole tensors (`gpt_cut::slice_of`, the same for parameters, m and v),
//! and Adam's step count: a pipeline stage takes the tensors of its own blocks (and the
//! tied table, the positions, the final norm where it holds them), from whichever part
//! they were written in.
//!
//! Tests: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_ckpt::`,
//! `--test main gpt_ckpt_faults::` and `--test main gpt_ckpt_pipeline::`.

use crate::gpt_ckpt::{manifest_file, model_name, NamedState, Values, MANIFEST, PART};
use crate::gpt_ckpt_state::Checkpointed;
use crate::gpt_cut::slice_of;
use std::path::Path;
use tch::Tensor;
use trainer_kit::ckpt::{fnv1a, same_model, Reader, SealError};

/// A checkpoint as read back and checked.
pub struct Saved {
    /// Training steps done when it was saved.
    pub step: u64,
    /// Adam's step count (its bias correction).
    pub adam_steps: u64,
    /// The part files, in order.
    pub parts: Vec<String>,
    /// Every tensor: its name, then [parameters, Adam's m, Adam's v], whole.
    pub tensors: Vec<NamedState>,
}

/// What to do about a checkpoint that cannot be read.
const FIX: &str = "restore the folder from a copy, or start again without --resume";

/// Why a container cannot be read, in words.
fn sealed(e: SealError, what: &str) -> String {
    match e {
        SealError::Truncated { expected, got } => {
            format!("truncated: {got} bytes of {expected} (was its write cut short?): {FIX}")
        }
        SealError::NotACheckpoint => format!("not a chapter-9 {what}: {FIX}"),
        SealError::Corrupt => format!("corrupt: checksum mismatch: {FIX}"),
    }
}

/// Reads the checkpoint in `dir` and checks it against this run's `model`
/// (`gpt_ckpt::model_name`): the manifest, then every part against it. Errors are one
/// line, starting with the file at fault. No communication.
pub fn open(dir: &Path, model: &str) -> Result<Saved, String> {
    let at = |f: &Path, why: String| format!("{}: {why}", f.display());
    let odd = |f: &Path| at(f, format!("corrupt: its fields do not add up: {FIX}"));
    let file = manifest_file(dir);
    let bytes = std::fs::read(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => at(
            &file,
            "missing: not a checkpoint, or its first save did not finish: start without --resume"
                .into(),
        ),
        _ => at(&file, e.to_string()),
    })?;
    let body = MANIFEST
        .unseal(&bytes)
        .map_err(|e| at(&file, sealed(e, "manifest")))?;
    let mut r = Reader::new(body);
    let saved = r.str().ok_or_else(|| odd(&file))?;
    same_model(&saved, model).map_err(|e| {
        at(
            &file,
            format!("{e}: resume with the model's flags it was saved with"),
        )
    })?;
    let (step, n) = match (r.u64(), r.u64()) {
        (Some(s), Some(n)) if n > 0 && n < 1 << 16 => (s, n as usize),
        _ => return Err(odd(&file)),
    };
    let mut listed = vec![];
    for _ in 0..n {
        let name = r.str().ok_or_else(|| odd(&file))?;
        let (sum, len) = (r.u64(), r.u64());
        listed.push((
            name,
            sum.ok_or_else(|| odd(&file))?,
            len.ok_or_else(|| odd(&file))?,
        ));
    }
    if !r.at_end() {
        return Err(odd(&file));
    }
    let mut out = Saved {
        step,
        adam_steps: 0,
        parts: listed.iter().map(|(name, ..)| name.clone()).collect(),
        tensors: vec![],
    };
    for (p, (name, sum, len)) in listed.into_iter().enumerate() {
        let f = dir.join(&name);
        let bytes = std::fs::read(&f).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                at(&f, format!("missing, though the manifest lists it: {FIX}"))
            }
            _ => at(&f, e.to_string()),
        })?;
        let body = PART.unseal(&bytes).map_err(|e| at(&f, sealed(e, "part")))?;
        if fnv1a(&bytes) != sum || bytes.len() as u64 != len {
            return Err(at(
                &f,
                format!("not the part the manifest lists (step {step}): from another save? {FIX}"),
            ));
        }
        let mut r = Reader::new(body);
        let head = (r.str(), r.u64(), r.u64(), r.u64(), r.u64(), r.u64());
        let (Some(m), Some(s), Some(adam), Some(q), Some(parts), Some(count)) = head else {
            return Err(odd(&f));
        };
        let other_adam = p > 0 && adam != out.adam_steps;
        if m != saved || s != step || q != p as u64 || parts != n as u64 || count > 1 << 20 {
            return Err(odd(&f));
        }
        if other_adam {
            return Err(odd(&f));
        }
        out.adam_steps = adam;
        for _ in 0..count {
            let name = r.str().ok_or_else(|| odd(&f))?;
            let mut read = |tag: &str| match r.tensor::<f64>() {
                Some((got, shape, x)) if got == tag && ch07::wire::numel(&shape) == x.len() => {
                    Ok((shape, x))
                }
                _ => Err(odd(&f)),
            };
            let three = [read("values")?, read("adam_m")?, read("adam_v")?];
            if out.whole(&name).is_some() {
                return Err(odd(&f)); // a name written twice
            }
            out.tensors.push((name, three));
        }
        if !r.at_end() {
            return Err(odd(&f));
        }
    }
    Ok(out)
}

/// [`open`] for a trainer: the checkpoint of `dir` checked against its model.
pub fn open_for(dir: &Path, tr: &impl Checkpointed) -> Result<Saved, String> {
    open(dir, &model_name(tr.cfg(), tr.kind()))
}

impl Saved {
    /// The whole tensors saved for `name` ([parameters, m, v]).
    pub fn whole(&self, name: &str) -> Option<&[Values; 3]> {
        self.tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// Copies the checkpoint into `tr` at its layout: its slices of every tensor it holds
    /// (its stage's) and of Adam's m and v, and Adam's step count. No communication; `Err`
    /// (one line) when the checkpoint lacks one of its tensors or holds another shape.
    pub fn install(&self, tr: &mut impl Checkpointed) -> Result<(), String> {
        let (t, r, cfg) = (tr.tp().size(), tr.tp().rank(), *tr.cfg());
        let opt = tr.optimizer();
        let mut staged = vec![];
        for (i, (name, p)) in tr.named().into_iter().enumerate() {
            let three = self
                .whole(&name)
                .ok_or_else(|| format!("the checkpoint has no tensor `{name}`: {FIX}"))?;
            let into = [p, &opt.m[i], &opt.v[i]];
            for (dst, (shape, v)) in into.into_iter().zip(three) {
                let whole = Tensor::from_slice(v).view(&shape[..]);
                let mine = slice_of(&name, &whole, &cfg, t, r)?;
                if mine.size() != dst.size() {
                    return Err(format!(
                        "the checkpoint's `{name}` {shape:?} does not cut into this rank's {:?}",
                        dst.size()
                    ));
                }
                staged.push((dst.shallow_clone(), mine));
            }
        }
        for (mut dst, src) in staged {
            tch::no_grad(|| dst.copy_(&src));
        }
        tr.optimizer_mut().t = self.adam_steps;
        Ok(())
    }
}
