//! Given: per-stage checkpoints. Each stage writes its own file `DIR/stage-S.ckpt` (only
//! replica 0: the replicas hold the same values), atomically: temporary file, sync,
//! rename. The container is the trainer kit's (`trainer_kit::ckpt`: magic `CH07STG2`, a
//! version, the body's length, the body, its FNV-1a checksum). The body: the model's name
//! and shape, step, stage, stages, then every tensor (parameters, then the optimizer's
//! state) as name, shape and f64 values: a resumed run continues bit for bit.

use crate::optim::Optimizer;
use crate::stage_model::{Shape, StageModel};
use std::io::Write;
use std::path::{Path, PathBuf};
use tch::Tensor;
use trainer_kit::ckpt::{self, same_model, Format, Reader, SealError, Writer};

/// The file format of a stage checkpoint.
const FORMAT: Format = Format {
    magic: *b"CH07STG2",
    version: 1,
};

/// The file of stage `s` in `dir`.
pub fn path(dir: &Path, s: usize) -> PathBuf {
    dir.join(format!("stage-{s}.ckpt"))
}

/// The model's name in a checkpoint: the task and the shape of the whole model.
pub fn model_name(shape: &Shape) -> String {
    format!(
        "{}-digit addition, {} blocks of width {}",
        shape.task.digits, shape.depth, shape.width
    )
}

/// A stage's parameters and its optimizer's state, named (what its checkpoint holds;
/// shallow clones).
pub fn state(stage: &StageModel, opt: &Optimizer) -> Vec<(String, Tensor)> {
    let names = &stage.names;
    let mut named = ckpt::named("", names, stage.params.iter().map(Tensor::shallow_clone));
    for (tag, list) in [("adam_m.", &opt.m), ("adam_v.", &opt.v)] {
        named.extend(ckpt::named(
            tag,
            names,
            list.iter().map(Tensor::shallow_clone),
        ));
    }
    named
}

// ANCHOR: save
/// Writes step `step` of stage `s` of `p` of `model` with its named tensors to `file`
/// atomically.
pub fn save(
    file: &Path,
    model: &str,
    step: u64,
    s: usize,
    p: usize,
    tensors: &[(String, Tensor)],
) -> std::io::Result<()> {
    let mut body = Writer::default();
    body.str(model);
    for x in [step, s as u64, p as u64, tensors.len() as u64] {
        body.u64(x);
    }
    let mut values = Vec::<f64>::new(); // checkpoints hold f64 whatever the model's dtype
    for (name, t) in tensors {
        crate::wire::copy_out(t, &mut values);
        body.tensor(name, &t.size(), &values);
    }
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&FORMAT.seal(&body.bytes))?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}
// ANCHOR_END: save

/// Reads `file` and copies it into `tensors` (same model, names and shapes, checked
/// first); returns its step. Refuses another model's or another stage's file, a cut or
/// changed file.
pub fn load(
    file: &Path,
    model: &str,
    s: usize,
    p: usize,
    tensors: &mut [(String, Tensor)],
) -> Result<u64, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let bad = |why: &str| format!("{}: {why}", file.display());
    let body = FORMAT.unseal(&bytes).map_err(|e| {
        bad(match e {
            SealError::Truncated { .. } => "truncated",
            SealError::NotACheckpoint => "not a chapter-7 stage checkpoint",
            SealError::Corrupt => "corrupt: checksum mismatch",
        })
    })?;
    let mut r = Reader::new(body);
    let odd = || bad("corrupt: its fields do not add up");
    let saved = r.str().ok_or_else(odd)?;
    same_model(&saved, model).map_err(|e| bad(&e))?;
    let mut head = [0u64; 4];
    for x in head.iter_mut() {
        *x = r.u64().ok_or_else(odd)?;
    }
    let [step, fs, fp, count] = head;
    let (fs, fp, count) = (fs as usize, fp as usize, count as usize);
    if (fs, fp) != (s, p) || count != tensors.len() {
        return Err(bad(&format!(
            "stage {fs} of {fp} with {count} tensors; this is stage {s} of {p} with {}",
            tensors.len()
        )));
    }
    let mut staged = vec![];
    for (name, t) in tensors.iter() {
        let (saved, shape, values) = r.tensor::<f64>().ok_or_else(odd)?;
        if &saved != name || shape != t.size() {
            return Err(bad(&format!(
                "`{saved}` {shape:?} where this stage has `{name}` {:?}",
                t.size()
            )));
        }
        if values.len() != crate::wire::numel(&shape) {
            return Err(odd());
        }
        staged.push(crate::wire::copy_in(&values, &shape, t.device()));
    }
    for ((_, t), v) in tensors.iter_mut().zip(staged) {
        tch::no_grad(|| t.copy_(&v));
    }
    Ok(step)
}
