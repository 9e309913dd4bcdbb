//! Given: the `zero` lab's program (its `main` is [`main`]; chapter 15's `supervise --zero`
//! runs the same program as its children). Sharded data parallelism: trains chapter 6's CNN
//! on the UCI digits with Adam at `--stage 0` (plain data parallelism), `1` (ZeRO-1), `2`
//! (ZeRO-2, the default) or `3` (ZeRO-3: `ch08::lab3`), on NP ranks (default 4), and shows
//! what each rank holds and sends.
//!
//! Run: `make run CH=08 SOLUTION=1` (or `cargo run --release -p ch08-sharded --features
//! solution --bin zero -- --stage 1`; `-- --help` for the flags). Expect: a header (P, S,
//! the padding), one line per epoch (the train loss over all ranks, samples/s), the test accuracy
//! (about 90% or more after 3 epochs), the check that every rank ends with identical
//! parameters, then one table row per rank: bytes held (parameters, gradients, Adam's m
//! and v, measured from the trainer's buffers) against the stage's formula, and bytes
//! sent in one step (counted by the harness's PMPI wrappers) against 2P(N-1)/N x 4.
//! With `--device cuda` (every stage), a last line: the host staging bytes against
//! their formula (`ch08::staged`).

use crate::config::{Collectives, Config};
use crate::memory::{self, Stage};
use crate::train::Trainer;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use trainer_kit::entry::Report;

/// The `zero` program: its flags, then the run on every rank, one exit status.
pub fn main() -> ! {
    // Bad flags: one line, before MPI even starts (no rank has communicated yet).
    let cfg: Config = trainer_kit::cli::from_command_line();
    trainer_kit::entry::run_and_exit("zero", Report::Alike, |world| run(world, cfg))
}

fn run(world: &SimpleCommunicator, mut cfg: Config) -> Result<(), String> {
    // Chapter 3's ring is the learner's ex 3.1 + 3.2: without them, MPI's collectives.
    let ring = || {
        drop(ch03::allreduce_ring(
            world,
            &[1.0f32; 3],
            ch03::ops::Op::Sum,
        ))
    };
    let mpi = "running on MPI's own collectives instead (--collectives mpi)";
    if cfg.collectives == Collectives::Ring
        && !toolkit::gate::done_or_instead(world, "zero", mpi, ring)
    {
        cfg.collectives = Collectives::Mpi;
    }
    let split = ch06::data::digits()?;
    let place = trainer_kit::place::place(world, cfg.common.device, cfg.common.threads);
    if cfg.stage == Stage::Zero3 {
        let data = (&split.train, &split.test);
        return crate::lab3::run(world, &cfg, data, place.threads, place.device);
    }
    let size = split.train.image_size();
    let new = || Trainer::new_on(world, cfg.clone(), size, place.device);
    let mut t = match toolkit::gate::unless_todo(world, new) {
        Ok(made) => made?,
        Err(task) => toolkit::gate::stop_unfinished(world, "zero", &task),
    };
    let (root, n) = (world.rank() == 0, world.size() as usize);
    let l = t.layout.clone();
    ch06::flat::check_identical(world, &t.flat.params, "at the start")?;
    if root {
        println!(
            "zero: stage {} ({}) on {n} ranks, model {}: P = {} parameters, S = {} per rank, \
             padding {} (N*S = {})",
            cfg.stage.number(),
            cfg.stage.name(),
            cfg.model.name(),
            l.params,
            l.shard,
            l.padding(),
            l.padded
        );
        let how = match cfg.collectives {
            Collectives::Ring => "ring (chapter 3's halves, their messages counted)",
            Collectives::Mpi => "mpi (MPI's own collectives)",
        };
        println!(
            "collectives {how}; global batch {} ({} per rank), Adam lr {}, {} per rank",
            cfg.common.batch,
            cfg.common.batch / n,
            cfg.common.lr,
            toolkit::report::counted(place.threads, "thread")
        );
        if cfg.stage != Stage::Replicated {
            for r in 0..n {
                println!("rank {r}'s shard: {}", t.shard_text(r)?);
            }
        }
        println!("start: parameters identical on every rank (the same seed; fingerprints agree)");
    }
    if root && cfg.common.resume {
        println!(
            "resumed at step {} (a checkpoint saved at any number of ranks; each rank read its shard)",
            t.steps
        );
    }
    let (losses, sent) = t.fit(&split.train);
    if let Some(why) = t.ckpt_error.take() {
        return Err(why);
    }
    for (e, (loss, (secs, samples))) in losses.iter().zip(&t.epoch_time).enumerate() {
        if root && !cfg.common.quiet {
            let rate = *samples as f64 / secs;
            println!(
                "epoch {:2}: train loss {loss:.4}, {rate:.0} samples/s",
                e + 1
            );
        }
    }
    if cfg.profile {
        profile(world, &t);
    }
    ch06::flat::check_identical(world, &t.flat.params, "after training")?;
    if let (Some(dir), true) = (&cfg.common.checkpoint, root) {
        let fp = ch06::flat::fingerprint(&t.flat.params);
        println!(
            "checkpoint: step {} in {} (parameters' fingerprint {fp:016x})",
            t.steps,
            dir.display()
        );
    }
    let acc = t.accuracy(&split.test);
    if root {
        println!(
            "after {} steps: test accuracy {acc:.1}%; parameters identical on every rank",
            t.steps
        );
    }
    // The first step's messages on the ring, as the ranks sent them (stages 1 and 2).
    if cfg.collectives == Collectives::Ring && cfg.stage != Stage::Replicated && n > 1 {
        let title = format!("One {} step on the ring", cfg.stage.name());
        let file = format!("ch08/zero-step-{}.svg", cfg.stage.number());
        crate::figure::draw(world, &t.first_step, &title, &file);
    }
    // Every rank's measured figures to rank 0: held by kind, and sent in the first step.
    let formula = memory::formula(cfg.stage, l.params, n);
    let sent_formula = memory::sent_formula(l.params, n);
    let mpi = cfg.collectives == Collectives::Mpi;
    let Some(rows) = memory::gather_rows(world, t.held(), sent, formula, sent_formula, mpi) else {
        return Ok(());
    };
    println!(
        "bytes per rank after the last step ({}: {}, P = {}, N = {n}; sent formula \
         2P(N-1)/N x 4):",
        cfg.stage.name(),
        cfg.stage.formula_text(),
        l.params
    );
    println!("{}", toolkit::report::table(&rows));
    if let Some(dev) = &t.on_device {
        let bytes = dev.staging.bytes();
        let formula = crate::staged::staging_formula(cfg.stage, l.padded, l.shard);
        println!(
            "on {:?}: the table's bytes (parameters, gradient, Adam m+v); staging on the host \
             (rank 0): {bytes} B, formula {} = {formula} B {}",
            dev.device,
            if cfg.stage == Stage::Replicated {
                "4NS"
            } else {
                "4(2NS + S)"
            },
            if bytes == formula {
                "exactly"
            } else {
                "NOT equal"
            }
        );
    }
    let padded = memory::formula(cfg.stage, l.padded, n);
    let exact = rows.iter().all(|r| r.held as f64 == padded);
    println!(
        "held = the formula at N*S = {} (P plus the padding) {}: held - formula is the padding",
        l.padded,
        if exact {
            "exactly, on every rank"
        } else {
            "NOT on every rank"
        }
    );
    Ok(())
}

/// `--profile`: each rank's mean step and the part of it inside the step's collectives.
fn profile(world: &SimpleCommunicator, t: &Trainer) {
    let steps = t.steps.max(1) as f64;
    let mine = [t.step_secs / steps * 1e3, t.collective_secs / steps * 1e3];
    let mut all = vec![0.0f64; 2 * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    if world.rank() == 0 {
        for (r, x) in all.chunks(2).enumerate() {
            println!(
                "profile: rank {r}: step {:.2} ms, in its collectives {:.2} ms ({:.0}%), over {} steps",
                x[0], x[1], 100.0 * x[1] / x[0], t.steps
            );
        }
    }
}
