//! Mistakes learners make in this chapter, planted on purpose, and what the checks say
//! about them. Each `planted_*` function runs the chapter's real property against a wrong
//! ring; it is `#[ignore]`d and started only by the test below it, under mpirun, through
//! `launch_self`. The assertions pin the message a learner will see.
//!
//! Run: `cargo test -p ch03-ring-allreduce --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch03-ring-allreduce/tests/common/mod.rs"]
mod common;

use ch03::chunk_range;
use ch03::ops::{Elem, Op};
use common::{allgather_property, allreduce_property, lengths, reduce_scatter_property};
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::strategy::{Just, Strategy};
use std::time::Duration;
use toolkit::testing::{assert_failed_within, launch_self, run_body};

// ANCHOR: allgather_off_by_one
/// Mistake 1: an allgather that files each received chunk one place too early:
/// `(r - s - 1)` where the sender sent `(r - s)`.
fn allgather_off_by_one<T: Elem>(world: &SimpleCommunicator, data: &mut [T]) {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let len = data.len();
    let mut inbox = vec![T::default(); chunk_range(len, p, 0).len()];
    for s in 0..p - 1 {
        let out = data[chunk_range(len, p, (rank + 1 + p - s) % p)].to_vec();
        let into = chunk_range(len, p, (rank + 2 * p - s - 1) % p); // the mistake: r - s
        send_receive_into(&out[..], &right, &mut inbox[..], &left);
        let n = into.len();
        data[into].copy_from_slice(&inbox[..n]);
    }
}
// ANCHOR_END: allgather_off_by_one

#[test]
#[ignore = "planted mistake: started by an_allgather_off_by_one_is_shrunk"]
fn planted_allgather_off_by_one() {
    run_body("planted_allgather_off_by_one", |world| {
        // Lengths divisible by p: the chunks have equal sizes, only the place is wrong.
        let p = world.size() as usize;
        let lens = (0..=20usize).prop_map(move |k| k * p).boxed();
        allgather_property::<i64>(world, allgather_off_by_one, lens)
    });
}

#[test]
fn an_allgather_off_by_one_is_shrunk() {
    let out = launch_self("planted_allgather_off_by_one", 3, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    // Shrunk to one element per chunk.
    let case = "minimal failing case: Case { op: Sum, len: 3, seed: 0 }";
    assert!(text.contains(case), "{text}");
    assert!(
        text.contains("rank 0 says: rank 0's vector after the allgather: element 0 is -7777"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: everyone_sends_first
/// Mistake 2: a reduce-scatter where every rank sends its chunk, then receives. Fine
/// while a chunk fits under the eager limit; beyond it every send waits for a receive
/// that no rank has started.
fn reduce_scatter_sends_first<T: Elem>(world: &SimpleCommunicator, data: &mut [T], op: Op) {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let len = data.len();
    let mut inbox = vec![T::default(); chunk_range(len, p, 0).len()];
    for s in 0..p - 1 {
        let out = chunk_range(len, p, (rank + p - s) % p);
        let into = chunk_range(len, p, (rank + 2 * p - s - 1) % p);
        right.send(&data[out]); // the mistake: a blocking send before the receive
        let inbox = &mut inbox[..into.len()];
        left.receive_into(inbox);
        op.reduce_into(&mut data[into], inbox);
    }
}
// ANCHOR_END: everyone_sends_first

#[test]
#[ignore = "planted mistake: started by sending_first_deadlocks_and_is_named"]
fn planted_sends_first() {
    run_body("planted_sends_first", |world| {
        reduce_scatter_property::<f64>(world, reduce_scatter_sends_first, Just(3 << 16).boxed())
    });
}

#[test]
fn sending_first_deadlocks_and_is_named() {
    let out = launch_self("planted_sends_first", 3, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(20));
    // 3·2^16 f64 over 3 ranks: chunks of 2^16 f64, 524288 bytes each.
    for rank in 0..3u32 {
        let line = out
            .rank_lines(rank)
            .into_iter()
            .find(|l| l.contains("DEADLOCK?"));
        let line = line.unwrap_or_else(|| panic!("rank {rank} did not report:\n{text}"));
        let call = format!(
            "blocked in MPI_Send(dest={} tag=0 524288 bytes)",
            (rank + 1) % 3
        );
        assert!(line.contains(&call), "rank {rank}: {line}");
    }
    println!("{text}");
}

// ANCHOR: chunks_floor
/// Mistake 3: chunks of `len / p` elements, the remainder forgotten. Right when p
/// divides len; when `len < p` every chunk is empty and nothing is reduced at all.
fn chunk_floor(len: usize, p: usize, i: usize) -> std::ops::Range<usize> {
    let size = len / p; // the mistake: the last `len % p` elements belong to no chunk
    i * size..(i + 1) * size
}
// ANCHOR_END: chunks_floor

/// A correct ring over the wrong chunks (reduce-scatter, then allgather).
fn allreduce_floor_chunks<T: Elem>(world: &SimpleCommunicator, xs: &[T], op: Op) -> Vec<T> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let right = world.process_at_rank(((rank + 1) % p) as i32);
    let left = world.process_at_rank(((rank + p - 1) % p) as i32);
    let (len, mut data) = (xs.len(), xs.to_vec());
    let mut inbox = vec![T::default(); len / p];
    for s in 0..p - 1 {
        let out = data[chunk_floor(len, p, (rank + p - s) % p)].to_vec();
        send_receive_into(&out[..], &right, &mut inbox[..], &left);
        op.reduce_into(
            &mut data[chunk_floor(len, p, (rank + 2 * p - s - 1) % p)],
            &inbox,
        );
    }
    for s in 0..p - 1 {
        let out = data[chunk_floor(len, p, (rank + 1 + p - s) % p)].to_vec();
        send_receive_into(&out[..], &right, &mut inbox[..], &left);
        data[chunk_floor(len, p, (rank + p - s) % p)].copy_from_slice(&inbox);
    }
    data
}

#[test]
#[ignore = "planted mistake: started by chunks_that_forget_the_remainder_are_caught"]
fn planted_floor_chunks() {
    run_body("planted_floor_chunks", |world| {
        let lens = lengths(world.size());
        allreduce_property::<i32>(world, "floor chunks", allreduce_floor_chunks, lens)
    });
}

#[test]
fn chunks_that_forget_the_remainder_are_caught() {
    let out = launch_self("planted_floor_chunks", 4, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    // Shrunk to a single element (len 1 < p = 4): rank 0 kept its own value.
    let case = "minimal failing case: Case { op: Sum, len: 1, seed: 0 }";
    assert!(text.contains(case), "{text}");
    assert!(
        text.contains("rank 0 says: allreduce with Sum of 1 elements: element 0 is"),
        "{text}"
    );
    println!("{text}");
}

#[path = "planted_trees.rs"]
mod planted_trees;
