//! Benchmark: what moving gradients between LibTorch and an MPI buffer costs, three ways,
//! on one process (no MPI): `copy_data` into a buffer (a memcpy: the bridge's read), the
//! tempting `Tensor::cat` of all tensors then `Vec::try_from` (a new tensor and a new
//! vector per call), and a `from_blob` view of the buffer `copy_`d back (the bridge's
//! write).
//!
//! Run: `cargo run --release -p ch06-data-parallel --features solution --bin bridge_bench`
//! (part of `make bench CH=06`). Expect three lines, best of 5 runs each, on 9 tensors of
//! 1M f32 (9 million floats, 36 MB): the memcpy and the view a few ms, the cat and vector
//! an order of magnitude more. LibTorch runs on one thread, as each rank of the trainer
//! does on a small machine.

use std::time::Instant;
use tch::{Device, Kind, Tensor};

const TENSORS: usize = 9;
const EACH: i64 = 1 << 20;
const RUNS: usize = 5;

/// The best of `RUNS` timings of `f`, in ms.
fn best_ms(mut f: impl FnMut()) -> f64 {
    (0..toolkit::bench::sized(RUNS, 1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    tch::set_num_threads(1);
    tch::manual_seed(0);
    let mut grads: Vec<Tensor> = (0..TENSORS)
        .map(|_| Tensor::randn([EACH], (Kind::Float, Device::Cpu)))
        .collect();
    let total = TENSORS * EACH as usize;
    let mut buf = vec![0f32; total];
    let copy = best_ms(|| {
        for (t, part) in grads.iter().zip(buf.chunks_mut(EACH as usize)) {
            t.copy_data(part, part.len());
        }
    });
    let cat = best_ms(|| {
        let flat = Tensor::cat(&grads, 0);
        let v = Vec::<f32>::try_from(&flat).expect("a flat f32 tensor");
        assert_eq!(v.len(), total);
    });
    let view = best_ms(|| {
        for (t, part) in grads.iter_mut().zip(buf.chunks(EACH as usize)) {
            // SAFETY: `part` holds exactly t.numel() contiguous f32; the view is used and
            // dropped at once, while `part` is borrowed.
            let v = unsafe {
                Tensor::from_blob(
                    part.as_ptr() as *const u8,
                    &[EACH],
                    &[],
                    Kind::Float,
                    Device::Cpu,
                )
            };
            tch::no_grad(|| t.copy_(&v));
        }
    });
    println!("{TENSORS} tensors of {EACH} f32 ({total} floats), best of {RUNS} runs, 1 thread:");
    println!("  copy_data into the buffer (the bridge's read)      {copy:8.1} ms");
    println!("  Tensor::cat, then Vec::try_from (a copy per call)  {cat:8.1} ms");
    println!("  from_blob view, copy_ back (the bridge's write)    {view:8.1} ms");
}
