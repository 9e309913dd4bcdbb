//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them: ex 15.1's save that waits for its own writer (a synchronous save in
//! disguise), that starts a writer without finishing the one before (saves pile up), and
//! whose finish publishes the manifest before the writer is done, under mpirun at 3 ranks
//! (`toolkit::mpi_test!`); ex 15.2's waste that loses a whole interval per failure, and
//! Young's interval without its 2; ex 15.3's restart size that forgets the batch, and
//! next launches that reuse the old world size, start from scratch, or never give up.
//!
//! Run: `cargo test -p ch15-failures --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch15-failures/tests/common/mod.rs"]
mod common;

use ch15::elastic::next_launch;
use ch15::files::{publish, write_shard, Pace};
use ch15::model::Snapshot;
use ch15::saver::{AsyncSaver, InFlight};
use ch15::supervisor::{Decision, Ended, Launch, Now};
use ch15::Saver;
use common::{check_interval, check_next_launch, check_restart_size, check_saver};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;
use toolkit::planted::named;

/// Which rule of ex 15.1 a planted saver breaks.
#[derive(Clone, Copy)]
enum Mistake {
    /// `save` joins the writer it just started.
    WaitsForItsWriter,
    /// `save` starts a writer without finishing the save in flight.
    PilesUp,
    /// `finish` publishes, then joins the writer.
    PublishesFirst,
}

/// Ex 15.1 as a learner might write it, with one rule broken.
struct Planted {
    inner: AsyncSaver,
    mistake: Mistake,
    bytes: u64,
}

impl Saver for Planted {
    fn save(&mut self, world: &SimpleCommunicator, snap: Snapshot) -> Result<(), String> {
        if !matches!(self.mistake, Mistake::PilesUp) {
            self.finish(world)?;
        }
        let (q, n) = (world.rank() as usize, world.size() as usize);
        let (dir, pace, step) = (self.inner.dir.clone(), self.inner.pace.clone(), snap.step);
        self.bytes = 20 + snap.bytes() + 8;
        let writer = std::thread::spawn(move || write_shard(&dir, q, n, &snap, &pace));
        if let Mistake::WaitsForItsWriter = self.mistake {
            let wrote = writer.join().unwrap_or_else(|_| Err("panicked".into()));
            return publish(world, &self.inner.dir, step, wrote);
        }
        self.inner.in_flight = Some(InFlight { step, writer });
        Ok(())
    }

    fn finish(&mut self, world: &SimpleCommunicator) -> Result<Option<u64>, String> {
        let Some(InFlight { step, writer }) = self.inner.in_flight.take() else {
            return Ok(None);
        };
        if let Mistake::PublishesFirst = self.mistake {
            publish(world, &self.inner.dir, step, Ok(self.bytes))?;
            let _ = writer.join();
            return Ok(Some(step));
        }
        let wrote = writer.join().unwrap_or_else(|_| Err("panicked".into()));
        publish(world, &self.inner.dir, step, wrote)?;
        Ok(Some(step))
    }
}

fn planted(mistake: Mistake) -> impl Fn(PathBuf, Pace) -> Box<dyn Saver> {
    move |dir, pace| {
        Box::new(Planted {
            inner: AsyncSaver::new(dir, pace),
            mistake,
            bytes: 0,
        })
    }
}

fn waits(dir: PathBuf, pace: Pace) -> Box<dyn Saver> {
    planted(Mistake::WaitsForItsWriter)(dir, pace)
}
fn piles_up(dir: PathBuf, pace: Pace) -> Box<dyn Saver> {
    planted(Mistake::PilesUp)(dir, pace)
}
fn publishes_first(dir: PathBuf, pace: Pace) -> Box<dyn Saver> {
    planted(Mistake::PublishesFirst)(dir, pace)
}

toolkit::mpi_test! {
    fn a_save_that_waits_for_its_writer_is_named(world at &[3]) {
        named(check_saver(world, waits, "planted-waits"), "returned after its shard was written")
    }

    fn saves_that_pile_up_are_named(world at &[3]) {
        named(check_saver(world, piles_up, "planted-piles"), "finish the save in flight (join its writer, publish its step) before the next save starts")
    }

    fn a_manifest_before_its_shards_is_named(world at &[3]) {
        named(check_saver(world, publishes_first, "planted-first"), "join the writer before publish")
    }
}

/// Ex 15.2's waste with a whole interval lost per failure.
fn waste_whole_interval(interval: f64, save: f64, mtbf: f64) -> f64 {
    save / interval + interval / mtbf
}

/// Ex 15.2's interval without the 2: `sqrt(save mtbf)`.
fn young_without_2(save: f64, mtbf: f64) -> f64 {
    (save * mtbf).sqrt()
}

#[test]
fn a_whole_interval_lost_per_failure_is_named() {
    let check = check_interval(waste_whole_interval, ch15::interval::young_interval);
    named(check, "half an interval on average").unwrap();
}

#[test]
fn youngs_interval_without_its_2_is_named() {
    let check = check_interval(ch15::interval::waste, young_without_2);
    named(check, "the 2 is missing").unwrap();
}

/// Ex 15.3's size that forgets the batch: every rank alive.
fn size_ignores_the_batch(alive: usize, _batch: usize) -> Option<usize> {
    (alive > 0).then_some(alive)
}

/// Ex 15.3's next launch on the old world size.
fn same_size(last: &Launch, ended: Ended, now: &Now) -> Decision {
    match next_launch(last, ended, now) {
        Decision::Relaunch(l) => Decision::Relaunch(Launch {
            ranks: last.ranks,
            ..l
        }),
        d => d,
    }
}

/// Ex 15.3's next launch that never resumes: the job starts over at step 0.
fn from_scratch(last: &Launch, ended: Ended, now: &Now) -> Decision {
    match next_launch(last, ended, now) {
        Decision::Relaunch(l) => Decision::Relaunch(Launch { resume: false, ..l }),
        d => d,
    }
}

/// Ex 15.3's next launch that never gives up for want of restarts.
fn never_gives_up(last: &Launch, ended: Ended, now: &Now) -> Decision {
    let more = Now {
        restarts_left: now.restarts_left.max(1),
        ..*now
    };
    next_launch(last, ended, &more)
}

#[test]
fn a_restart_size_that_forgets_the_batch_is_named() {
    let check = check_restart_size(size_ignores_the_batch);
    named(check, "the batch does not split evenly").unwrap();
}

#[test]
fn a_restart_on_the_old_world_size_is_named() {
    let check = check_next_launch(same_size);
    named(check, "reusing the old world size").unwrap();
}

#[test]
fn a_restart_from_scratch_is_named() {
    let check = check_next_launch(from_scratch);
    named(check, "starts again from step 0").unwrap();
}

#[test]
fn a_supervisor_that_never_gives_up_is_named() {
    let check = check_next_launch(never_gives_up);
    named(check, "relaunched forever").unwrap();
}
