//! Lab: ring attention's forward (ex 13.2) and backward (ex 13.5) passes, causal, over the
//! same sequence. Rank 0 prints, per rank, the bytes it sends in each pass (counted from
//! its messages) next to the formula, each pass's time (all ranks at once: the best of 3),
//! and the largest difference of its dQ, dK and dV from LibTorch's autograd on one process.
//!
//! Run: `make run CH=13 BIN=backward` (4 ranks; `NP=8`, `ARGS='--seq 4096'`, `ARGS=--help`
//! for the list). A bad flag, or a sequence the ranks cannot split, is refused in one line
//! before MPI starts. It needs ex 13.1, 13.2 and 13.5; until they are written it says which.

use ch13::backward::ring_backward;
use ch13::blocks::block_of;
use ch13::flags::from_args;
use ch13::lab::{draw, probe_merge};
use ch13::partial::full_attention;
use ch13::ring::ring_forward;
use ch13::timing::best_of_3;
use mpi::traits::*;
use tch::{Kind, Tensor};
use toolkit::gate::unless_todo;

fn main() {
    let flags = from_args("backward", trainer_kit::cli::ranks_from_env(), 1);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let [q, k, v, dout] = draw::<4>(&flags);
    let mine = |x: &Tensor| block_of(x, rank, p);
    let (mq, mk, mv, mdo) = (mine(&q), mine(&k), mine(&v), mine(&dout));
    // What each pass sends, counted from this rank's messages.
    let sent = |f: &dyn Fn()| {
        toolkit::trace::start();
        f();
        let log = toolkit::trace::stop();
        log.iter().filter(|m| m.sent).map(|m| m.bytes).sum::<i64>() as f64
    };
    let run = || {
        probe_merge(&q, &k, &v); // ex 13.1 on every rank at once: the forward pass merges
        let fwd = ring_forward(&world, &mq, &mk, &mv, true);
        let sent_fwd = sent(&|| drop(ring_forward(&world, &mq, &mk, &mv, true)));
        let sent_bwd = sent(&|| drop(ring_backward(&world, &mq, &mk, &mv, &fwd, &mdo, true)));
        let t_fwd = best_of_3(&world, &|| drop(ring_forward(&world, &mq, &mk, &mv, true)));
        let t_bwd = best_of_3(&world, &|| {
            drop(ring_backward(&world, &mq, &mk, &mv, &fwd, &mdo, true))
        });
        let got = ring_backward(&world, &mq, &mk, &mv, &fwd, &mdo, true);
        let leaf = |x: &Tensor| x.detach().set_requires_grad(true);
        let (lq, lk, lv) = (leaf(&q), leaf(&k), leaf(&v));
        (full_attention(&lq, &lk, &lv, true) * &dout)
            .sum(Kind::Double)
            .backward();
        let far = |a: &Tensor, b: &Tensor| (a - mine(b)).abs().max().double_value(&[]);
        let err = far(&got.dq, &lq.grad())
            .max(far(&got.dk, &lk.grad()))
            .max(far(&got.dv, &lv.grad()));
        [sent_fwd, sent_bwd, t_fwd, t_bwd, err]
    };
    let row = unless_todo(&world, run)
        .unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "backward", &task));
    let mut all = vec![0f64; 5 * p];
    world.all_gather_into(&row[..], &mut all[..]);
    if rank != 0 {
        return;
    }
    let block = (flags.seq / p * flags.heads * flags.head_dim * 8) as f64; // one tensor's block, B
    let (fwd_formula, bwd_formula) = (
        2.0 * block * (p - 1) as f64,
        2.0 * block * (p - 1) as f64 + 2.0 * block * if p > 1 { p as f64 } else { 0.0 },
    );
    println!(
        "causal ring attention, {p} rank(s): {} tokens in blocks of {}, {} heads x {}, f64, one \
         thread per rank; bytes each rank sends in each pass; times in ms (all ranks at once, \
         the best of 3)",
        flags.seq,
        flags.seq / p,
        flags.heads,
        flags.head_dim
    );
    println!(
        "{:>4}  {:>14} {:>10} {:>8}  {:>15} {:>10} {:>8}  {:>10}",
        "rank",
        "forward: sent B",
        "formula B",
        "ms",
        "backward: sent B",
        "formula B",
        "ms",
        "err grads"
    );
    for (r, x) in all.chunks(5).enumerate() {
        println!(
            "{r:>4}  {:>14} {:>10.0} {:>8.2}  {:>15} {:>10.0} {:>8.2}  {:>10.1e}",
            x[0],
            fwd_formula,
            1e3 * x[2],
            x[1],
            bwd_formula,
            1e3 * x[3],
            x[4]
        );
    }
    println!(
        "formulas (a block: t x H x d values of 8 B): forward (p - 1) x 2 blocks (k and v); \
         backward the same k and v, and p x 2 blocks of dK and dV (each step's accumulators, \
         the last hop home included); err grads: the largest |ours - autograd| of dQ, dK, dV"
    );
}
