//! Given: the trainer's state on disk: checkpoints saved (ex 6.6) and resumed (ex 6.7),
//! and the fault injection the tests use. Part of [`super::Trainer`].

use super::Trainer;
use crate::checkpoint::{load_checkpoint, restore, save_checkpoint};
use crate::ckpt_format::{Checkpoint, Entry};
use crate::flat;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

impl Trainer<'_> {
    pub(super) fn resume(&mut self) -> Result<(), String> {
        let path = self
            .cfg
            .common
            .checkpoint
            .clone()
            .expect("checked by config::check");
        let ckpt =
            load_checkpoint(&path).map_err(|e| format!("--resume {}: {e}", path.display()))?;
        let params = self.params.iter().map(Tensor::shallow_clone);
        let mut named = trainer_kit::ckpt::named("", &self.names, params);
        restore(&ckpt, &self.cfg.model.name(), &mut named, &mut self.opt.m)
            .map_err(|e| format!("--resume {}: {e}", path.display()))?;
        (self.epoch, self.step_in_epoch) = (ckpt.epoch, ckpt.step_in_epoch);
        self.global_step = ckpt.global_step;
        if ckpt.seed != self.cfg.common.seed {
            return Err(format!(
                "--resume: checkpoint seed {} but --seed {}",
                ckpt.seed, self.cfg.common.seed
            ));
        }
        Ok(())
    }

    /// The trainer's state as a checkpoint (parameters and momentum copied to the host).
    pub fn checkpoint(&self) -> Checkpoint {
        let entries = |ts: &[Tensor]| -> Vec<Entry> {
            let host = ts
                .iter()
                .map(|t| t.to_device(Device::Cpu).to_kind(Kind::Float));
            self.names
                .iter()
                .zip(host)
                .map(|(name, t)| {
                    let mut data = vec![0f32; t.numel()];
                    flat::pack(std::slice::from_ref(&t), &mut data);
                    Entry {
                        name: name.clone(),
                        shape: t.size(),
                        data,
                    }
                })
                .collect()
        };
        Checkpoint {
            model: self.cfg.model.name(),
            epoch: self.epoch,
            step_in_epoch: self.step_in_epoch,
            global_step: self.global_step,
            seed: self.cfg.common.seed,
            params: entries(&self.params),
            momentum: entries(&self.opt.m),
        }
    }

    /// Fault injection for the tests: `CH06_KILL_RANK=r CH06_KILL_AT_STEP=n` kills rank r
    /// (SIGKILL, no goodbye) when it reaches global step n (the trainer kit's).
    pub(super) fn maybe_die(&self) {
        trainer_kit::fault::maybe_die("CH06", self.comm.rank(), self.global_step);
    }

    /// Saves a checkpoint on rank 0 if one is due (every `--every` steps).
    pub fn maybe_checkpoint(&self) -> Result<(), String> {
        match &self.cfg.common.checkpoint {
            Some(path)
                if self.comm.rank() == 0
                    && self.global_step.is_multiple_of(self.cfg.common.every) =>
            {
                save_checkpoint(path, &self.checkpoint())
                    .map_err(|e| format!("cannot save the checkpoint {}: {e}", path.display()))
            }
            _ => Ok(()),
        }
    }
}
