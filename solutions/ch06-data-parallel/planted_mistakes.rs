//! Mistakes learners make in this chapter, planted on purpose: each test asserts that the
//! checks DIAGNOSE the mistake (which step, which ratio, which sample, which ranks), not
//! just that something failed. They use no exercise, but they are near-answers, so they
//! live with the solutions and build only with `--features solution`.
//!
//! Run: `cargo test -p ch06-data-parallel --features solution --test planted_mistakes --
//! --nocapture` to see the messages. `planted_*` functions are the faulty programs, `#[ignore]`d and started
//! under mpirun only by the test below each.

#[path = "../../chapters/ch06-data-parallel/tests/common/mod.rs"]
mod common;

use ch06::flat;
use ch06::model::ModelKind;
use ch06::reducer::Allreduce;
use ch06::shuffle::{shuffled, Remainder};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Tensor;
use toolkit::testing::{launch_self, run_body};

// ANCHOR: summed_not_averaged
/// Mistake 1: gradients summed over the ranks but not divided by their number: at p
/// ranks every step is p times too long.
fn sum_without_average(reducer: &dyn Allreduce, grads: &mut [Tensor]) {
    for g in grads.iter_mut() {
        let mut buf: Vec<f32> = common::values(g);
        reducer.sum_in_place(&mut buf);
        // the mistake: no `/ reducer.ranks()`
        let summed = Tensor::from_slice(&buf).view(g.size().as_slice());
        tch::no_grad(|| g.copy_(&summed));
    }
}
// ANCHOR_END: summed_not_averaged

#[test]
#[ignore = "planted mistake: started by a_sum_without_average_is_named"]
fn planted_sum_without_average() {
    run_body("planted_sum_without_average", |world| {
        common::equivalence(world, ModelKind::Mlp, &mut |r, g| sum_without_average(r, g))
    });
}

#[test]
fn a_sum_without_average_is_named() {
    let out = launch_self("planted_sum_without_average", 2, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "the missing average went unnoticed:\n{text}"
    );
    assert!(
        text.contains("gradient norm after step 1 at 2 ranks"),
        "{text}"
    );
    assert!(text.contains("(ratio 2.0000"), "{text}");
    println!("{text}");
}

// ANCHOR: half_broadcast
/// Mistake 2: a broadcast that sends only the first parameter tensor; the other tensors
/// keep each rank's own random initial values.
fn broadcast_first_tensor_only(world: &SimpleCommunicator, params: &mut [Tensor]) {
    common::reference_broadcast(world, &mut params[..1]); // the mistake: `[..1]`
}
// ANCHOR_END: half_broadcast

#[test]
#[ignore = "planted mistake: started by a_partial_broadcast_is_caught_at_the_start"]
fn planted_partial_broadcast() {
    run_body("planted_partial_broadcast", |world| {
        tch::set_num_threads(1);
        let mut params = common::net(ModelKind::Cnn, 10 + i64::from(world.rank())).params;
        broadcast_first_tensor_only(world, &mut params);
        flat::check_identical(world, &params, "after the broadcast")
    });
}

#[test]
fn a_partial_broadcast_is_caught_at_the_start() {
    let out = launch_self("planted_partial_broadcast", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "ranks started from different parameters unnoticed:\n{text}"
    );
    assert!(
        text.contains(
            "parameters differ across ranks after the broadcast: fingerprints range from"
        ),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: own_seed
/// Mistake 3: each rank shuffles with its own seed (`seed + rank`) and takes its strided
/// part of ITS order: some samples are seen twice per epoch, others never.
fn sampler_with_a_seed_per_rank(p: usize, rank: usize) -> Vec<usize> {
    let order = shuffled(40, 7 + rank as u64, 0); // the mistake: not the shared seed
    (rank..40).step_by(p).map(|i| order[i]).collect()
}
// ANCHOR_END: own_seed

#[test]
fn a_sampler_without_the_shared_seed_is_caught() {
    let order = shuffled(40, 7, 0);
    let why = common::check_partition(&order, 4, Remainder::Drop, |_, p, r, _| {
        sampler_with_a_seed_per_rank(p, r)
    })
    .expect_err("the per-rank seed went unnoticed");
    assert!(why.contains("expected order[1] = 26 (strided)"), "{why}");
    println!("{why}");
}
