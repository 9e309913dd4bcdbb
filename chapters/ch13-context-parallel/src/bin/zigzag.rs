//! Lab: causal ring attention in the plain layout (ex 13.2) and in the zig-zag layout (ex
//! 13.3) over the same sequence. Rank 0 prints, per rank, the pairs of a query chunk and a
//! key chunk (each `seq / 2p` tokens) it computes in each layout (an exact count), the time
//! that work takes without any communication (timed by rank 0 while the other ranks sleep:
//! the best of 5), its time for the whole ring (all ranks at once: the best of 3), and the
//! largest difference between its zig-zag rows and one process's attention.
//!
//! Run: `make run CH=13 BIN=zigzag` (4 ranks; `NP=8`, `ARGS='--seq 4096'`, `ARGS=--help`
//! for the list). A bad flag, or a sequence that 2 x the ranks cannot split, is refused in
//! one line before MPI starts. It needs ex 13.1 to 13.3; until they are written it says
//! which.

use ch13::blocks::{block_of, pairs_computed, zigzag_chunks, zigzag_of, Layout};
use ch13::flags::from_args;
use ch13::lab::{draw, probe_merge};
use ch13::merge::merge;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use ch13::ring::ring_forward;
use ch13::timing::{best_of_3, every_rank_alone};
use ch13::zigzag::zigzag_forward;
use mpi::traits::*;
use tch::Tensor;
use toolkit::gate::unless_todo;

fn main() {
    let flags = from_args("zigzag", trainer_kit::cli::ranks_from_env(), 2);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let [q, k, v] = draw::<3>(&flags);
    let chunk = |x: &Tensor, j: usize| block_of(x, j, 2 * p);
    // Rank r's causal work alone: each of its query chunks i against the key chunks j <= i
    // (the plain layout's own block computes its upper pair too, masked: counted as in
    // `pairs_computed`, it is left out here), merged per query chunk.
    let alone = |r: usize, layout: Layout| -> Vec<Partial> {
        let rows = match layout {
            Layout::Plain => [2 * r, 2 * r + 1],
            Layout::ZigZag => zigzag_chunks(r, p),
        };
        let row = |i: usize| {
            let pair = |j: usize| {
                let mask = if i == j { Mask::Diagonal } else { Mask::Full };
                attend_block(&chunk(&q, i), &chunk(&k, j), &chunk(&v, j), mask)
            };
            let parts = (0..=i).map(pair);
            parts
                .reduce(|a, b| merge(&a, &b))
                .expect("the diagonal pair")
        };
        rows.map(row).into()
    };
    let run = || {
        probe_merge(&q, &k, &v);
        let plain = |x: &Tensor| block_of(x, rank, p);
        let zig = |x: &Tensor| zigzag_of(x, rank, p);
        let alone_plain = every_rank_alone(&world, |r| drop(alone(r, Layout::Plain)));
        let alone_zig = every_rank_alone(&world, |r| drop(alone(r, Layout::ZigZag)));
        let (pq, pk, pv) = (plain(&q), plain(&k), plain(&v));
        let (zq, zk, zv) = (zig(&q), zig(&k), zig(&v));
        let ring_plain = best_of_3(&world, &|| drop(ring_forward(&world, &pq, &pk, &pv, true)));
        let ring_zig = best_of_3(&world, &|| drop(zigzag_forward(&world, &zq, &zk, &zv)));
        let got = zigzag_forward(&world, &zq, &zk, &zv).out;
        let err = (got - zig(&full_attention(&q, &k, &v, true))).abs().max();
        (
            alone_plain,
            alone_zig,
            [ring_plain, ring_zig, err.double_value(&[])],
        )
    };
    let (alone_plain, alone_zig, mine) = unless_todo(&world, run)
        .unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "zigzag", &task));
    let mut all = vec![0f64; 3 * p];
    world.all_gather_into(&mine[..], &mut all[..]);
    if rank != 0 {
        return;
    }
    println!(
        "causal ring attention, {p} rank(s): {} tokens, plain blocks of {}, zig-zag chunks of \
         {} (rank r holds chunks r and {}-r); {} heads x {}, f64, one thread per rank; times \
         in ms",
        flags.seq,
        flags.seq / p,
        flags.seq / (2 * p),
        2 * p - 1,
        flags.heads,
        flags.head_dim
    );
    println!(
        "{:>4}  {:>12} {:>8} {:>8}  {:>14} {:>6} {:>8} {:>8}  {:>8}",
        "rank", "plain: pairs", "alone", "ring", "zig-zag: chunks", "pairs", "alone", "ring", "err"
    );
    for (r, x) in all.chunks(3).enumerate() {
        println!(
            "{r:>4}  {:>12} {:>8.2} {:>8.2}  {:>14} {:>6} {:>8.2} {:>8.2}  {:>8.1e}",
            pairs_computed(r, p, Layout::Plain),
            1e3 * alone_plain[r],
            1e3 * x[0],
            format!("{:?}", zigzag_chunks(r, p)),
            pairs_computed(r, p, Layout::ZigZag),
            1e3 * alone_zig[r],
            1e3 * x[1],
            x[2]
        );
    }
    let most = |layout| {
        (0..p)
            .map(|r| pairs_computed(r, p, layout))
            .max()
            .unwrap_or(0)
    };
    let total = |layout| (0..p).map(|r| pairs_computed(r, p, layout)).sum::<usize>();
    let slowest = |t: &[f64]| t.iter().cloned().fold(0.0, f64::max);
    println!(
        "pairs in all: plain {}, zig-zag {}; the busiest rank: plain {}, zig-zag {}; the \
         slowest rank alone: plain {:.2} ms, zig-zag {:.2} ms (pairs: chunk x chunk, a \
         diagonal one counted as one; err: the largest |zig-zag - one process| in its rows)",
        total(Layout::Plain),
        total(Layout::ZigZag),
        most(Layout::Plain),
        most(Layout::ZigZag),
        1e3 * slowest(&alone_plain),
        1e3 * slowest(&alone_zig)
    );
}
