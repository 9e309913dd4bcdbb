//! Mistakes learners make in this chapter, planted on purpose: each test asserts that the
//! checks NAME the mistake (which rank, which operator, what is wrong), not just that
//! something failed. They use no exercise's stub, but they are near-answers, so they live
//! with the solutions and build only with `--features solution`.
//!
//! Run: `cargo test -p ch09-tensor-parallel --features solution --test planted_mistakes
//! -- --nocapture` to see the messages. `planted_*` functions are the faulty programs,
//! `#[ignore]`d and started under mpirun only by the test below each.

#[path = "../../chapters/ch09-tensor-parallel/tests/common/mod.rs"]
mod common;

use ch09::linear::column_forward;
use ch09::mappings::{f_forward, g_backward, g_forward};
use ch09::ops::gelu;
use ch09::params::BlockParams;
use ch09::tape::Tape;
use ch09::tp::Tp;
use std::ops::Range;
use tch::{Kind, Tensor};
use toolkit::testing::{launch_self, run_body};

// ANCHOR: f_without_allreduce
/// Mistake 1: f's backward without its allreduce ("f is the identity"). Each rank's
/// input gradient is then its own contribution only; the weights' gradients stay right.
fn mlp_with_identity_f<'a>(tape: &mut Tape<'a>, tp: &'a Tp, p: &BlockParams, x: &Tensor) -> Tensor {
    let x = tape.cut(x, f_forward, |d| d.shallow_clone()); // the mistake: no tp.sum(d)
    let u = gelu(&column_forward(&x, &p.w1, &p.b1));
    let partial = u.linear::<&Tensor>(&p.w2, None);
    tape.g(tp, &partial) + &p.b2
}
// ANCHOR_END: f_without_allreduce

#[test]
#[ignore = "planted mistake: started by f_without_its_allreduce_is_named"]
fn planted_f_without_allreduce() {
    run_body("planted_f_without_allreduce", |world| {
        common::check_mlp(&Tp::new(world), Kind::Double, mlp_with_identity_f)
    });
}

#[test]
fn f_without_its_allreduce_is_named() {
    let out = launch_self("planted_f_without_allreduce", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "f without its allreduce went unnoticed:\n{text}"
    );
    assert!(
        text.contains("rank 0 of 3: the MLP input's gradient differs"),
        "{text}"
    );
    assert!(
        text.contains(
            "though the weights' gradients match: f's backward must sum every rank's \
             contribution"
        ),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: bias_on_every_rank
/// Mistake 2: the row-parallel bias added on every rank before g's allreduce: the sum
/// then holds it t times.
fn mlp_with_bias_before_g<'a>(
    tape: &mut Tape<'a>,
    tp: &'a Tp,
    p: &BlockParams,
    x: &Tensor,
) -> Tensor {
    let x = tape.f(tp, x);
    let u = gelu(&column_forward(&x, &p.w1, &p.b1));
    let partial = u.linear(&p.w2, Some(&p.b2)); // the mistake: the bias in every partial
    tape.cut(&partial, |q| g_forward(tp, q), g_backward)
}
// ANCHOR_END: bias_on_every_rank

#[test]
#[ignore = "planted mistake: started by a_bias_on_every_rank_is_named"]
fn planted_bias_on_every_rank() {
    run_body("planted_bias_on_every_rank", |world| {
        common::check_mlp(&Tp::new(world), Kind::Double, mlp_with_bias_before_g)
    });
}

#[test]
fn a_bias_on_every_rank_is_named() {
    let out = launch_self("planted_bias_on_every_rank", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "the bias on every rank went unnoticed:\n{text}"
    );
    assert!(
        text.contains("rank 0 of 3: the MLP's output differs"),
        "{text}"
    );
    assert!(
        text.contains(
            "it is off by (t - 1) x b2, the row-parallel bias added on each of the 3 ranks \
             before g's allreduce"
        ),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: vocab_off_by_one
/// Mistake 3: the vocabulary's shards off by one: each rank's block ends one id late
/// (`..=` for `..`), so neighbours both own the id between them.
fn vocab_range_one_too_long(vocab: usize, t: usize, rank: usize) -> Range<usize> {
    let r = ch09::shards::vocab_range(vocab, t, rank);
    r.start..(r.end + 1).min(vocab) // the mistake: one id more
}
// ANCHOR_END: vocab_off_by_one

#[test]
fn a_vocabulary_shard_off_by_one_is_named() {
    let why = common::check_vocab(10, 3, vocab_range_one_too_long)
        .expect_err("the shard off by one went unnoticed");
    assert!(
        why.contains(
            "vocabulary shards, V = 10, t = 3: rank 0 owns ids 0..5 (5 ids) but expected 0..4"
        ),
        "{why}"
    );
    assert!(
        why.contains("the first V % t = 1 ranks own 4 ids, the others 3"),
        "{why}"
    );
    println!("{why}");
}
