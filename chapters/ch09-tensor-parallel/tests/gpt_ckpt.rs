//! Checks of the GPT's checkpoints (`ch09::gpt_ckpt`, `ch09::gpt_ckpt_read`), in f64: at
//! the layouts 1x1, 2x1, 1x2 and 2x2, 2 steps + save + resume + 2 steps equals 4 steps
//! straight bit for bit (every parameter, Adam's m and v and its step count); a checkpoint
//! saved at 2x2 loads at 1x1, 1x2, 1x3, 1x4 and 4x1 with every rank's slices exactly the
//! saved whole tensors' and the next step's loss within `compare::gpt_bound` of the run
//! that never stopped. Also: each tensor's cut is `GptParams::shard`'s. (The refusals and
//! a save cut short: tests/gpt_ckpt_faults.rs.)
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_ckpt::`.

use crate::gpt_ckpt_common::{bits, cfg, first, same_state, shared_dir, trainer, GLOBAL};
use ch09::compare::gpt_bound;
use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::GptParams;
use ch09::gpt_ckpt::save;
use ch09::gpt_ckpt_read::open_for;
use ch09::gpt_cut::slice_of;
use ch09::grid::{Grid, Layout};
use mpi::topology::Color;
use mpi::traits::*;
use tch::{Kind, Tensor};
use toolkit::mpi_test;

mpi_test! {
    fn a_resumed_gpt_continues_bit_for_bit(world at &[1, 2, 4]) {
        let corpus = Corpus::book(&repository_root())?;
        let ranks = world.size() as usize;
        let layouts: &[(usize, usize)] = match ranks { 1 => &[(1, 1)], 2 => &[(2, 1), (1, 2)], _ => &[(2, 2)] };
        for &(dp, tp) in layouts {
            let grid = Grid::new(world, Layout::new(dp, tp, ranks)?);
            let dir = shared_dir(world, &format!("resume-{dp}x{tp}"));
            let mut straight = trainer(&grid, corpus.vocab(), 11)?;
            let mut before = trainer(&grid, corpus.vocab(), 11)?;
            for step in 1..=4 {
                straight.step(&corpus, 5, step);
            }
            for step in 1..=2 {
                before.step(&corpus, 5, step);
            }
            save(world, &before, &dir, 2)?;
            let mut resumed = trainer(&grid, corpus.vocab(), 12)?; // other numbers, overwritten
            let saved = open_for(&dir, &resumed)?;
            saved.install(&mut resumed)?;
            if saved.step != 2 {
                return Err(format!("saved at step 2, read back at {}", saved.step));
            }
            for step in 3..=4 {
                resumed.step(&corpus, 5, step);
            }
            let what = format!("dp {dp} x tp {tp}, rank ({}, {}): 2 steps, save, resume, 2 more vs 4 straight", grid.me.dp, grid.me.tp);
            same_state(&what, &straight, &resumed)?;
            world.barrier();
            if world.rank() == 0 {
                std::fs::remove_dir_all(&dir).ok();
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn a_gpt_checkpoint_saved_at_2x2_loads_at_other_layouts(world at &[4]) {
        let corpus = Corpus::book(&repository_root())?;
        let vocab = corpus.vocab();
        let dir = shared_dir(world, "relayout");
        let grid = Grid::new(world, Layout::new(2, 2, 4)?);
        let mut saver = trainer(&grid, vocab, 11)?;
        for step in 1..=2 {
            saver.step(&corpus, 5, step);
        }
        save(world, &saver, &dir, 2)?;
        // Every rank alone (1x1): the whole model, whose shard at tp 2 is the saver's.
        let alone = world.split_by_color(Color::with_value(world.rank())).expect("a color");
        let one = Grid::new(&alone, Layout::new(1, 1, 1)?);
        let mut whole = trainer(&one, vocab, 12)?;
        open_for(&dir, &whole)?.install(&mut whole)?;
        let (c, me) = (cfg(vocab, 2), grid.me.tp);
        let want = whole.params.shard(&c, 2, me)?;
        for (i, ((name, got), (_, w))) in saver.params.named().into_iter().zip(want.named()).enumerate() {
            let m = slice_of(&name, &whole.opt.m[i], &c, 2, me)?;
            let v = slice_of(&name, &whole.opt.v[i], &c, 2, me)?;
            if bits(got) != bits(w) || bits(&saver.opt.m[i]) != bits(&m) || bits(&saver.opt.v[i]) != bits(&v) {
                return Err(format!("loaded at 1x1, rank {}: {name} (or its m, v) is not the 2x2 run's", world.rank()));
            }
        }
        let next = saver.step(&corpus, 5, 3);
        let want_loss = saver.mean_over_replicas(next.loss);
        let longest = c.block.ffn.max(vocab).max(GLOBAL * c.block.seq);
        for (dp, tp) in [(1, 1), (1, 2), (1, 3), (1, 4), (4, 1)] {
            let Some(comm) = first(world, dp * tp) else { continue };
            let g = Grid::new(&comm, Layout::new(dp, tp, dp * tp)?);
            let mut tr = trainer(&g, vocab, 12)?;
            let saved = open_for(&dir, &tr)?;
            saved.install(&mut tr)?;
            let at = format!("saved at 2x2, loaded at {dp}x{tp}, rank ({}, {})", g.me.dp, g.me.tp);
            let c = tr.cfg;
            for (i, (name, p)) in tr.params.named().into_iter().enumerate() {
                let wholes = whole.params.named();
                let w = wholes.iter().find(|(n, _)| *n == name).expect("the same names").1;
                let want = [w, &whole.opt.m[i], &whole.opt.v[i]].map(|x| slice_of(&name, x, &c, tp, g.me.tp));
                let got = [p, &tr.opt.m[i], &tr.opt.v[i]];
                for (k, (x, y)) in got.iter().zip(want).enumerate() {
                    if bits(x) != bits(&y?) {
                        return Err(format!("{at}: {} of {name} is not the saved tensor's slice", ["the values", "m", "v"][k]));
                    }
                }
            }
            let got = tr.step(&corpus, 5, 3);
            let got = tr.mean_over_replicas(got.loss);
            let bound = gpt_bound(&Tensor::from(want_loss), longest, c.layers);
            if (got - want_loss).abs() > bound {
                return Err(format!("{at}: step 3's loss {got} vs {want_loss} (bound {bound:.1e})"));
            }
        }
        world.barrier();
        if world.rank() == 0 {
            std::fs::remove_dir_all(&dir).ok();
        }
        Ok(())
    }
}

#[test]
fn the_cut_of_every_tensor_is_its_shard() {
    let c = cfg(53, 1);
    let whole = GptParams::whole(&c, Kind::Double, 3);
    for t in 1..=4 {
        for r in 0..t {
            let shard = whole.shard(&c, t, r).unwrap();
            for ((name, w), (_, s)) in whole.named().into_iter().zip(shard.named()) {
                let mine = slice_of(&name, w, &c, t, r).unwrap();
                assert_eq!(bits(&mine), bits(s), "{name} at rank {r} of {t}");
                assert_eq!(mine.size(), s.size(), "{name} at rank {r} of {t}");
            }
        }
    }
}
