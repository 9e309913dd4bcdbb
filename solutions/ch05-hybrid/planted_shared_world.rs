//! Mistake 1b of this chapter's threads half (ex 5.4), planted on purpose: every thread
//! borrows `world` itself. It compiles only where the communicator type is `Sync`
//! (MPICH); elsewhere (Open MPI) the test says why it is skipped. The assertions pin the
//! message a learner sees: cross-talk, named as such, without MPICH's abort noise.
//!
//! Run: `MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich cargo test -p
//! ch05-hybrid --features solution --test planted_shared_world -- --nocapture`.

#[path = "../../chapters/ch05-hybrid/tests/common/mod.rs"]
mod common;

use common::ring_matches;
use mpi::environment::Threading;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::strategy::Just;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, launch_self, run_body_with};

// ANCHOR: shared_world
/// Mistake 1b (ex 5.4): the same mistake in safe code: every thread borrows `world`
/// itself. Rust allows it only where the communicator is `Sync`: under MPICH, whose
/// `MPI_Comm` is an integer, not under Open MPI, whose `MPI_Comm` is a pointer. The
/// threads take turns as in mistake 1, and thread 0's buffer is the shortest, so it is
/// handed a longer message than it can hold: MPI reports a truncated message.
fn shared_world<C: Communicator + Sync>(world: &C, outgoing: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (rank, size) = (world.rank(), world.size());
    let (right, left) = ((rank + 1) % size, (rank + size - 1) % size);
    let (n, turn) = (outgoing.len(), AtomicUsize::new(0));
    let wait_for = |k: usize| {
        while turn.load(Ordering::Acquire) != k {
            std::thread::yield_now();
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let (out, turn, wait_for) = (&outgoing[t], &turn, &wait_for);
                s.spawn(move || {
                    let mut buf = vec![0.0f64; out.len()];
                    wait_for(n - 1 - t); // sends: thread n-1 first
                    world.process_at_rank(right).send(&out[..]); // WRONG: one shared world
                    turn.fetch_add(1, Ordering::Release);
                    wait_for(n + t); // receives: thread 0 first
                    world.process_at_rank(left).receive_into(&mut buf[..]);
                    turn.fetch_add(1, Ordering::Release);
                    buf
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}
// ANCHOR_END: shared_world

/// Picks, at compile time, [`shared_world`] for a communicator type `C` that is `Sync`
/// (where the mistake compiles for a learner too), or nothing: a method call on a
/// `&&Probe<C>` finds the impl for `&Probe<C>` first, which exists only when `C: Sync`,
/// and else the one for `&&Probe<C>`.
struct Probe<C>(std::marker::PhantomData<C>);
/// A ring shift over threads, on a communicator of type `C`.
type Ring<C> = fn(&C, &[Vec<f64>]) -> Vec<Vec<f64>>;
trait ShareWorld<C> {
    fn ring(&self) -> Option<Ring<C>>;
}
impl<C: Communicator + Sync> ShareWorld<C> for &Probe<C> {
    fn ring(&self) -> Option<Ring<C>> {
        Some(shared_world::<C>)
    }
}
impl<C> ShareWorld<C> for &&Probe<C> {
    fn ring(&self) -> Option<Ring<C>> {
        None
    }
}

/// [`shared_world`] for `SimpleCommunicator`, where this MPI lets it compile.
fn shared_world_here() -> Option<Ring<SimpleCommunicator>> {
    (&&Probe::<SimpleCommunicator>(std::marker::PhantomData)).ring()
}

#[test]
#[ignore = "planted mistake: started by threads_sharing_world_are_told_of_cross_talk"]
fn planted_shared_world() {
    let ring = shared_world_here().expect("started only where it compiles");
    run_body_with("planted_shared_world", Threading::Multiple, |world| {
        property(world, "each thread gets the message of its partner thread")
            .check(Just(vec![4usize, 8, 8]), |lens| {
                ring_matches(world, lens, ring)
            })
    });
}

#[test]
fn threads_sharing_world_are_told_of_cross_talk() {
    if shared_world_here().is_none() {
        println!(
            "skipped: under this MPI (Open MPI) a communicator holds a pointer and is not \
             Sync, so threads cannot share one in safe Rust: the mistake does not compile"
        );
        return;
    }
    let out = launch_self("planted_shared_world", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(30));
    assert!(text.contains("MPI_Recv("), "{text}");
    assert!(text.contains("cross-talk"), "{text}");
    assert!(
        text.contains("two threads' messages matched each other's receives"),
        "{text}"
    );
    assert!(text.contains("a communicator of its own"), "{text}");
    assert!(
        !text.contains("Assertion failed"),
        "MPICH's abort noise:\n{text}"
    );
    println!("{}", toolkit::testing::learner_view(&out));
}
