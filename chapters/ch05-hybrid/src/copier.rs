//! Given code: the copy thread of a CPU [`crate::stream::CopyStream`].
//!
//! A GPU has copy engines that move data while its host thread calls MPI. A CPU has
//! none, so the stream gives itself one: a thread fed by a channel. It copies each job's
//! elements (a 1-D tensor view) into the job's landing buffer, in the order the jobs
//! came, and hands back the buffer with the time the copy started and ended.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Instant;
use tch::Tensor;

/// One copy: the first `src.numel()` elements of `into` get the elements of `src`.
pub struct Job {
    /// The elements to copy (a contiguous 1-D view of the tensor being staged).
    pub src: Tensor,
    /// The landing buffer (a contiguous 1-D CPU tensor, at least as long as `src`).
    pub into: Tensor,
}

/// A finished copy: the landing buffer, and when the copy ran.
pub struct Done {
    /// The landing buffer, now holding the copied elements.
    pub into: Tensor,
    /// When the copy thread began it.
    pub start: Instant,
    /// When it finished.
    pub end: Instant,
}

/// A copy thread: jobs go in, finished copies come out, in order.
pub struct Copier {
    jobs: Option<Sender<Job>>,
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
}

impl Copier {
    /// Starts the copy thread.
    pub fn spawn() -> Self {
        let (jobs, inbox) = channel::<Job>();
        let (outbox, done) = channel::<Done>();
        let thread = std::thread::Builder::new()
            .name("copy stream".into())
            .spawn(move || {
                for job in inbox {
                    let start = Instant::now();
                    let bytes = job.src.numel() * job.src.kind().elt_size_in_bytes();
                    if bytes > 0 {
                        // SAFETY: `into` is a contiguous CPU tensor of at least `bytes`
                        // bytes that only this thread touches until the job is done.
                        let dst = unsafe {
                            std::slice::from_raw_parts_mut(job.into.data_ptr() as *mut u8, bytes)
                        };
                        job.src.copy_data_u8(dst, job.src.numel());
                    }
                    let end = Instant::now();
                    let into = job.into;
                    if outbox.send(Done { into, start, end }).is_err() {
                        return;
                    }
                }
            })
            .expect("start the copy thread");
        Copier {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        }
    }

    /// Queues a copy; returns at once.
    pub fn submit(&self, job: Job) {
        let jobs = self.jobs.as_ref().expect("copier running");
        jobs.send(job).expect("the copy thread has stopped");
    }

    /// Waits for the oldest copy not yet collected.
    pub fn wait_one(&self) -> Done {
        self.done.recv().expect("the copy thread has stopped")
    }
}

impl Drop for Copier {
    fn drop(&mut self) {
        drop(self.jobs.take()); // the thread's loop ends when the channel closes
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
