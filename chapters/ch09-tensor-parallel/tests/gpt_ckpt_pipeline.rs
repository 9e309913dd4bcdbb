//! Checks of the pipelined GPT's checkpoints (`ch09::gpt_ckpt` on a `PipeTrainer`: a part
//! per stage), in f64, 2 blocks: at 1x1x2 and 1x2x2 (dp x tp x pp, 2 micro-batches), 2
//! steps + save + resume + 2 steps equals 4 steps straight bit for bit on every stage
//! (every tensor, Adam's m and v and its step count); a checkpoint saved at 1x1x2 loads
//! at 1x1x1 and 1x2x1, and one saved at 2x2x1 loads at 1x1x2, every rank's tensors
//! exactly the saved ones (or their slices) and the next step's loss within
//! `compare::gpt_bound` of the saver's. The refusals and a save cut short at 1x1x2:
//! tests/gpt_ckpt_pipeline_faults.rs.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_ckpt_pipeline::`.

use crate::gpt_ckpt_common;

use crate::gpt_ckpt_common::{bits, first, pipe_trainer, same_state, shared_dir, trainer, GLOBAL};
use ch09::compare::gpt_bound;
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt_ckpt::save;
use ch09::gpt_ckpt_read::open_for;
use ch09::gpt_ckpt_state::Checkpointed;
use ch09::gpt_cut::slice_of;
use ch09::grid::{Grid, Layout};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use tch::Tensor;
use toolkit::lockstep::agree;
use toolkit::mpi_test;

/// Every tensor `got` holds (parameters, m, v) against `rank`'s slice (of `tp`) of the
/// tensor of the same name in `whole` (a 1x1x1 trainer), bit for bit; and Adam's step.
fn slices_of_whole(
    at: &str,
    got: &impl Checkpointed,
    whole: &impl Checkpointed,
) -> Result<(), String> {
    let (tp, rank, c) = (got.tp().size(), got.tp().rank(), *got.cfg());
    let (og, ow) = (got.optimizer(), whole.optimizer());
    let wholes = whole.named();
    for (i, (name, p)) in got.named().into_iter().enumerate() {
        let j = wholes.iter().position(|(n, _)| *n == name);
        let j = j.ok_or(format!("{at}: {name} is not the model's"))?;
        let want = [wholes[j].1, &ow.m[j], &ow.v[j]].map(|x| slice_of(&name, x, &c, tp, rank));
        for (k, (x, y)) in [p, &og.m[i], &og.v[i]].iter().zip(want).enumerate() {
            if bits(x) != bits(&y?) {
                let what = ["the values", "Adam's m", "Adam's v"][k];
                return Err(format!("{at}: {what} of {name} is not the saved tensor's"));
            }
        }
    }
    match og.t == ow.t {
        true => Ok(()),
        false => Err(format!("{at}: Adam at step {} vs {}", og.t, ow.t)),
    }
}

/// A communicator of this rank alone (each rank then loads the whole model at 1x1x1).
fn whole_on_each_rank(world: &SimpleCommunicator) -> SimpleCommunicator {
    let alone = world.split_by_color(Color::with_value(world.rank()));
    alone.expect("a color")
}

/// `got` (the global batch's loss of step 3) within the bound of `want`'s.
fn close(at: &str, got: f64, want: f64, vocab: usize) -> Result<(), String> {
    let c = gpt_ckpt_common::cfg(vocab, 1);
    let longest = c.block.ffn.max(vocab).max(GLOBAL * c.block.seq);
    let bound = gpt_bound(&Tensor::from(want), longest, c.layers);
    match (got - want).abs() <= bound {
        true => Ok(()),
        false => Err(format!(
            "{at}: step 3's loss {got} vs {want} (bound {bound:.1e})"
        )),
    }
}

/// The checkpoint in `dir` loaded at 1x1x2 on `two` ranks: every tensor of a stage the
/// loaded `whole` model's, and step 3's loss within the bound of `want`.
fn load_at_1x1x2(
    two: &SimpleCommunicator,
    corpus: &Corpus,
    dir: &std::path::Path,
    whole: &impl Checkpointed,
    want: f64,
) -> Result<(), String> {
    let g = Grid::new(two, Layout::staged(1, 1, 2, 2, 2)?);
    let mut staged = pipe_trainer(&g, corpus.vocab(), 12, 2)?;
    let saved = open_for(dir, &staged)?;
    agree(two, saved.install(&mut staged))?;
    let at = format!("saved at 2x2x1, loaded at 1x1x2, stage {}", g.me.pp);
    agree(two, slices_of_whole(&at, &staged, whole))?;
    let got = staged.step(corpus, 5, 3).loss;
    agree(two, close(&at, got, want, corpus.vocab()))
}

mpi_test! {
    fn a_resumed_pipelined_gpt_continues_bit_for_bit(world at &[2, 4]) {
        let corpus = Corpus::book(&repository_root())?;
        let ranks = world.size() as usize;
        let (dp, tp, pp) = match ranks { 2 => (1, 1, 2), _ => (1, 2, 2) };
        let grid = Grid::new(world, Layout::staged(dp, tp, pp, 2, ranks)?);
        let dir = shared_dir(world, &format!("pipe-resume-{dp}x{tp}x{pp}"));
        let mut straight = pipe_trainer(&grid, corpus.vocab(), 11, 2)?;
        let mut before = pipe_trainer(&grid, corpus.vocab(), 11, 2)?;
        for step in 1..=4 {
            straight.step(&corpus, 5, step);
        }
        for step in 1..=2 {
            before.step(&corpus, 5, step);
        }
        save(world, &before, &dir, 2)?;
        let mut resumed = pipe_trainer(&grid, corpus.vocab(), 12, 2)?; // other numbers, overwritten
        let saved = open_for(&dir, &resumed)?;
        agree(world, saved.install(&mut resumed))?; // a stage's verdict, every rank's
        if (saved.step, saved.parts.len()) != (2, pp) {
            return Err(format!("saved at step 2 in {pp} parts, read back: step {}, {:?}", saved.step, saved.parts));
        }
        for step in 3..=4 {
            resumed.step(&corpus, 5, step);
        }
        let me = grid.me;
        let what = format!("{dp}x{tp}x{pp}, rank ({}, {}, {}): 2 steps, save, resume, 2 more vs 4 straight", me.dp, me.tp, me.pp);
        agree(world, same_state(&what, &straight, &resumed))?;
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&dir).ok();
        }
        Ok(())
    }
}

mpi_test! {
    fn a_checkpoint_saved_at_1x1x2_loads_at_1x1x1_and_1x2x1(world at &[2]) {
        let corpus = Corpus::book(&repository_root())?;
        let vocab = corpus.vocab();
        let dir = shared_dir(world, "pipe-relayout");
        let grid = Grid::new(world, Layout::staged(1, 1, 2, 2, 2)?);
        let mut saver = pipe_trainer(&grid, vocab, 11, 1)?;
        for step in 1..=2 {
            saver.step(&corpus, 5, step);
        }
        save(world, &saver, &dir, 2)?;
        let alone = whole_on_each_rank(world);
        let one = Grid::new(&alone, Layout::new(1, 1, 1)?);
        let mut whole = trainer(&one, vocab, 12)?;
        open_for(&dir, &whole)?.install(&mut whole)?;
        // The stage's tensors are whole at tp 1: each must be the loaded model's.
        let at = format!("saved at 1x1x2, stage {}'s tensors vs 1x1x1's", grid.me.pp);
        agree(world, slices_of_whole(&at, &saver, &whole))?; // every rank's verdict: no rank left waiting
        let next = saver.step(&corpus, 5, 3);
        let want = saver.mean_over_replicas(next.loss);
        let got = whole.step(&corpus, 5, 3).loss;
        let at = format!("saved at 1x1x2, loaded at 1x1x1 on rank {}", world.rank());
        agree(world, close(&at, got, want, vocab))?;
        let grid = Grid::new(world, Layout::new(1, 2, 2)?);
        let mut wide = trainer(&grid, vocab, 12)?;
        agree(world, open_for(&dir, &wide)?.install(&mut wide))?;
        let mut whole = trainer(&one, vocab, 12)?;
        open_for(&dir, &whole)?.install(&mut whole)?;
        let at = format!("saved at 1x1x2, loaded at 1x2x1, rank {}", grid.me.tp);
        agree(world, slices_of_whole(&at, &wide, &whole))?;
        let got = wide.step(&corpus, 5, 3).loss;
        agree(world, close("saved at 1x1x2, loaded at 1x2x1", got, want, vocab))?;
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&dir).ok();
        }
        Ok(())
    }
}

mpi_test! {
    fn a_checkpoint_saved_at_2x2x1_loads_at_1x1x2(world at &[4]) {
        let corpus = Corpus::book(&repository_root())?;
        let vocab = corpus.vocab();
        let dir = shared_dir(world, "pipe-from-grid");
        let grid = Grid::new(world, Layout::new(2, 2, 4)?);
        let mut saver = trainer(&grid, vocab, 11)?;
        for step in 1..=2 {
            saver.step(&corpus, 5, step);
        }
        save(world, &saver, &dir, 2)?;
        let next = saver.step(&corpus, 5, 3);
        let want = saver.mean_over_replicas(next.loss);
        let alone = whole_on_each_rank(world);
        let one = Grid::new(&alone, Layout::new(1, 1, 1)?);
        let mut whole = trainer(&one, vocab, 12)?;
        open_for(&dir, &whole)?.install(&mut whole)?;
        let staged = match first(world, 2) {
            Some(two) => load_at_1x1x2(&two, &corpus, &dir, &whole, want),
            None => Ok(()),
        };
        agree(world, staged)?; // the other ranks do not wait for the two in vain
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&dir).ok();
        }
        Ok(())
    }
}
