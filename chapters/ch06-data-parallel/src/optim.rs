//! Given: SGD with momentum, written out so that its state can be checkpointed.
//!
//! tch's `nn::Optimizer` keeps its momentum buffers inside LibTorch, where we cannot read
//! them; a resumed run without them would not continue the same trajectory. The update is
//! PyTorch's: `buf = momentum * buf + grad; param -= lr * buf`.

use tch::Tensor;

/// Plain SGD with momentum over a list of parameters.
pub struct Sgd {
    pub lr: f64,
    pub momentum: f64,
    /// One buffer per parameter, zeros at the start.
    pub buffers: Vec<Tensor>,
}

impl Sgd {
    /// Zero momentum buffers shaped like `params`.
    pub fn new(params: &[Tensor], lr: f64, momentum: f64) -> Sgd {
        let buffers = params.iter().map(|p| p.zeros_like().detach()).collect();
        Sgd {
            lr,
            momentum,
            buffers,
        }
    }

    // ANCHOR: sgd_step
    /// One update of `params` from their (already synchronised) gradients.
    pub fn step(&mut self, params: &mut [Tensor]) {
        tch::no_grad(|| {
            for (p, buf) in params.iter_mut().zip(self.buffers.iter_mut()) {
                let g = p.grad();
                let _ = buf.g_mul_scalar_(self.momentum).g_add_(&g);
                let _ = p.g_sub_(&(&*buf * self.lr));
            }
        });
    }
    // ANCHOR_END: sgd_step
}

/// Sets every gradient of `params` to zero in place (keeps their storage, so the sync's
/// views stay valid); before the first backward there is nothing to zero.
pub fn zero_grads(params: &mut [Tensor]) {
    for p in params.iter_mut() {
        p.zero_grad();
    }
}
