//! Lab: the messages your collectives really send, round by round, traced as they run
//! and drawn as figures (one arrow per message).
//!
//! Run: `make run CH=02 BIN=patterns NP=8` (your code; `SOLUTION=1` for the answers).
//! Expect, for the binomial broadcast (ex 2.2) and reduce (ex 2.3) on all ranks, and the
//! ring allgather (ex 2.6) and pairwise alltoall (ex 2.7) on the first 4 ranks: one line
//! per round, `a->b` for each message with what it carried, and an SVG under
//! `target/workbook/`. An exercise still at `todo!()` is named and skipped. The book's
//! figures on the algorithms page are this lab's output with the solutions at 8 ranks.

use ch02::broadcast::broadcast_binomial;
use ch02::exchange::{allgather_ring, alltoall_pairwise};
use ch02::ops::Op;
use ch02::reduce::reduce_binomial;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use toolkit::trace;

/// How many ranks the ring allgather and the alltoall are drawn on (more would crowd).
const SMALL: i32 = 4;

/// Runs `f` on every rank of `comm` with the message trace on; rank 0 prints the rounds
/// and writes the figure `file`, each message labelled by `label(its first value)`.
fn figure(
    comm: &SimpleCommunicator,
    name: &str,
    file: &str,
    label: impl Fn(i64) -> String,
    f: impl FnOnce(),
) {
    trace::start();
    let ran = toolkit::gate::unless_todo(comm, f);
    let log = trace::stop();
    if let Err(todo) = ran {
        if comm.rank() == 0 {
            println!("{name}: skipped, `{todo}` is still a stub (todo!)\n");
        }
        return;
    }
    let Some(logs) = trace::gather(comm, &log, |m| m.first) else {
        return;
    };
    trace::draw(name, "round", &logs, label, file);
    println!();
}

/// `x2..x5` for a sum of `1 << r` over ranks 2 to 5: which ranks a partial result holds.
fn ranks_in(mask: i64) -> String {
    let (lo, hi) = (mask.trailing_zeros(), 63 - mask.leading_zeros());
    match mask {
        0 => "nothing".into(),
        _ if mask.count_ones() == hi - lo + 1 && lo == hi => format!("x{lo}"),
        _ if mask.count_ones() == hi - lo + 1 => format!("x{lo}..x{hi}"),
        _ => format!("ranks {mask:#b}"),
    }
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let rank = world.rank();
    let p = world.size();
    if rank == 0 {
        println!(
            "{p} ranks; each arrow a->b is one message, in the round it could first be sent\n"
        );
    }
    let mut buf = [42i64];
    let bcast = || broadcast_binomial(&world, 0, &mut buf);
    figure(
        &world,
        "broadcast, binomial tree (ex 2.2)",
        "ch02-broadcast.svg",
        |_| String::new(),
        bcast,
    );
    // Rank r contributes 1 << r: a partial sum says which ranks it holds.
    let mine = [1i64 << rank];
    let reduce = || {
        reduce_binomial(&world, 0, &mine, Op::Sum);
    };
    figure(
        &world,
        "reduce to rank 0, binomial tree (ex 2.3)",
        "ch02-reduce.svg",
        ranks_in,
        reduce,
    );

    let color = if rank < SMALL {
        Color::with_value(0)
    } else {
        Color::undefined()
    };
    let Some(small) = world.split_by_color(color) else {
        return;
    };
    // Block j of rank r is 100 r + j, so a message names its block.
    let q = small.size() as i64;
    let block = |v: i64| format!("B{}{}", v / 100, v % 100);
    let gather = || {
        allgather_ring(&small, &[100 * i64::from(rank)]);
    };
    let own = |v: i64| format!("B{}", v / 100);
    figure(
        &small,
        "allgather, ring (ex 2.6)",
        "ch02-allgather.svg",
        own,
        gather,
    );
    let send: Vec<i64> = (0..q).map(|j| 100 * i64::from(rank) + j).collect();
    let alltoall = || {
        alltoall_pairwise(&small, &send);
    };
    figure(
        &small,
        "alltoall, pairwise (ex 2.7)",
        "ch02-alltoall.svg",
        block,
        alltoall,
    );
}
