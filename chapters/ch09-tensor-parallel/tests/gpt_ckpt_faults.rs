//! Checks of the GPT's checkpoints when something went wrong, in f64 at 1 x 2: a missing
//! manifest or part, a part with a flipped byte, cut in half or from another save, and a
//! checkpoint of another model are refused in one line (naming the file and what to do)
//! before any communication, the same line on every rank; a save cut short (its part on
//! disk, its manifest never renamed) leaves the last checkpoint whole, and the next save
//! leaves only its own files.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_ckpt_faults::`.

use crate::gpt_ckpt_common::{shared_dir, trainer};
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::GptConfig;
use ch09::gpt_ckpt::{model_name, save};
use ch09::gpt_ckpt_read::{open, open_for};
use ch09::grid::{Grid, Layout};
use mpi::traits::*;
use std::path::{Path, PathBuf};
use tch::Kind;
use toolkit::{mpi_test, tally};

/// A copy of the checkpoint `from` as `name` beside it, changed by `change`.
fn planted(from: &Path, name: &str, change: &dyn Fn(&Path)) -> PathBuf {
    let to = from.with_file_name(name);
    std::fs::create_dir_all(&to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
    change(&to);
    to
}

/// Copies of `good` (saved at step 2) with one fault each (made where `make`), and the
/// line each is refused with; `later` was saved at step 3.
fn faulty_copies(good: &Path, later: &Path, make: bool) -> Vec<(PathBuf, String)> {
    let planted = |name: &str, change: &dyn Fn(&Path)| match make {
        true => planted(good, name, change),
        false => good.with_file_name(name),
    };
    let part = |d: &Path| d.join("part-0-of-1-step-2.ckpt");
    let edit = |d: &Path, f: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = std::fs::read(part(d)).unwrap();
        f(&mut bytes);
        std::fs::write(part(d), bytes).unwrap();
    };
    let shown = |d: &Path, file: &str| format!("{}: ", d.join(file).display());
    let fix = "restore the folder from a copy, or start again without --resume";
    let cases: Vec<(PathBuf, &str, String)> = vec![
        (
            planted("no-manifest", &|d| {
                std::fs::remove_file(d.join("manifest.ckpt")).unwrap()
            }),
            "manifest.ckpt",
            "missing: not a checkpoint, or its first save did not finish: start without --resume"
                .into(),
        ),
        (
            planted("no-part", &|d| std::fs::remove_file(part(d)).unwrap()),
            "part-0-of-1-step-2.ckpt",
            format!("missing, though the manifest lists it: {fix}"),
        ),
        (
            planted("flipped", &|d| edit(d, &|b| b[100] ^= 1)),
            "part-0-of-1-step-2.ckpt",
            format!("corrupt: checksum mismatch: {fix}"),
        ),
        (
            planted("cut", &|d| edit(d, &|b| b.truncate(b.len() / 2))),
            "part-0-of-1-step-2.ckpt",
            "truncated: ".into(),
        ),
        (
            planted("swapped", &|d| {
                std::fs::copy(later.join("part-0-of-1-step-3.ckpt"), part(d)).unwrap();
            }),
            "part-0-of-1-step-2.ckpt",
            format!("not the part the manifest lists (step 2): from another save? {fix}"),
        ),
    ];
    cases
        .into_iter()
        .map(|(d, file, why)| {
            let line = shown(&d, file) + &why;
            (d, line)
        })
        .collect()
}

mpi_test! {
    fn bad_gpt_checkpoints_are_refused_and_a_cut_save_leaves_the_last_whole(world at &[2]) {
        let corpus = Corpus::book(&repository_root())?;
        let base = shared_dir(world, "refused");
        let (good, later) = (base.join("good"), base.join("later"));
        let grid = Grid::new(world, Layout::new(1, 2, 2)?);
        let mut tr = trainer(&grid, corpus.vocab(), 11)?;
        for step in 1..=3 {
            tr.step(&corpus, 5, step);
            if step >= 2 {
                save(world, &tr, if step == 2 { &good } else { &later }, step)?;
            }
        }
        let cases = faulty_copies(&good, &later, world.rank() == 0);
        world.barrier();
        let model = model_name(&tr.cfg, Kind::Double);
        let other = model_name(&GptConfig { layers: 3, ..tr.cfg }, Kind::Double);
        tally::start();
        let mut got = vec![];
        for (dir, line) in &cases {
            got.push((open(dir, &model).err(), line.clone()));
        }
        got.push((open(&good, &other).err(), format!("{}: a checkpoint of model `{model}`, but this is model `{other}`: resume with the model's flags it was saved with", good.join("manifest.ckpt").display())));
        let calls = tally::stop();
        for (e, line) in got {
            match e {
                Some(e) if e.starts_with(&line) && !e.contains('\n') => {}
                e => return Err(format!("rank {}: {e:?}; expected `{line}`", world.rank())),
            }
        }
        if !calls.is_empty() {
            return Err(format!("the refusals communicated first: {calls:?}"));
        }
        // A save cut short: step 3's part is on disk beside good's, its manifest never renamed.
        let cut = base.join("cut-save");
        if world.rank() == 0 {
            planted(&good, "cut-save", &|d| {
                std::fs::copy(later.join("part-0-of-1-step-3.ckpt"), d.join("part-0-of-1-step-3.ckpt")).unwrap();
                let half = std::fs::read(later.join("manifest.ckpt")).unwrap();
                std::fs::write(d.join("manifest.ckpt.tmp"), &half[..half.len() / 2]).unwrap();
            });
        }
        world.barrier();
        let mut again = trainer(&grid, corpus.vocab(), 12)?;
        let saved = open_for(&cut, &again)?;
        saved.install(&mut again)?;
        if saved.step != 2 {
            return Err(format!("beside a cut save, the checkpoint read is at step {}, not 2", saved.step));
        }
        again.step(&corpus, 5, 3);
        save(world, &again, &cut, 3)?;
        let mut left: Vec<String> = std::fs::read_dir(&cut).unwrap().map(|f| f.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        if left != ["manifest.ckpt", "part-0-of-1-step-3.ckpt"] {
            return Err(format!("after the next save, left in the folder: {left:?}"));
        }
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&base).ok();
        }
        Ok(())
    }
}
