//! Checks of exercise 9.5 (attention split by heads) at t = 1..4 ranks, in f64 and f32:
//! the output, the input's gradient and rank r's slices of Q, K, V and the output
//! projection's gradients against one process's attention, within
//! `compare::block_bound`.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main attention::`.

use crate::common;

use crate::common::{close, RANKS};
use ch09::attention::attention_forward;
use ch09::compare::block_bound;
use ch09::tape::Tape;
use ch09::tp::Tp;
use tch::Kind;
use toolkit::mpi_test;

mpi_test! {
    fn ex9_5_attention_by_heads_equals_one_process(world at RANKS) {
        let tp = Tp::new(world);
        let cfg = common::config();
        let (t, r) = (tp.size(), tp.rank());
        for kind in [Kind::Double, Kind::Float] {
            let case = common::Case::new(kind);
            let (want, want_grads) = case.reference(t, r, |p, x| ch09::reference::attention(p, &cfg, x));
            let (x, dy) = (&case.x, &case.dy);
            let mine = common::shard_of(&case.whole, &cfg, t, r);
            let xs = x.detach().copy().set_requires_grad(true);
            let mut tape = Tape::new();
            let got = attention_forward(&mut tape, &tp, &mine, &cfg, &xs);
            let dx = tape.backward(&got, dy);
            let bound = |reference: &tch::Tensor| block_bound(reference, cfg.hidden);
            close("the attention's output", &tp, &got, &want, bound(&want))?;
            let g = mine.grads();
            let pairs = [
                ("q.weight", &g.wq, &want_grads.wq),
                ("q.bias", &g.bq, &want_grads.bq),
                ("k.weight", &g.wk, &want_grads.wk),
                ("k.bias", &g.bk, &want_grads.bk),
                ("v.weight", &g.wv, &want_grads.wv),
                ("v.bias", &g.bv, &want_grads.bv),
                ("out.weight", &g.wo, &want_grads.wo),
                ("out.bias", &g.bo, &want_grads.bo),
            ];
            for (name, got, want) in pairs {
                close(&format!("the gradient of {name}"), &tp, got, want, bound(want))?;
            }
            close("the attention input's gradient", &tp, &dx, &x.grad(), bound(&x.grad()))?;
        }
        Ok(())
    }
}
