//! Lab: Ulysses attention (ex 13.4) next to ring attention (ex 13.2) over the same
//! sequence, causal. Rank 0 prints, per rank, the bytes it sends in one forward pass of
//! each (the ring's counted from its messages; Ulysses' two all-to-alls run inside MPI and
//! are given by the formula), each by the formula, each one's work alone (timed by rank 0
//! while the others sleep: the best of 5) and its time with all ranks at once (the best of
//! 3), and Ulysses' largest difference from one process's attention.
//!
//! Run: `make run CH=13 BIN=ulysses` (4 ranks; `NP=8 ARGS='--heads 8'`, `ARGS=--help` for
//! the list). A bad flag, a sequence the ranks cannot split, or heads they cannot split
//! evenly is refused in one line before MPI starts. It needs ex 13.1, 13.2 and 13.4; until
//! they are written it says which.

use ch13::blocks::block_of;
use ch13::flags::from_args;
use ch13::lab::{draw, probe_merge};
use ch13::merge::merge;
use ch13::partial::{attend_block, full_attention, Mask};
use ch13::ring::ring_forward;
use ch13::timing::{best_of_3, every_rank_alone};
use ch13::ulysses::ulysses_forward;
use mpi::traits::*;
use tch::Tensor;
use toolkit::gate::unless_todo;

fn main() {
    let ranks = trainer_kit::cli::ranks_from_env();
    let flags = from_args("ulysses", ranks, 1);
    if let Err(why) = flags.check_heads(ranks) {
        eprintln!("ulysses: {why}");
        std::process::exit(2);
    }
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let [q, k, v] = draw::<3>(&flags);
    let mine = |x: &Tensor| block_of(x, rank, p);
    let (mq, mk, mv) = (mine(&q), mine(&k), mine(&v));
    let run = || {
        probe_merge(&q, &k, &v); // ex 13.1 on every rank at once: the ring merges
                                 // Each rank's work alone, timed by rank 0 while the others sleep: the ring's causal
                                 // blocks (its own masked, the earlier ones in full), Ulysses' heads over the whole
                                 // sequence.
        let h = (flags.heads / p) as i64;
        let alone_ring = every_rank_alone(&world, |r| {
            let qr = block_of(&q, r, p);
            let parts = (0..=r).map(|src| {
                let mask = if src == r { Mask::Diagonal } else { Mask::Full };
                attend_block(&qr, &block_of(&k, src, p), &block_of(&v, src, p), mask)
            });
            drop(parts.reduce(|a, b| merge(&a, &b)));
        });
        let alone_ulysses = every_rank_alone(&world, |r| {
            let heads = |x: &Tensor| x.narrow(1, r as i64 * h, h);
            drop(full_attention(&heads(&q), &heads(&k), &heads(&v), true));
        });
        toolkit::trace::start();
        drop(ring_forward(&world, &mq, &mk, &mv, true));
        let log = toolkit::trace::stop();
        let ring_sent: i64 = log.iter().filter(|m| m.sent).map(|m| m.bytes).sum();
        let ring = best_of_3(&world, &|| drop(ring_forward(&world, &mq, &mk, &mv, true)));
        let ulysses = best_of_3(&world, &|| {
            drop(ulysses_forward(&world, &mq, &mk, &mv, true))
        });
        let got = ulysses_forward(&world, &mq, &mk, &mv, true);
        let err = (got - mine(&full_attention(&q, &k, &v, true))).abs().max();
        let mine = [ring_sent as f64, ring, ulysses, err.double_value(&[])];
        (alone_ring, alone_ulysses, mine)
    };
    let (alone_ring, alone_ulysses, row) = unless_todo(&world, run)
        .unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "ulysses", &task));
    let mut all = vec![0f64; 4 * p];
    world.all_gather_into(&row[..], &mut all[..]);
    if rank != 0 {
        return;
    }
    let block = (flags.seq / p * flags.heads * flags.head_dim * 8) as f64; // one tensor's block, B
    let ring_formula = (p - 1) as f64 * 2.0 * block;
    let ulysses_formula = 4.0 * block * (p - 1) as f64 / p as f64;
    println!(
        "causal attention, {p} rank(s): {} tokens in blocks of {}, {} heads x {} ({} a rank in \
         Ulysses), f64, one thread per rank; bytes each rank sends in one forward pass; times \
         in ms (alone: the rank's attention with no communication, timed by rank 0 while the \
         others sleep, the best of 5; all: all ranks at once, the best of 3)",
        flags.seq,
        flags.seq / p,
        flags.heads,
        flags.head_dim,
        flags.heads / p
    );
    println!(
        "{:>4}  {:>12} {:>10} {:>6} {:>6}  {:>15} {:>10} {:>6} {:>6}  {:>11}",
        "rank",
        "ring: sent B",
        "formula B",
        "alone",
        "all",
        "Ulysses: sent B",
        "formula B",
        "alone",
        "all",
        "err Ulysses"
    );
    for (r, x) in all.chunks(4).enumerate() {
        println!(
            "{r:>4}  {:>12} {:>10.0} {:>6.1} {:>6.1}  {:>15} {:>10.0} {:>6.1} {:>6.1}  {:>11.1e}",
            x[0],
            ring_formula,
            1e3 * alone_ring[r],
            1e3 * x[1],
            "inside MPI",
            ulysses_formula,
            1e3 * alone_ulysses[r],
            1e3 * x[2],
            x[3]
        );
    }
    let here = match p {
        1 => "at one rank neither sends anything".to_string(),
        _ => format!(
            "the ring sends p/2 = {:.1} x Ulysses' bytes here",
            p as f64 / 2.0
        ),
    };
    println!(
        "formulas (a block: t x H x d values of 8 B): the ring sends (p - 1) x 2 blocks (k and v, \
         every step but the last), the same at any p; Ulysses 4 x (p - 1)/p blocks (q, k and v \
         to the heads' ranks, the output back), less as p grows: {here}"
    );
}
