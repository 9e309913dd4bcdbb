//! Chapter 6 exercises 6.6 and 6.7: checkpoints, written atomically, resumed safely.
//!
//! Rank 0 saves every K steps; a crash at any moment must leave the previous checkpoint
//! whole (6.6). On `--resume` the file must fit the model exactly, or training stops with
//! a clear error, never a silent fresh start (6.7). The byte format is given
//! (`ckpt_format`). Check with `make check CH=06` (tests/checkpoint.rs).
#![allow(unused_variables)] // the stubs do not use their arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::ckpt_format::{self, Checkpoint, CheckpointError};
use std::io::Write;
use std::path::Path;
use tch::Tensor;

// ANCHOR: save_checkpoint
/// Writes `ckpt` (`ckpt_format::encode`) to `path` atomically: the bytes go to a temporary
/// file next to it (`<path>.tmp`), are flushed to disk (`sync_all`), and then the
/// temporary file is renamed over `path`. A reader sees the old file or the new one,
/// never half of one.
pub fn save_checkpoint(path: &Path, ckpt: &Checkpoint) -> std::io::Result<()> {
    // TODO(ex 6.6): write to <path>.tmp, sync_all, rename over path
    todo!("ex 6.6: save a checkpoint atomically (temp file, sync, rename)")
}
// ANCHOR_END: save_checkpoint

// ANCHOR: load_checkpoint
/// Reads and decodes the checkpoint at `path`; a missing or unreadable file is
/// `CheckpointError::Io` (with the path in the message).
pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, CheckpointError> {
    // TODO(ex 6.7): read the file, decode it
    todo!("ex 6.7: load a checkpoint and restore it, refusing one that does not fit")
}
// ANCHOR_END: load_checkpoint

// ANCHOR: restore
/// Copies `ckpt` into the model's `params` (name, tensor; trainer order) and the
/// optimizer's `momentum` buffers, after checking that it fits: the same `model` kind, the
/// same number of tensors, the same names in the same order, the same shapes. Anything
/// else is `CheckpointError::Mismatch` naming the first difference, and nothing is
/// written.
pub fn restore(
    ckpt: &Checkpoint,
    model: &str,
    params: &mut [(String, Tensor)],
    momentum: &mut [Tensor],
) -> Result<(), CheckpointError> {
    // TODO(ex 6.7): check model, counts, names, shapes; then copy the data in
    todo!("ex 6.7: load a checkpoint and restore it, refusing one that does not fit")
}
// ANCHOR_END: restore
