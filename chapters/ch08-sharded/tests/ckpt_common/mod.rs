//! Shared setup of the checkpoint checks (tests/sharded_ckpt.rs for stages 0 to 2,
//! tests/zero3_ckpt.rs for stage 3): the lab's settings, folders every rank agrees on, a
//! communicator of the first ranks, the lab run to save, planted copies of a checkpoint,
//! and the comparison of two states bit for bit.
//!
//! Not a test itself; `mod ckpt_common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

use ch06::model::ModelKind;
use ch08::config::{Collectives, Config};
use ch08::memory::Stage;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::path::{Path, PathBuf};

/// The MLP at `stage`, `steps` steps in all, saving into / resuming from `dir`, on MPI's
/// own collectives: these checks need this chapter's exercises only (chapter 3's ring is
/// checked in zero_lab.rs).
pub fn cfg(stage: Stage, steps: u64, dir: Option<&Path>, resume: bool) -> Config {
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
pub fn shared_dir(comm: &SimpleCommunicator, what: &str) -> PathBuf {
    let mut pid = std::process::id();
    comm.process_at_rank(0).broadcast_into(&mut pid);
    std::env::temp_dir().join(format!("ch08-{what}-{pid}"))
}

/// Removes `dir` (made by [`shared_dir`]) once every rank of `comm` is done with it.
pub fn remove_shared(comm: &SimpleCommunicator, dir: &Path) {
    comm.barrier();
    if comm.rank() == 0 {
        std::fs::remove_dir_all(dir).ok();
    }
}

/// The first `n` ranks of `world` as a communicator (None on the others).
pub fn first(world: &SimpleCommunicator, n: usize) -> Option<SimpleCommunicator> {
    let color = match (world.rank() as usize) < n {
        true => Color::with_value(0),
        false => Color::undefined(),
    };
    world.split_by_color(color)
}

/// Runs the lab (`NP` ranks, re-launched under mpirun) on the MLP for `steps` steps with
/// `more` flags, saving into `dir`.
pub fn save_with_the_lab(np: usize, steps: u64, dir: &Path, more: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zero"))
        .args(["--model", "mlp", "--collectives", "mpi", "--quiet"])
        .args(["--max-steps", &steps.to_string()])
        .args(more)
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
pub fn planted(from: &Path, name: &str, change: impl Fn(&Path)) -> PathBuf {
    let to = from.with_file_name(name);
    std::fs::create_dir_all(&to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
    change(&to);
    to
}

/// The lab's flags that resume `model` from `dir`.
pub fn resume_args(model: &str, dir: &Path) -> Vec<String> {
    let d = dir.display().to_string();
    ["--model", model, "--resume", "--checkpoint", &d]
        .map(String::from)
        .to_vec()
}

/// The bits of `x`.
pub fn bits(x: &[f32]) -> Vec<u32> {
    x.iter().map(|f| f.to_bits()).collect()
}

/// The first difference of two states (parameters, m, v as bits), named: `what` says
/// which runs.
pub fn same_state(what: &str, a: [&[u32]; 3], b: [&[u32]; 3]) -> Result<(), String> {
    let names = ["parameters", "Adam's m", "Adam's v"];
    for (name, (x, y)) in names.iter().zip(a.iter().zip(b)) {
        if x.len() != y.len() {
            return Err(format!(
                "{what}: {name} of {} vs {} elements",
                y.len(),
                x.len()
            ));
        }
        if let Some(i) = x.iter().zip(y).position(|(p, q)| p != q) {
            return Err(format!(
                "{what} in {name} at element {i}: {} vs {}",
                f32::from_bits(y[i]),
                f32::from_bits(x[i])
            ));
        }
    }
    Ok(())
}

/// The files left in `dir`, sorted.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    left
}

/// Rank `q`'s file of a checkpoint saved by 2 ranks at `step` in `d`.
pub fn shard2(d: &Path, q: usize, step: u64) -> PathBuf {
    d.join(format!("shard-{q}-of-2-step-{step}.ckpt"))
}

/// Copies of `good` (saved by 2 ranks at step 2) with one fault each, and the line each
/// is refused with: no manifest, a flipped byte in shard 1, shard 0 cut in half, shard 1
/// lost, shard 1 from `later` (another save of 2 ranks, at step 3).
pub fn faulty_copies(good: &Path, later: &Path) -> Vec<(PathBuf, &'static str)> {
    let edit = |d: &Path, q: usize, f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = std::fs::read(shard2(d, q, 2)).unwrap();
        f(&mut bytes);
        std::fs::write(shard2(d, q, 2), bytes).unwrap();
    };
    let remove = |f: PathBuf| std::fs::remove_file(f).unwrap();
    vec![
        (
            planted(good, "no-manifest", |d| remove(d.join("manifest.ckpt"))),
            "manifest.ckpt: missing: not a checkpoint, or its save did not finish",
        ),
        (
            planted(good, "flipped", |d| edit(d, 1, &|b| b[100] ^= 1)),
            "shard-1-of-2-step-2.ckpt: corrupt: checksum mismatch",
        ),
        (
            planted(good, "cut", |d| edit(d, 0, &|b| b.truncate(b.len() / 2))),
            "shard-0-of-2-step-2.ckpt: truncated: ",
        ),
        (
            planted(good, "lost", |d| remove(shard2(d, 1, 2))),
            "shard-1-of-2-step-2.ckpt: missing (the manifest lists 2 shards)",
        ),
        (
            planted(good, "mixed", |d| {
                std::fs::copy(shard2(later, 1, 3), shard2(d, 1, 2)).unwrap();
            }),
            "shard-1-of-2-step-2.ckpt: not the shard the manifest lists (step 2): from another save?",
        ),
    ]
}

/// Each (flags, line): the lab started with the flags is refused with the line, at 2 and
/// 3 ranks (the same verdict at any N: every rank reads every file before MPI starts).
pub fn refused_at_2_and_3(owned: &[(Vec<String>, &str)]) {
    let args: Vec<Vec<&str>> = owned
        .iter()
        .map(|(a, _)| a.iter().map(String::as_str).collect())
        .collect();
    let cases: Vec<(&[&str], &str)> = args
        .iter()
        .zip(owned)
        .map(|(a, (_, m))| (&a[..], *m))
        .collect();
    for np in [2, 3] {
        trainer_kit::testing::check_refusals(env!("CARGO_BIN_EXE_zero"), "zero", np, &cases);
    }
}

/// A save cut short before its manifest: the shards of `later` (step 3) beside those of
/// `good` (step 2). The lab started with `resume` (flags that resume the copy, given its
/// folder) resumes at step 2, and its next save leaves only its own files.
pub fn a_cut_save_leaves_the_last_checkpoint_whole(
    good: &Path,
    later: &Path,
    resume: impl Fn(&Path) -> Vec<String>,
) {
    let cut_save = planted(good, "cut-save", |d| {
        for q in 0..2 {
            std::fs::copy(shard2(later, q, 3), shard2(d, q, 3)).unwrap();
        }
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zero"))
        .args(resume(&cut_save))
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
    let want = [
        "manifest.ckpt",
        "shard-0-of-2-step-4.ckpt",
        "shard-1-of-2-step-4.ckpt",
    ];
    assert_eq!(
        files_in(&cut_save),
        want,
        "after the next save, only its own files are left"
    );
}
