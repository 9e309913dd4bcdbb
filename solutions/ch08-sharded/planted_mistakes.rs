//! Mistakes learners make in this chapter, planted on purpose: each test asserts that the
//! checks NAME the mistake (which rank, which block, which ratio), not just that something
//! failed. They use no exercise, but they are near-answers, so they live with the
//! solutions and build only with `--features solution`.
//!
//! Run: `cargo test -p ch08-sharded --features solution --test planted_mistakes --
//! --nocapture` to see the messages. `planted_*` functions are the faulty programs,
//! `#[ignore]`d and started under mpirun only by the test below each.

#[path = "../../chapters/ch08-sharded/tests/common/mod.rs"]
mod common;

use ch08::halves::Halves;
use ch08::layout::shard_len;
use ch08::shards::{Layout, ShardAdam};
use std::ops::Range;
use toolkit::testing::{launch_self, run_body};

// ANCHOR: not_averaged
/// Mistake 1: the reduce-scatter's sum is not divided by the ranks. Adam hides it from the
/// parameters (m / sqrt(v) does not change when every gradient is N times larger, but
/// for eps), so the check looks at the gradient shard itself.
fn step_without_average(
    halves: &dyn Halves,
    layout: &Layout,
    grads: &[f32],
    grad_shard: &mut [f32],
    params: &mut [f32],
    adam: &mut ShardAdam,
) {
    halves.sum_scatter(grads, grad_shard); // the mistake: no `/ N` after it
    adam.step(&mut params[layout.mine.clone()], grad_shard);
    let mine = params[layout.mine.clone()].to_vec();
    halves.gather_all(&mine, params);
}
// ANCHOR_END: not_averaged

#[test]
#[ignore = "planted mistake: started by a_sum_without_average_is_named"]
fn planted_sum_without_average() {
    run_body("planted_sum_without_average", |world| {
        common::sharded_equivalence(world, &mut |h, l, g, s, p, a| {
            step_without_average(h, l, g, s, p, a)
        })
    });
}

#[test]
fn a_sum_without_average_is_named() {
    let out = launch_self("planted_sum_without_average", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "the missing average went unnoticed:\n{text}"
    );
    assert!(text.contains("step 1 at 3 ranks"), "{text}");
    assert!(
        text.contains("(ratio 3.0000): 3 times the average, the sum not divided by the 3 ranks"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: trimmed
/// Mistake 2: the last shard trimmed to end at P: "there is no padding". Its rank then
/// owns fewer elements than the others, and MPI_Reduce_scatter_block (one block length
/// for all) cannot serve it.
fn shard_range_without_padding(params: usize, ranks: usize, rank: usize) -> Range<usize> {
    let s = shard_len(params, ranks);
    (rank * s).min(params)..((rank + 1) * s).min(params) // the mistake: `.min(params)`
}
// ANCHOR_END: trimmed

#[test]
fn a_shard_without_its_padding_is_named() {
    let why = common::check_layout(10, 4, shard_len, shard_range_without_padding)
        .expect_err("the trimmed shard went unnoticed");
    assert!(
        why.contains(
            "P = 10, N = 4: your shard_range gives rank 3 9..10 (1 elements) but expected 9..12"
        ),
        "{why}"
    );
    assert!(why.contains("padding 2 after element 10"), "{why}");
    println!("{why}");
}

// ANCHOR: whole_buffer
/// Mistake 3: Adam on the whole flat buffer, as in plain data parallelism: the shard's
/// Adam holds m and v for S elements only, and says so.
fn step_on_everything(
    halves: &dyn Halves,
    layout: &Layout,
    grads: &[f32],
    grad_shard: &mut [f32],
    params: &mut [f32],
    adam: &mut ShardAdam,
) {
    halves.sum_scatter(grads, grad_shard);
    let n = halves.ranks() as f32;
    grad_shard.iter_mut().for_each(|g| *g /= n);
    let mut everything = vec![0f32; params.len()];
    halves.gather_all(grad_shard, &mut everything);
    adam.step(params, &everything); // the mistake: all of `params`, not params[mine]
    let _ = layout;
}
// ANCHOR_END: whole_buffer

#[test]
#[ignore = "planted mistake: started by adam_on_the_whole_buffer_is_named"]
fn planted_adam_on_the_whole_buffer() {
    run_body("planted_adam_on_the_whole_buffer", |world| {
        common::sharded_equivalence(world, &mut |h, l, g, s, p, a| {
            step_on_everything(h, l, g, s, p, a)
        })
    });
}

#[test]
fn adam_on_the_whole_buffer_is_named() {
    let out = launch_self("planted_adam_on_the_whole_buffer", 2, &[]);
    let text = out.text();
    assert!(!out.success(), "Adam on everything went unnoticed:\n{text}");
    assert!(
        text.contains("Adam was given 26122 parameters and 26122 gradients, but its m and v hold 13061 elements"),
        "{text}"
    );
    assert!(text.contains("step this rank's shard only"), "{text}");
    println!("{text}");
}

// ANCHOR: padded_slices
/// Mistake 5 (ex 8.4): the saved slices taken with their padding, `q*S..(q+1)*S`, as if
/// the checkpoint kept it. The last saved rank's slice is then too long.
fn sources_with_padding(params: usize, saved: usize, new: &Layout) -> Vec<ch08::shards::SliceCopy> {
    let s = params.div_ceil(saved);
    let want = new.mine.clone(); // and the new shard's padding too
    (0..saved)
        .filter_map(|q| {
            let have = q * s..(q + 1) * s; // the mistake: no .min(params)
            let (a, b) = (have.start.max(want.start), have.end.min(want.end));
            (a < b).then(|| ch08::shards::SliceCopy {
                from: q,
                src: a - have.start..b - have.start,
                dst: a - want.start..b - want.start,
            })
        })
        .collect()
}
// ANCHOR_END: padded_slices

#[test]
fn saved_slices_with_their_padding_are_named() {
    let why = common::check_reshard(&[10], sources_with_padding).unwrap_err();
    println!("{why}");
    assert!(
        why.contains("the padding is not saved") && why.contains("saved rank"),
        "{why}"
    );
}

#[path = "../../chapters/ch08-sharded/tests/zero3_common/mod.rs"]
mod zero3_common;

// ANCHOR: zero3_not_averaged
/// Mistake 4 (ex 8.3): the layer's backward reduce-scatters the gradient but does not
/// divide it by N. As with ZeRO-1/2, Adam would hide it from the parameters but for eps;
/// the check looks at each layer's gradient shard.
fn backward_without_average(
    halves: &dyn Halves,
    unit: &ch08::layers::Unit,
    gathered: ch08::layers::Counted,
    input: &tch::Tensor,
    upstream: ch08::layers::Upstream,
    grad_shard: &mut [f32],
    meter: &ch08::layers::Meter,
) -> Option<tch::Tensor> {
    let params = gathered.params(unit);
    let out = unit.forward(input, &params);
    let z = match upstream {
        ch08::layers::Upstream::Loss(labels) => out.cross_entropy_for_logits(labels),
        ch08::layers::Upstream::Grad(g) => (&out * g).sum(tch::Kind::Float),
    };
    let mut wrt: Vec<&tch::Tensor> = params.iter().collect();
    if input.requires_grad() {
        wrt.push(input);
    }
    let mut full = ch08::layers::Counted::zeros(unit.layout.padded, meter);
    let mut grads = tch::Tensor::run_backward(&[&z], &wrt, false, false);
    let dx = input.requires_grad().then(|| grads.pop().unwrap());
    ch06::flat::pack(&grads, &mut full.values_mut()[..unit.params()]);
    drop((grads, params, gathered));
    halves.sum_scatter(full.values(), grad_shard); // the mistake: no `/ N` after it
    dx
}
// ANCHOR_END: zero3_not_averaged

#[test]
#[ignore = "planted mistake: started by a_zero3_sum_without_average_is_named"]
fn planted_zero3_sum_without_average() {
    run_body("planted_zero3_sum_without_average", |world| {
        zero3_common::zero3_equivalence(world, backward_without_average, false)
    });
}

#[test]
fn a_zero3_sum_without_average_is_named() {
    let out = launch_self("planted_zero3_sum_without_average", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "the missing average went unnoticed:\n{text}"
    );
    assert!(
        text.contains("step 1 at 3 ranks: rank 0's averaged gradient shard of layer fc1"),
        "{text}"
    );
    assert!(
        text.contains("(ratio 3.0000): 3 times the average, the sum not divided by the 3 ranks"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: staged3_doubled
/// Mistake 6 (the staged ZeRO-3 step, `--device cuda`'s path): each layer's averaged
/// gradient shard comes back from the host staging twice over (the sum divided by N/2).
/// The check runs the staged step on the CPU next to the host step: they must agree bit
/// for bit, and it names the ratio.
fn backward_staged_twice(
    halves: &dyn Halves,
    unit: &ch08::layers::Unit,
    gathered: ch08::layers::Counted,
    input: &tch::Tensor,
    upstream: ch08::layers::Upstream,
    grad_shard: &mut [f32],
    meter: &ch08::layers::Meter,
) -> Option<tch::Tensor> {
    let backward = ch08::layer_step::backward_layer;
    let dx = backward(halves, unit, gathered, input, upstream, grad_shard, meter);
    grad_shard.iter_mut().for_each(|g| *g *= 2.0); // the mistake
    dx
}
// ANCHOR_END: staged3_doubled

#[test]
#[ignore = "planted mistake: started by a_doubled_staged_stage3_gradient_is_named"]
fn planted_staged3_doubled() {
    run_body("planted_staged3_doubled", |world| {
        let grid = zero3_common::GridHalves(world);
        let cpu = tch::Device::Cpu;
        zero3_common::staged3_equals_host(world, &grid, false, cpu, backward_staged_twice, None)
    });
}

#[test]
fn a_doubled_staged_stage3_gradient_is_named() {
    let out = launch_self("planted_staged3_doubled", 3, &[]);
    let text = out.text();
    assert!(
        !out.success(),
        "the doubled gradient went unnoticed:\n{text}"
    );
    assert!(
        text.contains(
            "step 1, staged on Cpu at 3 ranks, rank 0: element 0 of the averaged gradient shard"
        ),
        "{text}"
    );
    assert!(text.contains("(ratio 2.0000)"), "{text}");
    println!("{text}");
}
