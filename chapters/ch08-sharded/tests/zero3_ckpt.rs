//! Checks of the stage-3 lab's sharded checkpoints (one unit per layer): a resume at the
//! same N continues bit for bit (every layer's shard, every moment, the step count equal
//! to a run that never stopped); a checkpoint saved at N in {2, 3, 5} loads at M in
//! {1, 4, 7} with every layer's shard and moment as saved; bad checkpoints, and a
//! checkpoint of stages 0 to 2 at stage 3 (or the reverse), are refused in one line before
//! any communication; a save cut short leaves the last checkpoint whole.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main zero3_ckpt::`.

use crate::ckpt_common;

use crate::ckpt_common::{bits, first, resume_args, same_state, save_with_the_lab, shared_dir};
use ch08::memory::Stage;
use ch08::trainer3::Trainer3;
use mpi::traits::*;
use std::path::Path;
use tch::Device;
use toolkit::mpi_test;

/// The MLP at stage 3, `steps` steps, saving into / resuming from `dir`.
fn cfg(steps: u64, dir: Option<&Path>, resume: bool) -> ch08::config::Config {
    ckpt_common::cfg(Stage::Zero3, steps, dir, resume)
}

/// A stage-3 trainer on the CPU.
fn trainer<'w>(
    world: &'w mpi::topology::SimpleCommunicator,
    c: ch08::config::Config,
) -> Result<Trainer3<'w>, String> {
    Trainer3::new_on(world, c, (8, 8), Device::Cpu)
}

/// A stage-3 trainer's state: its shards of every layer, m, v (as bits), the step counts.
fn state(t: &Trainer3) -> ([Vec<u32>; 3], u64, u64) {
    let (m, v) = t.model.adam.moments();
    let s = [bits(&t.model.shard_values()), bits(&m), bits(&v)];
    (s, t.steps, t.model.adam.steps())
}

mpi_test! {
    fn a_stage3_resume_at_the_same_n_continues_bit_for_bit(world at &[1, 2, 3]) {
        tch::set_num_threads(1);
        let train = ch06::data::digits()?.train;
        let dir = shared_dir(world, "resume3");
        let mut straight = trainer(world, cfg(5, None, false))?;
        straight.fit(&train);
        let mut before = cfg(3, Some(&dir), false);
        before.common.every = 2; // saved at 2, then at 3 (the last step)
        let mut first = trainer(world, before)?;
        first.fit(&train);
        if let Some(e) = first.ckpt_error.take() {
            return Err(e);
        }
        let mut resumed = trainer(world, cfg(5, Some(&dir), true))?;
        if resumed.steps != 3 || resumed.model.adam.steps() != 3 {
            return Err(format!("resumed at step {}, saved at 3", resumed.steps));
        }
        resumed.fit(&train);
        if let Some(e) = resumed.ckpt_error.take() {
            return Err(e);
        }
        let (a, b) = (state(&straight), state(&resumed));
        let what = format!(
            "ZeRO-3 at {} ranks, rank {}: 3 steps, save, resume, 2 more differs from 5 straight",
            world.size(), world.rank());
        same_state(&what, [&a.0[0], &a.0[1], &a.0[2]], [&b.0[0], &b.0[1], &b.0[2]])?;
        if (a.1, a.2) != (b.1, b.2) {
            return Err(format!("{what}: steps {:?} vs {:?}", (b.1, b.2), (a.1, a.2)));
        }
        ckpt_common::remove_shared(world, &dir);
        Ok(())
    }
}

mpi_test! {
    fn a_stage3_checkpoint_saved_at_n_loads_at_m(world at &[7]) {
        tch::set_num_threads(1);
        let train = ch06::data::digits()?.train;
        for n in [2, 3, 5] {
            let dir = shared_dir(world, &format!("reshard3-{n}"));
            // Saved at N (3 steps): every layer's parameters, m and v, gathered whole.
            let mut whole = vec![];
            if let Some(comm) = first(world, n) {
                let mut t = trainer(&comm, cfg(3, Some(&dir), false))?;
                t.fit(&train);
                let (values, (m, v)) = (t.model.shard_values(), t.model.adam.moments());
                for (u, r) in t.model.units.iter().zip(&t.model.ranges) {
                    for x in [&values, &m, &v] {
                        let mut all = vec![0f32; u.layout.padded];
                        comm.all_gather_into(&x[r.clone()], &mut all[..]);
                        whole.extend_from_slice(&all[..u.params()]);
                    }
                }
            }
            let mut len = whole.len() as u64;
            world.process_at_rank(0).broadcast_into(&mut len);
            whole.resize(len as usize, 0.0);
            world.process_at_rank(0).broadcast_into(&mut whole[..]);
            for m in [1, 4, 7] {
                let Some(comm) = first(world, m) else { continue };
                let t = trainer(&comm, cfg(5, Some(&dir), true))?;
                let (values, (got_m, got_v)) = (t.model.shard_values(), t.model.adam.moments());
                let what = format!("saved at {n}, loaded at {m}, rank {}", comm.rank());
                let mut at = 0;
                for (u, r) in t.model.units.iter().zip(&t.model.ranges) {
                    let p = u.params();
                    for (k, (name, got)) in [("parameters", &values), ("m", &got_m), ("v", &got_v)].iter().enumerate() {
                        let part = &whole[at + k * p..at + (k + 1) * p];
                        let want: Vec<f32> = u.layout.mine.clone().map(|i| part.get(i).copied().unwrap_or(0.0)).collect();
                        if bits(&got[r.clone()]) != bits(&want) {
                            return Err(format!("{what}: layer {}'s {name} differ from those saved", u.name));
                        }
                    }
                    at += 3 * p;
                }
                if t.steps != 3 || t.model.adam.steps() != 3 {
                    return Err(format!("{what}: at step {}", t.steps));
                }
                // And it trains on: 2 more steps (keeping the checkpoint at N for the next M).
                let mut go = trainer(&comm, cfg(5, Some(&dir), true))?;
                go.cfg.common.checkpoint = None;
                let (losses, _) = go.fit(&train);
                if go.steps != 5 || !losses.iter().all(|x| x.is_finite()) {
                    return Err(format!("{what}: {} steps, losses {losses:?}", go.steps));
                }
            }
            ckpt_common::remove_shared(world, &dir);
        }
        Ok(())
    }
}

#[test]
fn bad_stage3_checkpoints_are_refused_before_any_communication() {
    let base = std::env::temp_dir().join(format!("ch08-refused3-{}", std::process::id()));
    let (good, later, flat) = (base.join("good"), base.join("later"), base.join("flat"));
    let stage3 = ["--stage", "3"];
    save_with_the_lab(2, 2, &good, &stage3);
    save_with_the_lab(2, 3, &later, &stage3);
    save_with_the_lab(2, 2, &flat, &["--stage", "2"]);
    let at3 =
        |model: &str, d: &Path| [resume_args(model, d), stage3.map(String::from).to_vec()].concat();
    let mut owned: Vec<(Vec<String>, &str)> =
        vec![
        (at3("cnn", &good), "manifest.ckpt: a checkpoint of model `mlp, P = 26122"),
        (
            resume_args("mlp", &good),
            "manifest.ckpt: a checkpoint of stage 3 (one flat buffer per layer: fc1, fc2, out), \
             but stages 0 to 2 shard one flat buffer of the whole model: resume it with --stage 3",
        ),
        (
            at3("mlp", &flat),
            "manifest.ckpt: a checkpoint of stages 0 to 2 (one flat buffer of the whole model), \
             but stage 3 shards each layer's own buffer: resume it with --stage 0, 1 or 2",
        ),
    ];
    for (dir, line) in ckpt_common::faulty_copies(&good, &later) {
        owned.push((at3("mlp", &dir), line));
    }
    ckpt_common::refused_at_2_and_3(&owned);
    ckpt_common::a_cut_save_leaves_the_last_checkpoint_whole(&good, &later, |d| at3("mlp", d));
    std::fs::remove_dir_all(&base).ok();
}
