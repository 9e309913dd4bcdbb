//! Chapter 6 exercises 6.6 and 6.7: checkpoints (solution).

use crate::ckpt_format::{self, Checkpoint, CheckpointError};
use std::io::Write;
use std::path::Path;
use tch::Tensor;

// ANCHOR: save_checkpoint
/// Writes `ckpt` to `path` atomically: temporary file, sync, rename.
pub fn save_checkpoint(path: &Path, ckpt: &Checkpoint) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&ckpt_format::encode(ckpt))?;
    file.sync_all()?; // the bytes are on disk before the name points at them
    std::fs::rename(&tmp, path) // atomic on one file system
}
// ANCHOR_END: save_checkpoint

// ANCHOR: load_checkpoint
/// Reads and decodes the checkpoint at `path`.
pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let bytes = std::fs::read(path).map_err(|e| CheckpointError::Io(format!("{path:?}: {e}")))?;
    ckpt_format::decode(&bytes)
}
// ANCHOR_END: load_checkpoint

// ANCHOR: restore
/// Copies `ckpt` into `params` and `momentum` after checking that it fits.
pub fn restore(
    ckpt: &Checkpoint,
    model: &str,
    params: &mut [(String, Tensor)],
    momentum: &mut [Tensor],
) -> Result<(), CheckpointError> {
    let mismatch = |why: String| Err(CheckpointError::Mismatch(why));
    if ckpt.model != model {
        return mismatch(format!("it holds a `{}`, this is a `{model}`", ckpt.model));
    }
    if ckpt.params.len() != params.len() || ckpt.momentum.len() != momentum.len() {
        return mismatch(format!(
            "{} parameters and {} momentum buffers, expected {} and {}",
            ckpt.params.len(),
            ckpt.momentum.len(),
            params.len(),
            momentum.len()
        ));
    }
    let targets = params.iter().map(|(n, t)| (n.as_str(), t));
    let targets = targets.chain(params.iter().map(|(n, _)| n.as_str()).zip(momentum.iter()));
    let saved = ckpt.params.iter().chain(&ckpt.momentum);
    for (entry, (name, t)) in saved.clone().zip(targets) {
        if entry.name != name || entry.shape != t.size() {
            return mismatch(format!(
                "`{}` {:?} where this model has `{name}` {:?}",
                entry.name,
                entry.shape,
                t.size()
            ));
        }
    }
    let targets = params.iter_mut().map(|(_, t)| t).chain(momentum.iter_mut());
    for (entry, t) in saved.zip(targets) {
        let values = Tensor::from_slice(&entry.data).view(entry.shape.as_slice());
        tch::no_grad(|| t.copy_(&values.to_device(t.device())));
    }
    Ok(())
}
// ANCHOR_END: restore
