//! Given: what each pass of one micro-batch through a stage costs, forward, whole
//! backward, and the two halves of a split one (zero-bubble's `B` and `W`), in CPU time of
//! the thread that runs them: other processes on the machine do not count. `plan_bench`
//! puts these costs through the plan checker.

use crate::stage_model::StageModel;
use tch::{Device, Tensor};

/// Milliseconds per micro-batch of each pass (medians).
#[derive(Clone, Copy, Debug)]
pub struct Passes {
    /// The forward pass.
    pub forward: f64,
    /// A whole backward (input and parameter gradients together).
    pub whole: f64,
    /// The input's gradient only, graph kept (`Tensor::run_backward`).
    pub input: f64,
    /// The parameters' gradients after it (a second `backward` through the same graph).
    pub weight: f64,
}

/// This thread's CPU time, in seconds.
pub fn cpu_now() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given, nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The median cost of each pass of `stage` (not the first: its input takes a gradient;
/// not the last: no loss) on a micro-batch of `rows` random rows, over `reps` repetitions.
pub fn measure(stage: &StageModel, rows: i64, reps: usize) -> Passes {
    let kind = stage.shape.dtype.kind();
    let opts = (kind, Device::Cpu);
    let width = stage.shape.width;
    let x = Tensor::randn([rows, width], opts).set_requires_grad(true);
    let dy = Tensor::randn([rows, width], opts);
    let timed = |f: &mut dyn FnMut()| {
        let t0 = cpu_now();
        f();
        1e3 * (cpu_now() - t0)
    };
    let mut samples: [Vec<f64>; 4] = Default::default();
    for _ in 0..reps {
        let mut y = None;
        samples[0].push(timed(&mut || y = Some(stage.forward(&x))));
        let z = (y.expect("the forward ran") * &dy).sum(kind);
        samples[1].push(timed(&mut || z.backward()));
        let z = (stage.forward(&x) * &dy).sum(kind);
        samples[2].push(timed(&mut || {
            Tensor::run_backward(&[&z], &[&x], true, false);
        }));
        samples[3].push(timed(&mut || z.backward()));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [f, whole, input, weight] = &mut samples;
    Passes {
        forward: median(f),
        whole: median(whole),
        input: median(input),
        weight: median(weight),
    }
}
