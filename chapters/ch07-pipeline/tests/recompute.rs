//! Checks of activation recomputation (given, `ch07::recompute`): what a stage holds
//! under each `--recompute` mode, measured on the C heap (glibc's `mallinfo2`), is what
//! the formula says: `(2 blocks + 1)` tensors per micro-batch in flight with the graph
//! kept, one (the input) with `stage`, plus one micro-batch's `2 blocks` at the backward.
//! The only test in its binary: the heap is the process's, no other test may allocate
//! meanwhile.
//!
//! Run: `cargo test -p ch07-pipeline --test main recompute::`.

use ch07::addition::Addition;
use ch07::recompute::{formula, measure, Recompute};
use ch07::stage_model::{Shape, StageModel};
use ch07::wire::Dtype;
use tch::Device;

#[test]
fn each_recompute_mode_holds_what_its_formula_says() {
    tch::set_num_threads(1);
    let shape = Shape {
        task: Addition { digits: 3 },
        width: 128,
        depth: 8,
        dtype: Dtype::F32,
    };
    let (rows, blocks, h) = (256i64, 4usize, 3usize);
    let tensor = (rows * shape.width * 4) as f64;
    let stage = StageModel::new(shape, 2..2 + blocks, false, false, 5, Device::Cpu);
    // A first run, so that LibTorch's one-time allocations are not counted.
    let _ = measure(&stage, Recompute::None, rows, 1);
    for mode in [Recompute::None, Recompute::Stage] {
        let Some(held) = measure(&stage, mode, rows, h) else {
            eprintln!("skipped: no glibc mallinfo2 on this system, the heap cannot be read");
            return;
        };
        let (fwd, bwd) = formula(mode, blocks, h);
        for (what, got, want) in [
            ("after the forwards", held.after_forwards, fwd),
            ("at the first backward", held.at_backward, bwd),
        ] {
            let tensors = got as f64 / tensor;
            assert!(
                (tensors - want as f64).abs() <= 0.05 * want as f64 + 0.5,
                "{mode:?}, {blocks} blocks, {h} micro-batches in flight, {what}: {got} bytes = {tensors:.2} tensors of [{rows}, {}] f32, the formula says {want}",
                shape.width
            );
        }
    }
}
