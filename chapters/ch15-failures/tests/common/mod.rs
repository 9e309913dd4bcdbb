//! What the checks of chapter 15 share with its planted mistakes: each check takes the
//! saver under test (made by a function), so that a planted mistake goes through the same
//! check and gets the same message.
#![allow(dead_code)] // each test file uses part of it

use ch15::files::{load, most_writers_at_once, saved_step, shard_file, writers_running, Pace};
use ch15::model::ShardModel;
use ch15::supervisor::{Decision, Ended, Launch, Now};
use ch15::Saver;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Makes the saver under test: into a folder, its writers at a pace.
pub type MakeSaver = fn(PathBuf, Pace) -> Box<dyn Saver>;

/// A fresh folder `name-N` (N: the ranks) under the course's output folder: rank 0 empties
/// it; every rank returns once it exists.
pub fn fresh_dir(world: &SimpleCommunicator, name: &str) -> PathBuf {
    let dir = toolkit::report::out_dir().join(format!("ch15-{name}-{}", world.size()));
    ch15::files::fresh_folder(world, &dir)
}

/// The model the checks train: 3001 parameters (not a multiple of the rank counts).
pub const P: usize = 3001;

/// Ex 15.1's check: 8 steps, a save every 2, each writer slowed to 300 ms. After each save
/// returns: its shard is not written yet (a save that returns when it is, is a synchronous
/// one), never two at once, and the manifest names the save before it
/// (published when this one started). After `finish`: it says step 8, and each rank's
/// shard loads back equal to the state at step 8.
pub fn check_saver(world: &SimpleCommunicator, make: MakeSaver, name: &str) -> Result<(), String> {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let dir = fresh_dir(world, name);
    let pace = Pace {
        per_mib: Duration::from_millis(300),
        die_after: None,
    };
    let mut saver = make(dir.clone(), pace);
    let mut model = ShardModel::new(P, q, n);
    let mut last = None;
    for step in 1..=8u64 {
        model.step(world);
        if step % 2 != 0 {
            continue;
        }
        saver.save(world, model.snapshot())?;
        if shard_file(&dir, q, n, step).exists() {
            return Err(format!(
                "rank {q}: save (step {step}) returned after its shard was written: training waited for the whole save; start the writer thread and return (ex 15.1, save)"
            ));
        }
        let named = saved_step(&dir)?.map(|(s, _)| s);
        let want = (step > 2).then_some(step - 2);
        if named != want {
            return Err(format!(
                "rank {q}: after the save of step {step} the manifest names {}, want {}: finish the save in flight (join its writer, publish its step) before the next save starts (ex 15.1, save)",
                says(named),
                says(want)
            ));
        }
        if most_writers_at_once() > 1 {
            return Err(format!(
                "rank {q}: {} saves were in flight at once after the save of step {step}: finish the save in flight before starting the next (ex 15.1, save)",
                most_writers_at_once()
            ));
        }
        last = Some(model.snapshot());
    }
    let finished = saver.finish(world)?;
    if finished != Some(8) {
        return Err(format!("rank {q}: finish returned {finished:?}, want Some(8): the step of the save it published (ex 15.1, finish)"));
    }
    if writers_running() != 0 {
        return Err(format!(
            "rank {q}: a writer still runs after finish: join it (ex 15.1, finish)"
        ));
    }
    match load(&dir, q, n)? {
        Some(s) if Some(&s) == last.as_ref() => Ok(()),
        Some(s) => Err(format!("rank {q}: the checkpoint loads as step {}, not the state saved at step 8 (ex 15.1, finish)", s.step)),
        None => Err(format!("rank {q}: no checkpoint after finish: nothing was published (ex 15.1, finish)")),
    }
}

/// A step as a message says it ("step 4", "no step").
fn says(step: Option<u64>) -> String {
    step.map_or("no step".into(), |s| format!("step {s}"))
}

/// The checkpoint in `dir` for rank `q` of `n`, with its step: the test's reading.
pub fn step_in(dir: &Path, q: usize, n: usize) -> Result<Option<u64>, String> {
    Ok(load(dir, q, n)?.map(|s| s.step))
}

/// Ex 15.2's `waste(interval, save, mtbf)` or a planted mistake.
pub type Waste = fn(f64, f64, f64) -> f64;
/// Ex 15.2's `young_interval(save, mtbf)` or a planted mistake.
pub type Young = fn(f64, f64) -> f64;

/// Ex 15.2's check: worked values of each term of the waste, Young's interval on worked
/// values, and the interval it gives is where the waste is smallest.
pub fn check_interval(waste: Waste, young: Young) -> Result<(), String> {
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    // Failures so rare that only the saves count: a 1 s save every 10 s wastes 10%.
    let saves_only = waste(10.0, 1.0, 1e15);
    if !near(saves_only, 0.1) {
        return Err(format!("ex 15.2, waste: saving every 10 s at 1 s a save with (almost) no failures gives {saves_only}, want 0.1: the saves' share is save / interval"));
    }
    // Free saves: only the lost work counts, half an interval per failure.
    let lost_only = waste(10.0, 0.0, 100.0);
    if near(lost_only, 0.1) {
        return Err("ex 15.2, waste: free saves every 10 s, a failure every 100 s give 0.1, want 0.05: a failure loses half an interval on average, not a whole one".into());
    }
    if !near(lost_only, 0.05) {
        return Err(format!("ex 15.2, waste: free saves every 10 s, a failure every 100 s give {lost_only}, want 0.05: the lost work's share is interval / (2 mtbf)"));
    }
    let (save, mtbf) = (2.0, 3600.0);
    let t = young(save, mtbf);
    if near(t, (save * mtbf).sqrt()) {
        return Err(format!("ex 15.2, young_interval: {t} s for a 2 s save and an hour between failures, want 120 s: sqrt(2 save mtbf), the 2 is missing"));
    }
    if !near(t, 120.0) {
        return Err(format!("ex 15.2, young_interval: {t} s for a 2 s save and an hour between failures, want 120 s = sqrt(2 save mtbf)"));
    }
    for (save, mtbf) in [(0.05, 3.0), (30.0, 86400.0), (1.0, 50.0)] {
        let t = young(save, mtbf);
        let (at, shorter, longer) = (
            waste(t, save, mtbf),
            waste(0.99 * t, save, mtbf),
            waste(1.01 * t, save, mtbf),
        );
        if shorter < at || longer < at {
            return Err(format!("ex 15.2: at save {save} s, mtbf {mtbf} s, young_interval gives {t} s but the waste there ({at}) is not the smallest (1% shorter: {shorter}, 1% longer: {longer})"));
        }
    }
    Ok(())
}

/// Ex 15.3's `restart_size`, as a function (the planted mistakes pass their own).
pub type RestartSize = fn(usize, usize) -> Option<usize>;
/// Ex 15.3's `next_launch`.
pub type NextLaunch = fn(&Launch, Ended, &Now) -> Decision;

/// Ex 15.3's check of `restart_size`, one process: worked sizes.
pub fn check_restart_size(size: RestartSize) -> Result<(), String> {
    for (alive, batch, want) in [
        (3, 48, Some(3)),
        (3, 64, Some(2)),
        (7, 64, Some(4)),
        (5, 7, Some(1)),
        (0, 48, None),
    ] {
        let got = size(alive, batch);
        if got.is_some_and(|n| n > alive) {
            return Err(format!("ex 15.3, restart_size: {got:?} ranks with {alive} alive: a restart cannot use more ranks than are left (the old world size?)"));
        }
        if got.is_some_and(|n| batch % n != 0) {
            return Err(format!("ex 15.3, restart_size: {got:?} ranks for a global batch of {batch}: the batch does not split evenly; count down to a size that divides it"));
        }
        if got != want {
            return Err(format!("ex 15.3, restart_size: {got:?} with {alive} alive and a batch of {batch}, want {want:?}: the most ranks, at most those alive, that divide the batch"));
        }
    }
    Ok(())
}

/// Ex 15.3's check of `next_launch`, one process: what it decides after a finished
/// launch, and after a failure with and without a checkpoint, ranks or restarts left.
pub fn check_next_launch(next: NextLaunch) -> Result<(), String> {
    let four = Launch {
        ranks: 4,
        resume: false,
    };
    let now = Now {
        alive: 3,
        batch: 48,
        restarts_left: 2,
        saved: true,
    };
    let decided = next(&four, Ended::Finished, &now);
    if decided != Decision::Done {
        return Err(format!(
            "ex 15.3, next_launch: after a launch that finished it decided {decided:?}, want Done"
        ));
    }
    match next(&four, Ended::Failed, &now) {
        Decision::Relaunch(l) if l.ranks == 4 => return Err("ex 15.3, next_launch: relaunched on 4 ranks with 3 alive: a restart reusing the old world size asks for more ranks than are left; use restart_size".into()),
        Decision::Relaunch(l) if !l.resume => return Err("ex 15.3, next_launch: relaunched without resuming although a checkpoint is saved: the job starts again from step 0 and loses all its work".into()),
        Decision::Relaunch(l) if l.ranks != 3 => return Err(format!("ex 15.3, next_launch: relaunched on {} ranks with 3 alive and a batch of 48, want 3 (restart_size)", l.ranks)),
        Decision::Relaunch(_) => {}
        other => return Err(format!("ex 15.3, next_launch: after a failure with 3 ranks alive and 2 restarts left it decided {other:?}, want a relaunch on 3 ranks")),
    }
    let unsaved = Now {
        saved: false,
        ..now
    };
    if let Decision::Relaunch(l) = next(&four, Ended::Failed, &unsaved) {
        if l.resume {
            return Err("ex 15.3, next_launch: relaunched with --resume before any checkpoint was saved: the trainer refuses to resume from nothing; resume only when `now.saved`".into());
        }
    }
    let spent = Now {
        restarts_left: 0,
        ..now
    };
    if let d @ Decision::Relaunch(_) = next(&four, Ended::Failed, &spent) {
        return Err(format!("ex 15.3, next_launch: with no restart left it decided {d:?}: a job that fails at every launch would be relaunched forever; give up"));
    }
    let nobody = Now { alive: 0, ..now };
    if let d @ (Decision::Relaunch(_) | Decision::Done) = next(&four, Ended::Failed, &nobody) {
        return Err(format!(
            "ex 15.3, next_launch: with no rank alive it decided {d:?}: give up, saying why"
        ));
    }
    Ok(())
}
