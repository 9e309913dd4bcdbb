//! Lab: what a checkpoint costs training, saved synchronously and asynchronously (ex 15.1).
//! For each model size, three runs of the same training (Adam on chapter 15's sharded
//! model, a shard per rank): no saves; a synchronous save every `--every` steps
//! (`files::save_sync`: the shard written and synced on the training thread, then
//! published); your asynchronous save (a copy of the state, then a writer thread). Per
//! save, the stall: how long the training thread stood still for it, the slowest rank's
//! (the next collective waits for that one). The loss at the end is the same in all three
//! runs: saving does not change training.
//!
//! Run: `make run CH=15` (4 ranks), or `NP=3 cargo run --release -p ch15-failures
//! --features solution --bin async_ckpt -- [--sizes 1,4,16] [--steps 90] [--every 30]
//! [--kill-at-save K]`: sizes in millions of parameters over all ranks; `--kill-at-save K`
//! runs the asynchronous save only, and rank 1's writer kills its process half-way through
//! save K (a crash mid-save); the checkpoint left is save K-1's, whole. The checkpoints go
//! to `target/workbook/ch15-async/`.

use ch15::files::{fresh_folder, load, save_sync, Pace};
use ch15::model::ShardModel;
use ch15::saver::AsyncSaver;
use ch15::Saver;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::Path;
use std::time::Instant;
use tabled::Tabled;
use toolkit::bench::arg;
use toolkit::gate::{stop_unfinished, unless_todo};

/// How a run saves.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    None,
    Sync,
    Async,
}

/// What one run measured, in seconds per step or per save (the slowest rank's): a step's
/// training; a save's copy of the state (the asynchronous run's) and the rest of its
/// stall (the synchronous save whole; the asynchronous one's wait for the writer before
/// it and the start of its own); the wait at the end for the last writer; the loss after
/// the last step.
struct Run {
    step_s: f64,
    copy_s: f64,
    stall_s: f64,
    end_s: f64,
    loss: f64,
}

/// The slowest rank's `x` (the figure a collective step takes).
fn slowest(world: &SimpleCommunicator, x: f64) -> f64 {
    toolkit::report::Timing::over_ranks(world, x).max
}

/// Trains `steps` steps of a model of `p` parameters, saving every `every` steps as `mode`
/// says into `dir`.
fn run(
    world: &SimpleCommunicator,
    p: usize,
    steps: u64,
    every: u64,
    mode: Mode,
    dir: &Path,
) -> Result<Run, String> {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let mut model = ShardModel::new(p, q, n);
    let mut saver = AsyncSaver::new(dir.to_path_buf(), Pace::default());
    let (mut train, mut copy, mut stall, mut saves, mut loss) = (0.0, 0.0, 0.0, 0, 0.0);
    for step in 1..=steps {
        let t = Instant::now();
        loss = model.step(world);
        train += t.elapsed().as_secs_f64();
        if step % every != 0 || mode == Mode::None {
            continue;
        }
        let t = Instant::now();
        if mode == Mode::Sync {
            save_sync(world, dir, &model.snapshot(), &Pace::default())?;
        } else {
            let snap = model.snapshot();
            copy += slowest(world, t.elapsed().as_secs_f64());
            let t = Instant::now();
            saver.save(world, snap)?;
            stall += slowest(world, t.elapsed().as_secs_f64());
            saves += 1;
            continue;
        }
        stall += slowest(world, t.elapsed().as_secs_f64());
        saves += 1;
    }
    let t = Instant::now();
    if mode == Mode::Async {
        saver.finish(world)?;
    }
    let per = f64::from(saves.max(1));
    Ok(Run {
        step_s: slowest(world, train / steps as f64),
        copy_s: copy / per,
        stall_s: stall / per,
        end_s: slowest(world, t.elapsed().as_secs_f64()),
        loss,
    })
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let sizes: Vec<f64> = arg("--sizes", "1,4,16")
        .split(',')
        .map(|s| s.parse().expect("--sizes 1,4,16"))
        .collect();
    let steps: u64 = arg("--steps", "90").parse().expect("--steps N");
    let every: u64 = arg("--every", "30").parse().expect("--every N");
    let kill: u64 = arg("--kill-at-save", "0")
        .parse()
        .expect("--kill-at-save K");
    let dir = toolkit::report::out_dir().join("ch15-async");
    let n = world.size();
    if kill > 0 {
        let p = (sizes[0] * 1e6) as usize;
        let shard_bytes = 12 * (p / n as usize) as u64;
        let pace = Pace {
            per_mib: std::time::Duration::from_millis(20),
            die_after: None,
        };
        let die = Pace {
            die_after: Some(shard_bytes / 2),
            ..pace.clone()
        };
        let mine = if world.rank() == 1.min(n as i32 - 1) {
            die
        } else {
            pace
        };
        let dir = fresh_folder(&world, &dir);
        let mut model = ShardModel::new(p, world.rank() as usize, n as usize);
        let mut saver = AsyncSaver::new(dir.clone(), Pace::default());
        for step in 1..=steps {
            model.step(&world);
            if step % every == 0 {
                saver.pace = if step / every == kill {
                    mine.clone()
                } else {
                    Pace::default()
                };
                let done = unless_todo(&world, || saver.save(&world, model.snapshot()));
                done.unwrap_or_else(|task| stop_unfinished(&world, "async_ckpt", &task))
                    .expect("save");
            }
        }
        let _ = saver.finish(&world);
        return;
    }
    if world.rank() == 0 {
        println!("# {n} ranks, {steps} steps, a save every {every}; per save, the training thread's stall in ms (the slowest rank's); 12 bytes per parameter (params, Adam's m and v)");
        println!("# async = copy + wait (for the writer before it); write = the last save's writer, waited for whole at the end; model = copy + max(0, write - interval)");
    }
    let mut rows = Vec::new();
    for &m in &sizes {
        let p = (m * 1e6) as usize;
        let go = |mode| run(&world, p, steps, every, mode, &fresh_folder(&world, &dir));
        let none = go(Mode::None).expect("training");
        let sync = go(Mode::Sync).expect("the synchronous save");
        let asy = unless_todo(&world, || go(Mode::Async))
            .unwrap_or_else(|task| stop_unfinished(&world, "async_ckpt", &task))
            .expect("the asynchronous save");
        let back = load(&dir, world.rank() as usize, n as usize).expect("the last checkpoint");
        let whole = back.is_some_and(|s| s.step == steps - steps % every);
        let same = none.loss == sync.loss && sync.loss == asy.loss && whole;
        rows.push(Row::new(p, n, every, &none, &sync, &asy, same));
    }
    if world.rank() == 0 {
        println!("{}", toolkit::report::table(&rows));
    }
}

/// One size's line of the table.
#[derive(Tabled)]
struct Row {
    params: usize,
    #[tabled(rename = "MiB/rank")]
    mib: String,
    step: String,
    interval: String,
    sync: String,
    copy: String,
    wait: String,
    #[tabled(rename = "async")]
    asy: String,
    write: String,
    model: String,
    #[tabled(rename = "sync/async")]
    ratio: String,
    #[tabled(rename = "same loss")]
    same: &'static str,
}

impl Row {
    fn new(p: usize, n: i32, every: u64, none: &Run, sync: &Run, asy: &Run, same: bool) -> Row {
        let ms = |s: f64| format!("{:.1}", s * 1e3);
        let interval = none.step_s * every as f64;
        let async_s = asy.copy_s + asy.stall_s;
        Row {
            params: p,
            mib: format!("{:.1}", 12.0 * p as f64 / f64::from(n) / (1 << 20) as f64),
            step: ms(none.step_s),
            interval: ms(interval),
            sync: ms(sync.stall_s),
            copy: ms(asy.copy_s),
            wait: ms(asy.stall_s),
            asy: ms(async_s),
            write: ms(asy.end_s),
            model: ms(asy.copy_s + (asy.end_s - interval).max(0.0)),
            ratio: format!("{:.1}", sync.stall_s / async_s),
            same: if same { "yes" } else { "NO" },
        }
    }
}
