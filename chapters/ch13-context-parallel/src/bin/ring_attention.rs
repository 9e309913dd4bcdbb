//! Lab: ring attention (ex 13.2, merging with ex 13.1) over a sequence split into one
//! block per rank, causal and not. Every rank draws the same queries, keys and values
//! (f64, seeded) and keeps its block; rank 0 prints, per rank, the key blocks it attended
//! to, the time its attention to them takes without any communication (timed by rank 0,
//! which holds the whole sequence, while the other ranks sleep: the best of 5), its time
//! for the ring (all ranks at once: the best of 3),
//! and the largest difference between its rows of the output and one process's attention
//! over the whole sequence.
//!
//! Run: `make run CH=13` (4 ranks; `NP=8`, `ARGS='--seq 4096'`, `ARGS=--help` for the
//! list). A bad flag, or a sequence the ranks cannot split, is refused in one line before
//! MPI starts. It needs ex 13.1 and 13.2; until they are written it says which.

use ch13::blocks::{block_of, blocks_attended};
use ch13::flags::from_args;
use ch13::lab::{draw, probe_merge};
use ch13::merge::merge;
use ch13::partial::{attend_block, full_attention, Mask};
use ch13::ring::ring_forward;
use ch13::timing::{best_of_3, every_rank_alone};
use mpi::traits::*;
use tch::Tensor;
use toolkit::gate::unless_todo;

fn main() {
    let flags = from_args("ring_attention", trainer_kit::cli::ranks_from_env(), 1);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let [q, k, v] = draw::<3>(&flags);
    let mine = |x: &Tensor| block_of(x, rank, p);
    let (mq, mk, mv) = (mine(&q), mine(&k), mine(&v));
    // Rank `r`'s attention to its blocks with no communication: its work alone.
    let alone = |r: usize, causal: bool| {
        let last = if causal { r } else { p - 1 };
        let qr = block_of(&q, r, p);
        (0..=last)
            .map(|src| {
                let mask = if causal && src == r {
                    Mask::Diagonal
                } else {
                    Mask::Full
                };
                attend_block(&qr, &block_of(&k, src, p), &block_of(&v, src, p), mask)
            })
            .reduce(|a, b| merge(&a, &b))
    };
    let rows = |causal: bool| {
        let work = every_rank_alone(&world, |r| drop(alone(r, causal)));
        let ring = best_of_3(&world, &|| {
            drop(ring_forward(&world, &mq, &mk, &mv, causal))
        });
        let got = ring_forward(&world, &mq, &mk, &mv, causal).out;
        let want = block_of(&full_attention(&q, &k, &v, causal), rank, p);
        let err = (got - want).abs().max().double_value(&[]);
        (work, [ring, err])
    };
    let runs = unless_todo(&world, || {
        probe_merge(&q, &k, &v);
        [rows(true), rows(false)]
    });
    let [(causal_alone, causal), (full_alone, full)] =
        runs.unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "ring_attention", &task));
    let row = [causal[0], full[0], causal[1], full[1]];
    let mut all = vec![0f64; 4 * p];
    world.all_gather_into(&row[..], &mut all[..]);
    if rank != 0 {
        return;
    }
    println!(
        "ring attention, {p} rank(s): {} tokens in blocks of {}, {} heads x {}, f64, one \
         thread per rank; times in ms (alone: the best of 5, ring: the best of 3)",
        flags.seq,
        flags.seq / p,
        flags.heads,
        flags.head_dim
    );
    println!(
        "{:>4}  {:>14} {:>8} {:>8}  {:>12} {:>8} {:>8}  {:>10} {:>10}",
        "rank",
        "causal: blocks",
        "alone",
        "ring",
        "full: blocks",
        "alone",
        "ring",
        "err causal",
        "err full"
    );
    for (r, x) in all.chunks(4).enumerate() {
        println!(
            "{r:>4}  {:>14} {:>8.2} {:>8.2}  {:>12} {:>8.2} {:>8.2}  {:>10.1e} {:>10.1e}",
            format!("{} of {p}", blocks_attended(r, p, true)),
            1e3 * causal_alone[r],
            1e3 * x[0],
            format!("{} of {p}", blocks_attended(r, p, false)),
            1e3 * full_alone[r],
            1e3 * x[1],
            x[2],
            x[3]
        );
    }
    let causal: usize = (0..p).map(|r| blocks_attended(r, p, true)).sum();
    println!(
        "causal: {causal} block pairs of {} in all (alone: the rank's blocks attended with no \
         communication, timed by rank 0 while the others sleep; ring: ex 13.2, all ranks at \
         once; err: the largest |ours - one process| in the rank's rows)",
        p * p
    );
}
