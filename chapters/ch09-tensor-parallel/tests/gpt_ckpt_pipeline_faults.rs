//! Checks of the pipelined GPT's checkpoints when something went wrong, in f64 at 1x1x2
//! (dp x tp x pp, a part per stage): the last stage's part missing, with a flipped byte,
//! cut in half or from another save is refused in one line (naming the file and what to
//! do) before any communication, the same line on every rank; a save cut short (both
//! stages' parts on disk, the manifest never renamed) leaves the last checkpoint whole,
//! and the next save leaves only its own files.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_ckpt_pipeline_faults::`.

use crate::gpt_ckpt_common::{pipe_trainer, shared_dir};
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt_ckpt::{model_name, save};
use ch09::gpt_ckpt_read::{open, open_for};
use ch09::grid::{Grid, Layout};
use mpi::traits::*;
use std::path::Path;
use tch::Kind;
use toolkit::lockstep::agree;
use toolkit::{mpi_test, tally};

/// A copy of the checkpoint `from` into `to`, then changed by `change`.
fn planted(from: &Path, to: &Path, change: &dyn Fn(&Path)) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
    change(to);
}

/// The names of the files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let all = std::fs::read_dir(dir).unwrap();
    let mut names: Vec<String> = all
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

mpi_test! {
    fn bad_pipelined_checkpoints_are_refused_and_a_cut_save_leaves_the_last_whole(world at &[2]) {
        let corpus = Corpus::book(&repository_root())?;
        let base = shared_dir(world, "pipe-refused");
        let (good, later) = (base.join("good"), base.join("later"));
        let grid = Grid::new(world, Layout::staged(1, 1, 2, 2, 2)?);
        let mut tr = pipe_trainer(&grid, corpus.vocab(), 11, 2)?;
        for step in 1..=3 {
            tr.step(&corpus, 5, step);
            if step >= 2 {
                save(world, &tr, if step == 2 { &good } else { &later }, step)?;
            }
        }
        let want = ["manifest.ckpt", "part-0-of-2-step-2.ckpt", "part-1-of-2-step-2.ckpt"];
        if files(&good) != want {
            return Err(format!("a save at 1x1x2 wrote {:?}, not {want:?}", files(&good))); // the same files on every rank
        }
        let part = "part-1-of-2-step-2.ckpt"; // the last stage's
        let fix = "restore the folder from a copy, or start again without --resume";
        let edit = |d: &Path, f: &dyn Fn(&mut Vec<u8>)| {
            let mut bytes = std::fs::read(d.join(part)).unwrap();
            f(&mut bytes);
            std::fs::write(d.join(part), bytes).unwrap();
        };
        type Change<'a> = Box<dyn Fn(&Path) + 'a>;
        let cases: Vec<(&str, Change, String)> = vec![
            ("lost", Box::new(|d| std::fs::remove_file(d.join(part)).unwrap()),
             format!("missing, though the manifest lists it: {fix}")),
            ("flipped", Box::new(|d| edit(d, &|b| b[100] ^= 1)), format!("corrupt: checksum mismatch: {fix}")),
            ("cut", Box::new(|d| edit(d, &|b| b.truncate(b.len() / 2))), "truncated: ".into()),
            ("swapped", Box::new(|d| {
                std::fs::copy(later.join("part-1-of-2-step-3.ckpt"), d.join(part)).unwrap();
            }), format!("not the part the manifest lists (step 2): from another save? {fix}")),
        ];
        if world.rank() == 0 {
            for (name, change, _) in &cases {
                planted(&good, &base.join(name), change.as_ref());
            }
        }
        world.barrier();
        let model = model_name(&tr.cfg, Kind::Double);
        tally::start();
        let got: Vec<_> = cases.iter().map(|(name, ..)| open(&base.join(name), &model).err()).collect();
        let calls = tally::stop();
        let refused = |got: Vec<Option<String>>| {
            for ((name, _, why), e) in cases.iter().zip(got) {
                let line = format!("{}: {why}", base.join(name).join(part).display());
                match e {
                    Some(e) if e.starts_with(&line) && !e.contains('\n') => {}
                    e => return Err(format!("{e:?}; expected `{line}`")),
                }
            }
            match calls.is_empty() {
                true => Ok(()),
                false => Err(format!("the refusals communicated first: {calls:?}")),
            }
        };
        agree(world, refused(got))?;
        // A save cut short: step 3's two parts beside good's, its manifest never renamed.
        let cut = base.join("cut-save");
        if world.rank() == 0 {
            planted(&good, &cut, &|d| {
                for p in 0..2 {
                    let name = format!("part-{p}-of-2-step-3.ckpt");
                    std::fs::copy(later.join(&name), d.join(&name)).unwrap();
                }
                let half = std::fs::read(later.join("manifest.ckpt")).unwrap();
                std::fs::write(d.join("manifest.ckpt.tmp"), &half[..half.len() / 2]).unwrap();
            });
        }
        world.barrier();
        let mut again = pipe_trainer(&grid, corpus.vocab(), 12, 2)?;
        let saved = open_for(&cut, &again)?;
        agree(world, saved.install(&mut again))?;
        if saved.step != 2 {
            return Err(format!("beside a cut save, the checkpoint read is at step {}, not 2", saved.step)); // on every rank
        }
        again.step(&corpus, 5, 3);
        save(world, &again, &cut, 3)?;
        let left = files(&cut);
        if left != ["manifest.ckpt", "part-0-of-2-step-3.ckpt", "part-1-of-2-step-3.ckpt"] {
            return Err(format!("after the next save, left in the folder: {left:?}"));
        }
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&base).ok();
        }
        Ok(())
    }
}
