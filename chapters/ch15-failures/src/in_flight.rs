//! Given: the asynchronous saver's state (ex 15.1 writes its two methods, in `saver.rs`):
//! the folder, the writers' pace, and the one save in flight.

use crate::files::Pace;
use std::path::PathBuf;
use std::thread::JoinHandle;

/// A save in flight: its step and its writer thread (which returns the shard's length).
pub struct InFlight {
    /// The step being saved.
    pub step: u64,
    /// The writer: [`crate::files::write_shard`] on its own thread.
    pub writer: JoinHandle<Result<u64, String>>,
}

/// Saves checkpoints into `dir` without stopping training.
pub struct AsyncSaver {
    /// The checkpoint's folder.
    pub dir: PathBuf,
    /// The writers' pace (the checks slow them down).
    pub pace: Pace,
    /// The save in flight, if any.
    pub in_flight: Option<InFlight>,
}

impl AsyncSaver {
    /// A saver into `dir` (created by the caller), nothing in flight.
    pub fn new(dir: PathBuf, pace: Pace) -> AsyncSaver {
        AsyncSaver {
            dir,
            pace,
            in_flight: None,
        }
    }
}
