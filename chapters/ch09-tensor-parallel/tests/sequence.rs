//! Checks of exercise 9.7 (optional: the MLP with sequence parallelism) at t = 1..4 ranks,
//! in f64 and f32, on 2 x 12 tokens (12 divides by 1, 2, 3, 4): each rank's tokens of the
//! output and of the input's gradient, and its slices of the parameters' gradients,
//! against one process's MLP (within `compare::block_bound`; b2's summed over the ranks,
//! since each rank adds it to its own tokens only); and its collectives counted
//! by the harness: an allgather and a reduce-scatter forward, the same two backward, each
//! of b*s*h/t values, and no allreduce.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main sequence::`.

use crate::common;

use crate::common::{close, RANKS};
use ch09::compare::block_bound;
use ch09::params::BlockConfig;
use ch09::sequence::sp_mlp_forward;
use ch09::tape::Tape;
use ch09::tp::Tp;
use tch::Kind;
use toolkit::mpi_test;
use toolkit::tally::{self, Collective};

mpi_test! {
    fn ex9_7_the_sequence_parallel_mlp_equals_one_process_on_each_ranks_tokens(world at RANKS) {
        let tp = Tp::new(world);
        let (t, r) = (tp.size(), tp.rank());
        let cfg = BlockConfig::new(2, 12, 48, 12)?;
        let (s0, n) = ((r * cfg.seq / t) as i64, (cfg.seq / t) as i64);
        for kind in [Kind::Double, Kind::Float] {
            let case = common::Case::at(cfg, kind);
            let (want, want_grads) = case.reference(t, r, ch09::reference::mlp);
            let mine = common::shard_of(&case.whole, &cfg, t, r);
            let xs = case.x.narrow(1, s0, n).detach().copy().set_requires_grad(true);
            let mut tape = Tape::new();
            tally::start();
            let got = sp_mlp_forward(&mut tape, &tp, &mine, &xs);
            let forward = tally::stop();
            tally::start();
            let _ = tape.backward(&got, &case.dy.narrow(1, s0, n));
            let backward = tally::stop();
            // b2 is added on this rank's tokens only: its gradient here is this rank's
            // part, and the whole is their sum (before any check may return early).
            let b2_total = tp.sum(&mine.grads().b2);

            let bound = |reference: &tch::Tensor| block_bound(reference, cfg.ffn);
            let want_mine = want.narrow(1, s0, n);
            close("this rank's tokens of the output", &tp, &got, &want_mine, bound(&want_mine))?;
            let dx = case.x.grad().narrow(1, s0, n);
            close("this rank's tokens of the input's gradient", &tp, &xs.grad(), &dx, bound(&dx))?;
            let g = mine.grads();
            let pairs = [
                ("mlp1.weight", &g.w1, &want_grads.w1),
                ("mlp1.bias", &g.b1, &want_grads.b1),
                ("mlp2.weight", &g.w2, &want_grads.w2),
                ("mlp2.bias summed over the ranks", &b2_total, &want_grads.b2),
            ];
            for (name, got, want) in pairs {
                close(&format!("the gradient of {name}"), &tp, got, want, bound(want))?;
            }
            let bytes = (cfg.batch * cfg.seq * cfg.hidden / t * kind.elt_size_in_bytes()) as i64;
            let call = |name| Collective { name, bytes };
            let (gather, scatter) = (call("MPI_Allgather"), call("MPI_Reduce_scatter_block"));
            let (want_fwd, want_bwd) = (vec![gather, scatter], vec![gather, scatter]);
            if forward != want_fwd || backward != want_bwd {
                return Err(format!(
                    "rank {r} of {t}: forward called {forward:?}, backward {backward:?}; expected \
                     an allgather then a reduce-scatter each way (the backward: the reduce-scatter's \
                     allgather first, then the allgather's reduce-scatter), each of b*s*h/t = {} \
                     values, and no allreduce",
                    bytes as usize / kind.elt_size_in_bytes()
                ));
            }
        }
        Ok(())
    }
}
