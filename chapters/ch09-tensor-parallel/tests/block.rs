//! Checks of the whole tensor-parallel transformer block (attention + MLP, the layer
//! norms given) at t = 1..4 ranks, in f64 and f32: its output, its input's gradient and
//! every parameter's gradient (rank r's slice) against one process's block, within
//! `compare::block_bound`; its collectives counted by the harness (2 allreduces of b*s*h
//! values forward, 2 backward); and the layouts it must refuse, before any communication.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.5) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main block::`.

use crate::common;

use crate::common::{close, drawn, RANKS};
use ch09::block::forward_backward;
use ch09::compare::block_bound;
use ch09::counts::{allreduce_elements, ALLREDUCES};
use ch09::params::{BlockConfig, BlockParams};
use ch09::tp::Tp;
use tch::Kind;
use toolkit::mpi_test;
use toolkit::tally;

mpi_test! {
    fn the_block_equals_one_process_forward_and_backward(world at RANKS) {
        let tp = Tp::new(world);
        let cfg = common::config();
        let (t, r) = (tp.size(), tp.rank());
        for kind in [Kind::Double, Kind::Float] {
            let case = common::Case::new(kind);
            let (want, want_grads) = case.reference(t, r, |p, x| ch09::reference::block(p, &cfg, x));
            let (x, dy) = (&case.x, &case.dy);
            let mine = case.whole.shard(&cfg, t, r)?; // the block's own shard (ex 9.1, 9.3)
            let (y, dx) = forward_backward(&tp, &mine, &cfg, &x.detach(), dy);
            let bound = |reference: &tch::Tensor| block_bound(reference, cfg.ffn);
            close(&format!("the block's output ({kind:?})"), &tp, &y, &want, bound(&want))?;
            close(&format!("the block input's gradient ({kind:?})"), &tp, &dx, &x.grad(), bound(&x.grad()))?;
            let got_grads = mine.grads();
            for ((name, got), (_, want)) in got_grads.named().into_iter().zip(want_grads.named()) {
                close(&format!("the gradient of {name} ({kind:?})"), &tp, got, want, bound(want))?;
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn a_block_calls_two_allreduces_forward_and_two_backward(world at RANKS) {
        let tp = Tp::new(world);
        let cfg = common::config();
        let p = BlockParams::whole(&cfg, Kind::Float, 7).shard(&cfg, tp.size(), tp.rank())?;
        let shape = [cfg.batch as i64, cfg.seq as i64, cfg.hidden as i64];
        let x = drawn(&shape, Kind::Float, 8);
        let mut tape = ch09::tape::Tape::new();
        tally::start();
        let y = ch09::block::block_forward(&mut tape, &tp, &p, &cfg, &x);
        let forward = tally::stop();
        tally::start();
        let _dx = tape.backward(&y, &y.ones_like());
        let backward = tally::stop();
        let bytes = 4 * allreduce_elements(&cfg) as i64;
        for (pass, log, want) in [("forward", &forward, ALLREDUCES.0), ("backward", &backward, ALLREDUCES.1)] {
            let each: Vec<i64> = log.iter().map(|c| c.bytes).collect();
            let only_allreduces = log.iter().all(|c| c.name == "MPI_Allreduce");
            if !only_allreduces || each != vec![bytes; want] {
                return Err(format!(
                    "rank {} of {}: the block's {pass} called {log:?}; expected {want} \
                     MPI_Allreduce of b*s*h = {} f32 values ({bytes} bytes) each",
                    tp.rank(), tp.size(), allreduce_elements(&cfg)
                ));
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn bad_layouts_are_refused_before_any_communication(world at &[3]) {
        let tp = Tp::new(world);
        let t = tp.size();
        tally::start();
        let heads = BlockConfig::new(2, 5, 32, 8)?; // 8 heads: 3 ranks cannot share them
        let refused = heads.check(t).err();
        let shard = BlockParams::whole(&heads, Kind::Float, 7).shard(&heads, t, tp.rank()).err();
        let calls = tally::stop();
        let want = "tensor-parallel size 3 does not divide the 8 heads";
        if refused.as_deref() != Some(want) || shard.as_deref() != Some(want) {
            return Err(format!("rank {}: 8 heads at t = 3: {refused:?}, {shard:?}; expected `{want}`", tp.rank()));
        }
        if !calls.is_empty() {
            return Err(format!("rank {}: the refusal communicated first: {calls:?}", tp.rank()));
        }
        let hidden = BlockConfig::new(2, 5, 30, 4).err();
        if hidden.as_deref() != Some("4 heads do not divide the hidden size 30") {
            return Err(format!("a hidden size of 30 with 4 heads: {hidden:?}"));
        }
        Ok(())
    }
}
