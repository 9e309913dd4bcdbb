//! Given: the lab's trainer saves and resumes sharded checkpoints (`--checkpoint DIR`,
//! `--every K`, `--resume`: the trainer kit's flags, as in chapters 6 and 7).
//!
//! A save writes this rank's shard: the real elements of its part of the flat parameters,
//! and its Adam m and v (at stage 0, where every rank holds everything, rank 0 alone
//! writes one "shard" of all of it): one unit, `flat`, the whole model's flat buffer. A
//! resume reads the checkpoint (saved at any N, at any of stages 0 to 2), gives every rank
//! all the parameters and its own shard of m and v, and sets the step count: the next step
//! is the one the saved run would have taken. (Stage 3's trainer saves a unit per layer:
//! `trainer3`.)
//!
//! Tests: `cargo test -p ch08-sharded --features solution --test main sharded_ckpt::`.

use crate::ckpt_read;
use crate::one_file::Want;
use crate::sharded_ckpt::{self, model_name, ToSave, FLAT_UNIT};
use crate::train::Trainer;

impl Trainer<'_> {
    /// Saves a checkpoint into `--checkpoint DIR` if one is due: every `--every` steps,
    /// and after the last step (`last`) unless that step was just saved. Collective.
    pub(crate) fn maybe_save(&mut self, last: bool) -> Result<(), String> {
        let Some(dir) = self.cfg.common.checkpoint.clone() else {
            return Ok(());
        };
        if !due(self.steps, self.cfg.common.every, last, self.saved_at) || self.ckpt_error.is_some()
        {
            return Ok(());
        }
        self.save(&dir)?;
        self.saved_at = Some(self.steps);
        Ok(())
    }

    /// Saves this rank's shard of the trainer's state into `dir` (collective over its
    /// world; rank 0 writes the manifest once every shard is on disk).
    pub fn save(&self, dir: &std::path::Path) -> Result<(), String> {
        let (m, v) = self.adam.moments();
        let (model, _) = self.model_id();
        let l = &self.layout;
        let unit = ToSave {
            name: FLAT_UNIT,
            layout: l,
            values: &self.flat.values()[l.mine.clone()],
            m: &m,
            v: &v,
        };
        let format = self.cfg.checkpoint_format;
        sharded_ckpt::save_in(format, self.world, dir, &model, self.steps, &[unit])
    }

    /// Restores the checkpoint in `--checkpoint DIR`: all the parameters, this rank's
    /// shard of Adam's m and v (resharded if it was saved at another N), the step.
    pub(crate) fn resume(&mut self) -> Result<(), String> {
        let dir = self
            .cfg
            .common
            .checkpoint
            .clone()
            .ok_or("--resume needs --checkpoint DIR")?;
        let (model, p) = self.model_id();
        let units = [(FLAT_UNIT.to_string(), p)];
        let want = Want {
            layout: &self.layout,
            all_values: true,
        };
        let format = self.cfg.checkpoint_format;
        let (step, slices) = ckpt_read::load(format, self.world, &dir, &model, &units, &[want])
            .map_err(|e| format!("--resume: {e}"))?;
        let flat = self.flat.values_mut();
        flat[..p].copy_from_slice(&slices[0].values);
        flat[p..].fill(0.0);
        self.adam.restore(&slices[0].m, &slices[0].v, step);
        (self.steps, self.saved_at) = (step, Some(step));
        Ok(())
    }

    /// This trainer's model's name in a checkpoint, and P (`sharded_ckpt::model_name`).
    fn model_id(&self) -> (String, usize) {
        let shapes = self.flat.params.iter().map(|t| t.size());
        model_name(
            self.cfg.model,
            self.names.iter().cloned().zip(shapes).collect(),
        )
    }
}

/// Whether a checkpoint is due after `steps` steps: every `every` steps, and after the last
/// step (`last`), unless that step was just saved (`saved_at`). Both trainers ask it.
pub(crate) fn due(steps: u64, every: u64, last: bool, saved_at: Option<u64>) -> bool {
    (steps.is_multiple_of(every.max(1)) || last) && saved_at != Some(steps)
}
