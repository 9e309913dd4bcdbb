//! Chapter 15: surviving failures. Part 1: checkpoints that never stall training: a
//! writer thread saves a copy of the state while the training thread goes on, and the
//! checkpoint exists only once every rank's shard is on disk. Part 2: how often to save,
//! measured with a rank killed at random and the job started again from its checkpoint.
//! Part 3: a job that goes on after a rank is lost, started again on the ranks still
//! there (`supervise`, `make run CH=08 ELASTIC=1`).
//!
//! Run the labs with `make run CH=15` (`async_ckpt`: the stall of a synchronous save
//! against the asynchronous one at several model sizes) and `make run CH=15 BIN=failures`
//! (training through random failures at several save intervals, next to Young's), your
//! exercises with `make check CH=15`.
//!
//! Given code (read it, use it):
//! - [`model`]: the sharded model the chapter trains (Adam on `1/2 |w - t|^2`, a shard of
//!   P per rank) and its [`model::Snapshot`];
//! - [`files`]: the checkpoint's files: a shard written atomically by any thread,
//!   [`files::publish`] (the collective that writes the manifest last), [`files::load`],
//!   and the synchronous save [`files::save_sync`];
//! - [`in_flight`]: the asynchronous saver's state (its folder, pace, save in flight);
//! - [`ulfm`]: whether this MPI can recover inside a job (ULFM), in one line;
//! - [`supervisor`], [`slots`] and [`trainer_text`]: the elastic supervisor (`supervise`):
//!   it relaunches a trainer on the ranks still there, from its last checkpoint.
//!
//! Your part (stubs; `--features solution` compiles the answers from `solutions/`):
//! [`saver`] (ex 15.1: the asynchronous save and its finish), [`interval`] (ex 15.2:
//! the waste of a save interval, and Young's interval that makes it smallest) and
//! [`elastic`] (ex 15.3: the size of a restart, and when to give up).

pub mod files;
pub mod in_flight;
pub mod model;
pub mod slots;
pub mod supervisor;
pub mod trainer_text;
pub mod ulfm;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch15-failures/saver.rs"
)]
pub mod saver;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch15-failures/interval.rs"
)]
pub mod interval;

#[cfg_attr(
    feature = "solution",
    path = "../../../solutions/ch15-failures/elastic.rs"
)]
pub mod elastic;

use model::Snapshot;
use mpi::topology::SimpleCommunicator;

/// A way to save checkpoints during training: ex 15.1's [`saver::AsyncSaver`], or a
/// planted mistake. Both calls are collective.
pub trait Saver {
    /// Starts (or makes) the save of `snap`.
    fn save(&mut self, world: &SimpleCommunicator, snap: Snapshot) -> Result<(), String>;
    /// Ends the save in flight; the step it published, if any.
    fn finish(&mut self, world: &SimpleCommunicator) -> Result<Option<u64>, String>;
}
