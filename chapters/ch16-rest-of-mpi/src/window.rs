//! Given: an MPI window and its epochs, as safe types.
//!
//! A window is memory exposed to one-sided access: any rank of the communicator may
//! `MPI_Put` values into it, or `MPI_Get` them, without its owner calling anything for
//! that message. `MPI_Win_create` exposes a buffer of the program's; `MPI_Win_allocate`,
//! used here, has MPI allocate the memory with the window (the library may then choose
//! memory that is faster to reach), so the memory lives exactly as long as the window.
//! (Open MPI 4.1's `MPI_Win_create` also fails on a communicator of one process, its
//! issue 10726; `MPI_Win_allocate` does not.) Puts happen inside *epochs*: between two `MPI_Win_fence`s (every
//! rank of the window at once), or between `MPI_Win_start` and `MPI_Win_complete` on the
//! side that puts (an *access* epoch to a group of targets) matched by `MPI_Win_post`
//! and `MPI_Win_wait` on the side put into (an *exposure* epoch to a group of origins).
//! A put is only known to be done, at both ends, once its epoch is closed.
//!
//! In C the rules are the programmer's: the window's memory must not be read while puts
//! may be landing in it, the data a put reads must not change until its epoch closes, a
//! put must stay inside the target's window, and the window must not be freed with an
//! epoch open. Here each is a type: [`Window`] owns its memory and frees it with itself
//! on drop (`MPI_Win_free`, collective); an [`Epoch`] borrows the window mutably, so the
//! window cannot be read, freed or given a second epoch while one is open, and the data
//! of its puts for its whole life (`'d`); dropping the epoch closes it (fence, or complete
//! and wait). A put past the end of the target's window, or to a rank outside a
//! post-start-complete-wait epoch's targets, is refused in one line.

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::Rank;
use mpi::traits::*;
use std::marker::PhantomData;

// ANCHOR: types
/// A window of doubles allocated by MPI, on every rank of a communicator.
pub struct Window {
    win: ffi::MPI_Win,
    base: *mut f64,
    rank: usize,
    /// Every rank's window length, in doubles (gathered when the window was made).
    lens: Vec<usize>,
}

/// How an epoch is synchronised.
enum Sync {
    /// Between two `MPI_Win_fence`s, on every rank of the window.
    Fence,
    /// `MPI_Win_post`/`MPI_Win_start` to these groups, `MPI_Win_complete`/`MPI_Win_wait`.
    Pscw { targets: Vec<Rank> },
}

/// An open epoch of a window: puts may be made; dropping it (or [`Epoch::close`]) closes it.
#[must_use = "an epoch is closed when dropped: keep it while you put"]
pub struct Epoch<'w, 'd> {
    window: &'w mut Window,
    sync: Sync,
    _data: PhantomData<&'d [f64]>,
}
// ANCHOR_END: types

impl Window {
    /// A window of `len` doubles on this rank, zeroed (`MPI_Win_allocate`, displacements
    /// in doubles). Collective: every rank of `comm` makes its window together.
    pub fn allocate<C>(comm: &C, len: usize) -> Window
    where
        C: CommunicatorCollectives + AsRaw<Raw = ffi::MPI_Comm>,
    {
        let mut lens = vec![0usize; comm.size() as usize];
        comm.all_gather_into(&len, &mut lens[..]);
        let bytes = (8 * len) as ffi::MPI_Aint;
        let mut base: *mut f64 = std::ptr::null_mut();
        // SAFETY: reads a constant the MPI library exports.
        let mut win = unsafe { ffi::RSMPI_WIN_NULL };
        // SAFETY: MPI writes the address of `bytes` bytes it allocated into `base` (passed
        // as a pointer to the pointer, as the C signature's `void *` says) and the window
        // into `win`; the memory is zeroed before any epoch can open (the first is
        // collective), and freed only with the window.
        let rc = unsafe {
            let out = (&mut base as *mut *mut f64).cast();
            let rc =
                ffi::MPI_Win_allocate(bytes, 8, ffi::RSMPI_INFO_NULL, comm.as_raw(), out, &mut win);
            if rc == 0 && len > 0 {
                std::ptr::write_bytes(base, 0, len);
            }
            rc
        };
        assert_eq!(rc, 0, "MPI_Win_allocate failed ({rc})");
        Window {
            win,
            base,
            rank: comm.rank() as usize,
            lens,
        }
    }

    /// This rank's window as it is between epochs (every put of a closed epoch is in it).
    pub fn local(&self) -> &[f64] {
        let len = self.lens[self.rank];
        if len == 0 {
            return &[];
        }
        // SAFETY: `base` holds this rank's `len` doubles, owned by the window; no epoch is
        // open (an epoch holds `&mut self`), so no put is writing them.
        unsafe { std::slice::from_raw_parts(self.base, len) }
    }

    /// Opens an epoch on every rank of the window (`MPI_Win_fence`; collective).
    pub fn fence<'d>(&mut self) -> Epoch<'_, 'd> {
        // SAFETY: a live window; assert 0 (no hints).
        let rc = unsafe { ffi::MPI_Win_fence(0, self.win) };
        assert_eq!(rc, 0, "MPI_Win_fence failed ({rc})");
        Epoch {
            window: self,
            sync: Sync::Fence,
            _data: PhantomData,
        }
    }

    /// Opens an exposure epoch to `origins` (`MPI_Win_post`: they may put into this rank's
    /// window) and an access epoch to `targets` (`MPI_Win_start`: this rank may put into
    /// theirs). Each list may repeat a rank or hold this rank itself.
    pub fn post_start<'d>(&mut self, origins: &[Rank], targets: &[Rank]) -> Epoch<'_, 'd> {
        let (exposed, accessed) = (self.group(origins), self.group(targets));
        // SAFETY: a live window and two groups of its communicator's ranks, freed after.
        unsafe {
            let rc = ffi::MPI_Win_post(exposed, 0, self.win);
            assert_eq!(rc, 0, "MPI_Win_post failed ({rc})");
            let rc = ffi::MPI_Win_start(accessed, 0, self.win);
            assert_eq!(rc, 0, "MPI_Win_start failed ({rc})");
            for mut g in [exposed, accessed] {
                ffi::MPI_Group_free(&mut g);
            }
        }
        let targets = targets.to_vec();
        Epoch {
            window: self,
            sync: Sync::Pscw { targets },
            _data: PhantomData,
        }
    }

    /// The group of the window's ranks holding `ranks` (each once, in order).
    fn group(&self, ranks: &[Rank]) -> ffi::MPI_Group {
        let mut once: Vec<Rank> = vec![];
        for &r in ranks {
            assert!(
                (0..self.lens.len() as Rank).contains(&r),
                "window: rank {r} is not a rank of the window's communicator (0..{})",
                self.lens.len()
            );
            if !once.contains(&r) {
                once.push(r);
            }
        }
        // SAFETY: handles to be written by MPI; the ranks are distinct and in range.
        unsafe {
            let (mut all, mut some) = (ffi::RSMPI_GROUP_NULL, ffi::RSMPI_GROUP_NULL);
            ffi::MPI_Win_get_group(self.win, &mut all);
            ffi::MPI_Group_incl(all, once.len() as i32, once.as_ptr(), &mut some);
            ffi::MPI_Group_free(&mut all);
            some
        }
    }
}

impl<'d> Epoch<'_, 'd> {
    /// Puts `data` into `target`'s window at displacement `at` (in doubles): `MPI_Put`. It
    /// is done, and `data` free again, when the epoch closes. Refuses, in one line, a put
    /// that would reach past the end of the target's window, or (in a post-start epoch) a
    /// target outside the epoch's group.
    pub fn put(&mut self, data: &'d [f64], target: Rank, at: usize) {
        let lens = &self.window.lens;
        let len = *lens.get(target as usize).unwrap_or_else(|| {
            panic!(
                "put: rank {target} is not a rank of the window's communicator (0..{})",
                lens.len()
            )
        });
        assert!(
            at + data.len() <= len,
            "put: {} doubles at displacement {at} of rank {target}'s window reach past its end \
             ({len} doubles): the displacement is in the target's window, counted in doubles",
            data.len()
        );
        if let Sync::Pscw { targets } = &self.sync {
            assert!(
                targets.contains(&target),
                "put: rank {target} is not among this epoch's targets {targets:?} \
                 (MPI_Win_start's group): every rank put into must be in it"
            );
        }
        let n = data.len() as i32;
        // SAFETY: the target's window holds `at + n` doubles (checked); `data` is borrowed
        // for the epoch's life, so it stays unchanged until the close completes the put.
        let rc = unsafe {
            let d = ffi::RSMPI_DOUBLE;
            let origin = data.as_ptr().cast();
            ffi::MPI_Put(
                origin,
                n,
                d,
                target,
                at as ffi::MPI_Aint,
                n,
                d,
                self.window.win,
            )
        };
        assert_eq!(rc, 0, "MPI_Put failed ({rc})");
    }

    /// Closes the epoch: `MPI_Win_fence`, or `MPI_Win_complete` then `MPI_Win_wait`. Every
    /// put of it is then done at both ends. (Dropping the epoch does the same.)
    pub fn close(self) {}
}

impl Drop for Epoch<'_, '_> {
    fn drop(&mut self) {
        let win = self.window.win;
        // SAFETY: closes the epoch this value opened, on a live window.
        let rc = unsafe {
            match self.sync {
                Sync::Fence => ffi::MPI_Win_fence(0, win),
                Sync::Pscw { .. } => match ffi::MPI_Win_complete(win) {
                    0 => ffi::MPI_Win_wait(win),
                    rc => rc,
                },
            }
        };
        assert_eq!(rc, 0, "closing the epoch failed ({rc})");
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: no epoch is open (an epoch borrows the window); every rank of the
        // communicator frees its window (and the memory MPI allocated) together, as it
        // made it. No slice of the memory outlives `&self`.
        unsafe { ffi::MPI_Win_free(&mut self.win) };
    }
}
