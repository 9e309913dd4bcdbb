//! Mistakes learners make in this chapter, planted on purpose: each test asserts that the
//! checks DIAGNOSE the mistake (which rank, which root, which call, which op), not just
//! that something failed.
//!
//! Run: `cargo test -p ch02-collectives --features solution --test planted_mistakes --
//! --nocapture` to see the messages. The `planted_*` functions are the faulty programs;
//! they are `#[ignore]`d and started only by the test below each, under mpirun, through
//! `launch_self`.

use ch02::ops::{Elem, Op};
use ch02::reference;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use proptest::sample::select;
use std::time::Duration;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, launch_self, run_body};

/// Rank r's test vector: `len` values that differ between ranks.
fn data(rank: i32, len: usize, base: i32) -> Vec<i64> {
    (0..len as i64)
        .map(|i| i64::from(base) + 100 * i64::from(rank) + i)
        .collect()
}

// ANCHOR: wrong_root
/// Mistake 1: a linear broadcast that always sends from rank 0, whatever `root` says.
fn broadcast_from_rank_0(world: &SimpleCommunicator, _root: i32, buf: &mut [i64]) {
    let root = 0; // the mistake: ignores the root argument
    if world.rank() == root {
        for r in 1..world.size() {
            world.process_at_rank(r).send(&buf[..]);
        }
    } else {
        world.process_at_rank(root).receive_into(buf);
    }
}
// ANCHOR_END: wrong_root

#[test]
#[ignore = "planted mistake: started by a_wrong_root_is_named"]
fn planted_wrong_root() {
    run_body("planted_wrong_root", |world| {
        let (rank, size) = (world.rank(), world.size());
        property(world, "broadcast equals MPI_Bcast")
            .cases(32)
            .check((0..size, 0..40usize, any::<i16>()), |&(root, len, base)| {
                let mut got = data(rank, len, base.into());
                let mut want = got.clone();
                broadcast_from_rank_0(world, root, &mut got);
                reference::broadcast(world, root, &mut want);
                exact(
                    &format!("buffer after a broadcast from root {root}"),
                    &got,
                    &want,
                )
            })
    });
}

#[test]
fn a_wrong_root_is_named() {
    let out = launch_self("planted_wrong_root", 3, &[]);
    let text = out.text();
    assert!(!out.success(), "the wrong root went unnoticed:\n{text}");
    // Shrinking ends at root 1 (root 0 passes) with one element; rank 0 fails first: it
    // kept its own data instead of root 1's.
    assert!(text.contains("minimal failing case: (1, 1, 0)"), "{text}");
    assert!(
        text.contains("rank 0 says: buffer after a broadcast from root 1: element 0"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: missing_send
/// Mistake 2: a binomial broadcast whose send loop stops one round early (`mask > 1`),
/// so every parent skips its last child: the children wait in a receive forever.
fn broadcast_skipping_a_child(world: &SimpleCommunicator, root: i32, buf: &mut [i64]) {
    let (rank, size) = (world.rank(), world.size());
    let me = (rank - root + size) % size;
    let mut mask = 1;
    while mask < size {
        if me & mask != 0 {
            world
                .process_at_rank((me - mask + root) % size)
                .receive_into(buf);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 1 {
        // the mistake: `mask > 0` sends to the child at distance 1 too
        if me + mask < size {
            world
                .process_at_rank((me + mask + root) % size)
                .send(&buf[..]);
        }
        mask >>= 1;
    }
}
// ANCHOR_END: missing_send

#[test]
#[ignore = "planted mistake: started by a_missing_send_is_named_by_the_watchdog"]
fn planted_missing_send() {
    run_body("planted_missing_send", |world| {
        let rank = world.rank();
        property(world, "binomial broadcast from root 0")
            .cases(4)
            .check(1..40usize, |&len| {
                let mut got = data(rank, len, 7);
                broadcast_skipping_a_child(world, 0, &mut got);
                exact(
                    "buffer after a broadcast from root 0",
                    &got,
                    &data(0, len, 7),
                )
            })
    });
}

#[test]
fn a_missing_send_is_named_by_the_watchdog() {
    let out = launch_self("planted_missing_send", 4, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(20));
    // With 4 ranks, root 0 sends only to 2 (skipping 1), and 2 skips 3.
    for (rank, parent) in [(1, 0), (3, 2)] {
        let line = out
            .rank_lines(rank)
            .into_iter()
            .find(|l| l.contains("DEADLOCK?"));
        let line = line.unwrap_or_else(|| panic!("rank {rank} did not report:\n{text}"));
        assert!(
            line.contains(&format!("blocked in MPI_Recv(source={parent} ")),
            "{line}"
        );
    }
    println!("{text}");
}

// ANCHOR: wrong_order
/// Mistake 3: a tree reduce that puts the received partial result on the LEFT. Right for
/// commutative ops (sum, max, ...), wrong for `Op::First`, where order is the result.
fn reduce_received_on_the_left<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let (rank, size) = (world.rank(), world.size());
    let mut acc = xs.to_vec();
    let mut theirs = vec![T::default(); xs.len()];
    let mut mask = 1;
    while mask < size {
        if rank & mask != 0 {
            world.process_at_rank(rank - mask).send(&acc[..]);
            break;
        }
        if rank + mask < size {
            world
                .process_at_rank(rank + mask)
                .receive_into(&mut theirs[..]);
            op.fold_left_into(&theirs, &mut acc); // the mistake: should be fold_right_into
        }
        mask <<= 1;
    }
    acc // meaningful on rank 0, the root of this tree
}
// ANCHOR_END: wrong_order

#[test]
#[ignore = "planted mistake: started by a_commutativity_assumption_is_caught"]
fn planted_commutativity_assumption() {
    run_body("planted_commutativity_assumption", |world| {
        let rank = world.rank();
        property(world, "reduce to rank 0 equals MPI_Reduce")
            .cases(32)
            .check(
                (select(&Op::ALL[..]), 1..20usize, any::<i16>()),
                |&(op, len, base)| {
                    let xs = data(rank, len, base.into());
                    let got = reduce_received_on_the_left(world, &xs, op);
                    match reference::reduce(world, 0, &xs, op) {
                        Some(want) => exact(&format!("reduce with {op:?}"), &got, &want),
                        None => Ok(()),
                    }
                },
            )
    });
}

#[test]
fn a_commutativity_assumption_is_caught() {
    let out = launch_self("planted_commutativity_assumption", 2, &[]);
    let text = out.text();
    assert!(!out.success(), "the wrong order went unnoticed:\n{text}");
    // Only the non-commutative op fails; shrinking keeps it and cuts the rest.
    assert!(
        text.contains("minimal failing case: (First, 1, 0)"),
        "{text}"
    );
    assert!(
        text.contains("rank 0 says: reduce with First: element 0 is 100 but expected 0"),
        "{text}"
    );
    println!("{text}");
}

#[path = "../../chapters/ch02-collectives/tests/common/blocks.rs"]
mod blocks;

// ANCHOR: bruck_not_rotated
/// Mistake: ex 2.10 that returns its blocks in the order it gathered them (its own first,
/// then rank + 1's, ...), without putting each in its rank's place.
fn bruck_not_rotated(world: &SimpleCommunicator, mine: &[i64]) -> Vec<i64> {
    let (rank, p, n) = (world.rank() as usize, world.size() as usize, mine.len());
    let mut held = vec![0; n * p];
    held[..n].copy_from_slice(mine);
    let mut d = 1;
    while d < p {
        let count = d.min(p - d) * n;
        let to = world.process_at_rank(((rank + p - d) % p) as i32);
        let from = world.process_at_rank(((rank + d) % p) as i32);
        let (sent, rest) = held.split_at_mut(d * n);
        mpi::point_to_point::send_receive_into(&sent[..count], &to, &mut rest[..count], &from);
        d *= 2;
    }
    held // the mistake: block i belongs at place (rank + i) % p
}
// ANCHOR_END: bruck_not_rotated

toolkit::mpi_test! {
    fn ex2_10_blocks_not_rotated_back_are_named(world at &[3]) {
        let got = blocks::blocks_in_place(world, bruck_not_rotated);
        toolkit::planted::named(got, "in the order it gathered them")
    }
}
