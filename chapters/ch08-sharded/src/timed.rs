//! Given: [`Timed`], a [`Halves`] that passes each call on and adds up the seconds spent
//! in it: the time a step spends in its reduce-scatters and allgathers, for the benchmark
//! (`src/bin/zero_bench.rs`).

use crate::halves::Halves;
use std::cell::Cell;
use std::time::Instant;

/// `inner`'s collectives, timed.
pub struct Timed<'a> {
    pub inner: &'a dyn Halves,
    /// Seconds spent in `sum_scatter` and `gather_all` since made.
    pub secs: Cell<f64>,
}

impl<'a> Timed<'a> {
    /// `inner`, with no time counted yet.
    pub fn new(inner: &'a dyn Halves) -> Timed<'a> {
        Timed {
            inner,
            secs: Cell::new(0.0),
        }
    }

    fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let t0 = Instant::now();
        let out = f();
        self.secs.set(self.secs.get() + t0.elapsed().as_secs_f64());
        out
    }
}

impl Halves for Timed<'_> {
    fn sum_scatter(&self, full: &[f32], shard: &mut [f32]) {
        self.time(|| self.inner.sum_scatter(full, shard))
    }
    fn gather_all(&self, shard: &[f32], full: &mut [f32]) {
        self.time(|| self.inner.gather_all(shard, full))
    }
    fn ranks(&self) -> usize {
        self.inner.ranks()
    }
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn block_of(&self, addr: usize) -> Option<usize> {
        self.inner.block_of(addr)
    }
}
