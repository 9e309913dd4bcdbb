//! The `failures` lab's job (under mpirun): trains chapter 15's model to `--steps` from
//! the checkpoint in `--dir`, if there is one, with a synchronous save every `--every`
//! steps; rank `--die-rank` kills its own process (SIGKILL) `--die-at` seconds after it
//! started (0: never). Rank 0 prints `step S` after every step, `saved S SECONDS` after
//! every save, `trained SECONDS` (its steps' time) at the end, and, with `--verify`, whether the state at the end equals the same
//! shards trained without a failure (each rank alone, from step 0).

use ch15::files::{load, save_sync, Pace};
use ch15::model::ShardModel;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};
use toolkit::bench::arg;

/// The job's side of the lab.
pub fn run() {
    let universe = toolkit::init();
    let world = universe.world();
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let p: usize = arg("--params", "0").parse().expect("--params N");
    let steps: u64 = arg("--steps", "0").parse().expect("--steps N");
    let every: u64 = arg("--every", "1").parse().expect("--every N");
    let die_at: f64 = arg("--die-at", "0").parse().expect("--die-at SECONDS");
    let die_rank: usize = arg("--die-rank", "0").parse().expect("--die-rank R");
    let dir = std::path::PathBuf::from(arg("--dir", ""));
    if die_at > 0.0 && q == die_rank {
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs_f64(die_at));
            // SAFETY: a signal to our own process: the failure this lab injects.
            unsafe { libc::raise(libc::SIGKILL) };
        });
    }
    let mut model = ShardModel::new(p, q, n);
    if let Some(saved) = load(&dir, q, n).expect("the checkpoint") {
        model.restore(saved).expect("this rank's shard");
    }
    let mut trained = 0.0;
    while model.state.step < steps {
        let t = Instant::now();
        model.step(&world);
        trained += t.elapsed().as_secs_f64();
        let step = model.state.step;
        if q == 0 {
            println!("step {step}");
        }
        if step.is_multiple_of(every) || step == steps {
            let t = Instant::now();
            save_sync(&world, &dir, &model.snapshot(), &Pace::default()).expect("save");
            let mut secs = 0.0;
            world.all_reduce_into(
                &t.elapsed().as_secs_f64(),
                &mut secs,
                SystemOperation::max(),
            );
            if q == 0 {
                println!("saved {step} {secs}");
            }
        }
    }
    if q == 0 {
        println!("trained {trained}");
    }
    if std::env::args().any(|a| a == "--verify") {
        verify(&world, &model, p, steps);
    }
}

/// Rank 0 prints `same as never failed: yes` when every rank's state equals its shard
/// trained `steps` steps alone, without a failure.
fn verify(world: &SimpleCommunicator, model: &ShardModel, p: usize, steps: u64) {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let alone = SimpleCommunicator::self_comm();
    let mut straight = ShardModel::new(p, q, n);
    for _ in 0..steps {
        straight.step(&alone);
    }
    let mut all = 0u8;
    let same = u8::from(straight.state == model.state);
    world.all_reduce_into(&same, &mut all, SystemOperation::min());
    if q == 0 {
        println!(
            "same as never failed: {}",
            if all == 1 { "yes" } else { "NO" }
        );
    }
}
