//! Checks of the lab's sharded checkpoints: a resume at the same N continues bit for bit
//! (every parameter, every moment, the step count equal to a run that never stopped); a
//! checkpoint saved at N in {2, 3, 5} loads at M in {1, 4, 7} with every parameter and
//! moment as saved; bad checkpoints are refused in one line before any communication.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main sharded_ckpt::`.

use crate::ckpt_common;

use crate::ckpt_common::{bits, cfg, first, resume_args, same_state, shared_dir};
use ch08::memory::Stage;
use ch08::train::Trainer;
use mpi::traits::*;
use toolkit::mpi_test;

/// Everything a trainer's state is: the flat parameters, its m and v, the step counts.
fn state(t: &Trainer) -> (Vec<u32>, Vec<u32>, Vec<u32>, u64, u64) {
    let (m, v) = t.adam.moments();
    (
        bits(t.flat.values()),
        bits(&m),
        bits(&v),
        t.steps,
        t.adam.steps(),
    )
}

mpi_test! {
    fn a_resume_at_the_same_n_continues_bit_for_bit(world at &[1, 2, 3]) {
        tch::set_num_threads(1);
        let train = ch06::data::digits()?.train;
        let dir = shared_dir(world, "resume");
        for stage in [Stage::Replicated, Stage::Zero1, Stage::Zero2] {
            let mut straight = Trainer::new(world, cfg(stage, 5, None, false), (8, 8))?;
            straight.fit(&train);
            let mut first = Trainer::new(world, cfg(stage, 3, Some(&dir), false), (8, 8))?;
            first.fit(&train);
            let mut resumed = Trainer::new(world, cfg(stage, 5, Some(&dir), true), (8, 8))?;
            if resumed.steps != 3 {
                return Err(format!("{}: resumed at step {}, saved at 3", stage.name(), resumed.steps));
            }
            resumed.fit(&train);
            if let Some(e) = resumed.ckpt_error.take() {
                return Err(e);
            }
            let (a, b) = (state(&straight), state(&resumed));
            let what = format!(
                "{} at {} ranks, rank {}: 3 steps, save, resume, 2 more differs from 5 straight",
                stage.name(), world.size(), world.rank());
            same_state(&what, [&a.0, &a.1, &a.2], [&b.0, &b.1, &b.2])?;
            if (a.3, a.4) != (b.3, b.4) {
                return Err(format!("steps {:?} vs {:?}", (b.3, b.4), (a.3, a.4)));
            }
        }
        ckpt_common::remove_shared(world, &dir);
        Ok(())
    }
}

mpi_test! {
    fn a_checkpoint_saved_at_n_loads_at_m(world at &[7]) {
        tch::set_num_threads(1);
        let train = ch06::data::digits()?.train;
        for n in [2, 3, 5] {
            let dir = shared_dir(world, &format!("reshard-{n}"));
            // Saved at N (ZeRO-2, 3 steps): the whole m and v, gathered, to every rank.
            let mut whole = vec![];
            if let Some(comm) = first(world, n) {
                let mut t = Trainer::new(&comm, cfg(Stage::Zero2, 3, Some(&dir), false), (8, 8))?;
                t.fit(&train);
                let (m, v) = t.adam.moments();
                let mut all = vec![0f32; 2 * t.layout.padded];
                comm.all_gather_into(&[m, v].concat()[..], &mut all[..]);
                let (s, p) = (t.layout.shard, t.layout.params);
                let pick = |k: usize| all.chunks(s).skip(k).step_by(2).flatten().copied().take(p);
                let (m, v): (Vec<f32>, Vec<f32>) = (pick(0).collect(), pick(1).collect());
                whole = [t.flat.values()[..p].to_vec(), m, v].concat();
            }
            let mut len = whole.len() as u64;
            world.process_at_rank(0).broadcast_into(&mut len);
            whole.resize(len as usize, 0.0);
            world.process_at_rank(0).broadcast_into(&mut whole[..]);
            let p = whole.len() / 3;
            for m in [1, 4, 7] {
                let Some(comm) = first(world, m) else { continue };
                let t = Trainer::new(&comm, cfg(Stage::Zero2, 5, Some(&dir), true), (8, 8))?;
                let l = t.layout.clone();
                let (got_m, got_v) = t.adam.moments();
                let want = |k: usize| -> Vec<f32> {
                    let part = &whole[k * p..(k + 1) * p];
                    l.mine.clone().map(|i| part.get(i).copied().unwrap_or(0.0)).collect()
                };
                let values: Vec<f32> = (0..l.padded).map(|i| whole.get(i).copied().filter(|_| i < p).unwrap_or(0.0)).collect();
                let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()) && a.len() == b.len();
                let what = format!("saved at {n}, loaded at {m}, rank {}", comm.rank());
                if !same(t.flat.values(), &values) { return Err(format!("{what}: parameters differ")); }
                if !same(&got_m, &want(1)) { return Err(format!("{what}: Adam's m differs")); }
                if !same(&got_v, &want(2)) { return Err(format!("{what}: Adam's v differs")); }
                if t.steps != 3 || t.adam.steps() != 3 { return Err(format!("{what}: at step {}", t.steps)); }
                // And it trains on: 2 more steps, every rank the same parameters.
                let mut go = Trainer::new(&comm, cfg(Stage::Zero2, 5, Some(&dir), true), (8, 8))?;
                go.cfg.common.checkpoint = None; // keep the checkpoint at N for the next M
                let (losses, _) = go.fit(&train);
                ch06::flat::check_identical(&comm, &go.flat.params, "after the resharded steps")?;
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
fn bad_checkpoints_are_refused_before_any_communication() {
    let base = std::env::temp_dir().join(format!("ch08-refused-{}", std::process::id()));
    let (good, later) = (base.join("good"), base.join("later"));
    ckpt_common::save_with_the_lab(2, 2, &good, &[]);
    ckpt_common::save_with_the_lab(2, 3, &later, &[]);
    let mut owned: Vec<(Vec<String>, &str)> = vec![
        (vec!["--resume".into()], "--resume needs --checkpoint DIR"),
        (
            resume_args("cnn", &good),
            "manifest.ckpt: a checkpoint of model `mlp, P = 26122",
        ),
    ];
    for (dir, line) in ckpt_common::faulty_copies(&good, &later) {
        owned.push((resume_args("mlp", &dir), line));
    }
    ckpt_common::refused_at_2_and_3(&owned);
    ckpt_common::a_cut_save_leaves_the_last_checkpoint_whole(&good, &later, |d| {
        resume_args("mlp", d)
    });
    std::fs::remove_dir_all(&base).ok();
}
