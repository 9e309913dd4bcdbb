//! Checks of exercise 9.6 (the vocabulary split) at t = 1..4 ranks over a vocabulary of 11
//! ids (divided by none of 2, 3, 4), in f64 and f32: the embedding's output and its
//! table's gradient, and the cross-entropy's loss and its gradient on rank r's logits,
//! against one process with the whole table and logits (LibTorch's log-softmax and NLL).
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main vocab::`.

use crate::common;

use crate::common::{close, drawn, RANKS};
use ch09::compare::{block_bound, max_diff};
use ch09::tape::{backward_from, Tape};
use ch09::tp::Tp;
use ch09::vocab::{cross_entropy, embedding_forward};
use tch::{Device, Kind, Tensor};
use toolkit::mpi_test;

const VOCAB: usize = 11;
const HIDDEN: i64 = 6;

/// 2 x 7 tokens, every id of the vocabulary among them.
fn tokens() -> Tensor {
    let ids: Vec<i64> = (0..14).map(|i| (i * 5 % VOCAB) as i64).collect();
    Tensor::from_slice(&ids).view([2, 7])
}

mpi_test! {
    fn ex9_6_the_vocabulary_parallel_embedding_equals_the_whole_table(world at RANKS) {
        let tp = Tp::new(world);
        let ids = common::vocab_ids(VOCAB, tp.size(), tp.rank());
        let (i0, n) = (ids.start as i64, ids.len() as i64);
        for kind in [Kind::Double, Kind::Float] {
            let table = drawn(&[VOCAB as i64, HIDDEN], kind, 5).set_requires_grad(true);
            let dy = drawn(&[2, 7, HIDDEN], kind, 6);
            let want = Tensor::embedding(&table, &tokens(), -1, false, false);
            backward_from(&want, &dy);
            let mine = table.narrow(0, i0, n).detach().copy().set_requires_grad(true);
            let mut tape = Tape::new();
            let got = embedding_forward(&mut tape, &tp, &mine, ids.clone(), &tokens());
            close("the embedding (after g's sum: one rank's row, zeros from the others)", &tp, &got, &want, 0.0)?;
            let _ = tape.backward(&got, &dy);
            let bound = block_bound(&table.grad(), 14);
            close(&format!("the gradient of the table's rows {ids:?}"), &tp, &mine.grad(), &table.grad().narrow(0, i0, n), bound)?;
        }
        Ok(())
    }
}

mpi_test! {
    fn ex9_6_the_vocabulary_parallel_cross_entropy_equals_the_whole_logits(world at RANKS) {
        let tp = Tp::new(world);
        let ids = common::vocab_ids(VOCAB, tp.size(), tp.rank());
        let (i0, n) = (ids.start as i64, ids.len() as i64);
        let targets = tokens().view([14]);
        for kind in [Kind::Double, Kind::Float] {
            // Large logits: a softmax without the maximum subtracted overflows in f32.
            let logits = (drawn(&[14, VOCAB as i64], kind, 7) * 40.0).set_requires_grad(true);
            // tch's cross_entropy_for_logits computes in f32: the same two steps in `kind`.
            let want = logits.log_softmax(-1, kind).nll_loss(&targets);
            want.backward();
            let mine = logits.narrow(1, i0, n).detach().copy();
            let (loss, dlogits) = cross_entropy(&tp, &mine, ids.clone(), &targets);
            let bound = block_bound(&want, VOCAB);
            let loss = loss.to_device(Device::Cpu);
            close("the cross-entropy", &tp, &loss, &want, bound)
                .map_err(|why| why + &loss_cause(&logits.detach(), &targets, tp.size(), &loss, bound))?;
            let dwant = logits.grad().narrow(1, i0, n);
            let dbound = block_bound(&dwant, VOCAB);
            close(&format!("the gradient of the logits {ids:?}"), &tp, &dlogits, &dwant, dbound).map_err(|why| {
                // The loss is the mean over the tokens: so is its gradient.
                let tokens = targets.size()[0];
                let summed = max_diff(&dlogits, &(&dwant * tokens as f64)) <= dbound * tokens as f64;
                match summed {
                    true => why + &format!(": {tokens} times the expected, the gradient of the sum over the {tokens} tokens, not of their mean (divide by the tokens)"),
                    false => why,
                }
            })?;
        }
        Ok(())
    }
}

/// The cross-entropy as it comes out when each rank shifts its logits by its own maximum
/// instead of the maximum over the ranks (every other step right): the classic slip.
fn with_each_ranks_own_max(logits: &Tensor, targets: &Tensor, t: usize) -> Tensor {
    let kind = logits.kind();
    let (rows, mut sum_exp) = (logits.size()[0], logits.zeros_like().narrow(1, 0, 1));
    let mut shift_of_target = logits.zeros_like().narrow(1, 0, 1);
    for r in 0..t {
        let ids = common::vocab_ids(VOCAB, t, r);
        let block = logits.narrow(1, ids.start as i64, ids.len() as i64);
        let max = block.amax([-1], true);
        sum_exp += (&block - &max)
            .exp()
            .sum_dim_intlist(&[-1i64][..], true, kind);
        let here = targets
            .ge(ids.start as i64)
            .logical_and(&targets.lt(ids.end as i64));
        shift_of_target += max * here.view([rows, 1]).to_kind(kind);
    }
    let target = logits.gather(1, &targets.view([rows, 1]), false) - shift_of_target;
    (sum_exp.log() - target).mean(kind)
}

/// The cause of a wrong loss, when it is the classic one; else nothing.
fn loss_cause(logits: &Tensor, targets: &Tensor, t: usize, loss: &Tensor, bound: f64) -> String {
    let own_max = with_each_ranks_own_max(logits, targets, t);
    match max_diff(loss, &own_max) <= bound.max(1e-9) {
        true => ": it equals the loss with each rank's own maximum subtracted: the \
                 maximum must be the one over the ranks (tp.max), the same shift on every \
                 rank"
            .to_string(),
        false => String::new(),
    }
}
