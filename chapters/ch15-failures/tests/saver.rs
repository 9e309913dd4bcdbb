//! Checks of exercise 15.1 (the asynchronous checkpoint): under mpirun at 1 to 4 ranks,
//! saves that return while their writer runs, one in flight at most, each published when
//! the next starts, the last by `finish`, loading back the state saved. Then training
//! restored from such a checkpoint goes on exactly as training that never stopped, at 1
//! and 3 ranks, and the shards at 3 ranks are the one-process model's, bit for bit. Run:
//! `make check CH=15` or `cargo test -p ch15-failures --features solution --test main saver::`.

use crate::common::{check_saver, fresh_dir, P};
use ch15::files::Pace;
use ch15::model::{shard_range, ShardModel};
use ch15::saver::AsyncSaver;
use ch15::Saver;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::mpi_test;

fn async_saver(dir: std::path::PathBuf, pace: Pace) -> Box<dyn Saver> {
    Box::new(AsyncSaver::new(dir, pace))
}

mpi_test! {
    fn ex15_1_saves_run_beside_training(world at &[1, 2, 3, 4]) {
        check_saver(world, async_saver, "ex15_1")
    }

    fn training_restored_from_a_checkpoint_goes_on_as_if_never_stopped(world at &[1, 3]) {
        restored_equals_uninterrupted(world)
    }
}

/// Trains 6 steps saving every 3, loads the checkpoint into a new model and trains it to
/// 10; another model trains 10 steps straight. Both equal, bit for bit, and equal to the
/// one-process model's elements of this shard.
fn restored_equals_uninterrupted(world: &SimpleCommunicator) -> Result<(), String> {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let dir = fresh_dir(world, "restore");
    let mut first = ShardModel::new(P, q, n);
    let mut saver = AsyncSaver::new(dir.clone(), Pace::default());
    for step in 1..=6 {
        first.step(world);
        if step % 3 == 0 {
            saver.save(world, first.snapshot())?;
        }
    }
    saver.finish(world)?;
    let mut resumed = ShardModel::new(P, q, n);
    let saved = ch15::files::load(&dir, q, n)?.ok_or("no checkpoint after finish (ex 15.1)")?;
    resumed.restore(saved)?;
    let mut straight = ShardModel::new(P, q, n);
    let single = SimpleCommunicator::self_comm();
    let mut whole = ShardModel::new(P, 0, 1);
    for _ in 6..10 {
        resumed.step(world);
    }
    for _ in 0..10 {
        straight.step(world);
        whole.step(&single);
    }
    let (s, e) = shard_range(P, q, n);
    if resumed.state != straight.state {
        return Err(format!("rank {q}: after the restore at step 6, step 10 differs from the run that never stopped: the checkpoint did not hold the state of step 6 (ex 15.1)"));
    }
    if straight.state.params != whole.state.params[s..e] {
        return Err(format!("rank {q}: the shard's parameters differ from the one-process model's elements {s}..{e}"));
    }
    Ok(())
}
