//! Checks of the lab's sharded checkpoints: a resume at the same N continues bit for bit
//! (every parameter, every moment, the step count equal to a run that never stopped); a
//! checkpoint saved at N in {2, 3, 5} loads at M in {1, 4, 7} with every parameter and
//! moment as saved; bad checkpoints are refused in one line before any communication.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test sharded_ckpt`.

use ch06::model::ModelKind;
use ch08::config::{Collectives, Config};
use ch08::memory::Stage;
use ch08::train::Trainer;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::path::{Path, PathBuf};
use toolkit::mpi_test;
use trainer_kit::testing::check_refusals;

/// The MLP at `stage`, `steps` steps in all, saving into / resuming from `dir`, on MPI's
/// own collectives: these checks need this chapter's exercises only (chapter 3's ring is
/// checked in zero_lab.rs).
fn cfg(stage: Stage, steps: u64, dir: Option<&Path>, resume: bool) -> Config {
    let mut c = Config {
        stage,
        collectives: Collectives::Mpi,
        model: ModelKind::Mlp,
        max_steps: Some(steps),
        ..Config::default()
    };
    (c.common.quiet, c.common.batch, c.common.resume) = (true, 24, resume);
    c.common.checkpoint = dir.map(Path::to_path_buf);
    c
}

/// A fresh folder name, the same on every rank of `comm` (rank 0's process id).
fn shared_dir(comm: &SimpleCommunicator, what: &str) -> PathBuf {
    let mut pid = std::process::id();
    comm.process_at_rank(0).broadcast_into(&mut pid);
    std::env::temp_dir().join(format!("ch08-{what}-{pid}"))
}

/// Everything a trainer's state is: the flat parameters, its m and v, the step counts.
fn state(t: &Trainer) -> (Vec<u32>, Vec<u32>, Vec<u32>, u64, u64) {
    let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
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
            let names = ["parameters", "Adam's m", "Adam's v"];
            let parts = [(&a.0, &b.0), (&a.1, &b.1), (&a.2, &b.2)];
            for (name, (x, y)) in names.iter().zip(parts) {
                if let Some(i) = x.iter().zip(y).position(|(p, q)| p != q) {
                    return Err(format!(
                        "{} at {} ranks, rank {}: 3 steps, save, resume, 2 more differs from 5 \
                         straight in {name} at element {i}: {} vs {}", stage.name(), world.size(),
                        world.rank(), f32::from_bits(y[i]), f32::from_bits(x[i])));
                }
            }
            if (a.3, a.4) != (b.3, b.4) {
                return Err(format!("steps {:?} vs {:?}", (b.3, b.4), (a.3, a.4)));
            }
        }
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&dir).ok();
        }
        Ok(())
    }
}

/// The first `n` ranks of `world` as a communicator (None on the others).
fn first(world: &SimpleCommunicator, n: usize) -> Option<SimpleCommunicator> {
    let color = match (world.rank() as usize) < n {
        true => Color::with_value(0),
        false => Color::undefined(),
    };
    world.split_by_color(color)
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
            world.barrier();
            if world.rank() == 0 {
                std::fs::remove_dir_all(&dir).ok();
            }
        }
        Ok(())
    }
}

/// Runs the lab (`NP` ranks, re-launched under mpirun) on the MLP for `steps` steps,
/// saving into `dir`.
fn save_with_the_lab(np: usize, steps: u64, dir: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zero"))
        .args([
            "--model",
            "mlp",
            "--collectives",
            "mpi",
            "--quiet",
            "--max-steps",
            &steps.to_string(),
        ])
        .arg("--checkpoint")
        .arg(dir)
        .env("NP", np.to_string())
        .output()
        .expect("the lab runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A copy of the checkpoint `from` as `name`, changed by `change`.
fn planted(from: &Path, name: &str, change: impl Fn(&Path)) -> PathBuf {
    let to = from.with_file_name(name);
    std::fs::create_dir_all(&to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
    change(&to);
    to
}

#[test]
fn bad_checkpoints_are_refused_before_any_communication() {
    let base = std::env::temp_dir().join(format!("ch08-refused-{}", std::process::id()));
    let (good, later) = (base.join("good"), base.join("later"));
    save_with_the_lab(2, 2, &good);
    save_with_the_lab(2, 3, &later);
    // `good` was saved at step 2, `later` at step 3.
    let shard = |d: &Path, q: usize, step: u64| d.join(format!("shard-{q}-of-2-step-{step}.ckpt"));
    let edit = |d: &Path, q: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = std::fs::read(shard(d, q, 2)).unwrap();
        f(&mut bytes);
        std::fs::write(shard(d, q, 2), bytes).unwrap();
    };
    let dirs = [
        planted(&good, "no-manifest", |d| {
            std::fs::remove_file(d.join("manifest.ckpt")).unwrap()
        }),
        planted(&good, "flipped", |d| edit(d, 1, &|b| b[100] ^= 1)),
        planted(&good, "cut", |d| edit(d, 0, &|b| b.truncate(b.len() / 2))),
        planted(&good, "lost", |d| {
            std::fs::remove_file(shard(d, 1, 2)).unwrap()
        }),
        planted(&good, "mixed", |d| {
            std::fs::copy(shard(&later, 1, 3), shard(d, 1, 2)).unwrap();
        }),
    ];
    let [none, flipped, cut, lost, mixed] = &dirs;
    let resume = |model: &str, d: &Path| -> Vec<String> {
        let d = d.display().to_string();
        ["--model", model, "--resume", "--checkpoint", &d]
            .map(String::from)
            .to_vec()
    };
    let owned: Vec<(Vec<String>, &str)> = vec![
        (vec!["--resume".into()], "--resume needs --checkpoint DIR"),
        (
            resume("cnn", &good),
            "manifest.ckpt: a checkpoint of model `mlp, P = 26122",
        ),
        (
            resume("mlp", none),
            "manifest.ckpt: missing: not a checkpoint, or its save did not finish",
        ),
        (
            resume("mlp", flipped),
            "shard-1-of-2-step-2.ckpt: corrupt: checksum mismatch",
        ),
        (resume("mlp", cut), "shard-0-of-2-step-2.ckpt: truncated: "),
        (
            resume("mlp", lost),
            "shard-1-of-2-step-2.ckpt: missing (the manifest lists 2 shards)",
        ),
        (
            resume("mlp", mixed),
            "shard-1-of-2-step-2.ckpt: not the shard the manifest lists (step 2): from another save?",
        ),
    ];
    let args: Vec<Vec<&str>> = owned
        .iter()
        .map(|(a, _)| a.iter().map(String::as_str).collect())
        .collect();
    let cases: Vec<(&[&str], &str)> = args
        .iter()
        .zip(&owned)
        .map(|(a, (_, m))| (&a[..], *m))
        .collect();
    // The same verdict at any N: every rank reads every file before MPI starts.
    for np in [2, 3] {
        check_refusals(env!("CARGO_BIN_EXE_zero"), "zero", np, &cases);
    }
    // A save cut short before its manifest: its shards (step 3) lie beside the last
    // checkpoint's (step 2), which still resumes, and the next save clears them away.
    let cut_save = planted(&good, "cut-save", |d| {
        for q in 0..2 {
            std::fs::copy(shard(&later, q, 3), shard(d, q, 3)).unwrap();
        }
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zero"))
        .args(resume("mlp", &cut_save))
        .args(["--collectives", "mpi", "--max-steps", "4", "--every", "4"])
        .env("NP", "2")
        .output()
        .expect("the lab runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("resumed at step 2"),
        "the checkpoint beside a cut save did not resume:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut left: Vec<String> = std::fs::read_dir(&cut_save)
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let want = [
        "manifest.ckpt",
        "shard-0-of-2-step-4.ckpt",
        "shard-1-of-2-step-4.ckpt",
    ];
    assert_eq!(
        left, want,
        "after the next save, only its own files are left"
    );
    std::fs::remove_dir_all(&base).ok();
}
