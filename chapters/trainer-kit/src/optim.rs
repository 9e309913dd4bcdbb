//! The optimizers, written out so that their state can be checkpointed: tch's own
//! `nn::Optimizer` keeps it inside LibTorch, out of reach, and a resumed run without it
//! would not continue the same trajectory.
//!
//! They work on lists of tensors: a model's parameters, or a flat buffer (a list of one
//! 1-D tensor, such as a ZeRO shard). The updates are PyTorch's.

use tch::Tensor;

/// Which update rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// Plain SGD: `param -= lr * grad` (no state: a step is exactly `lr` times the
    /// gradient, so a wrong gradient scale shows).
    Sgd { lr: f64 },
    /// SGD with momentum: `buf = momentum * buf + grad; param -= lr * buf`.
    Momentum { lr: f64, momentum: f64 },
    /// Adam (beta1 0.9, beta2 0.999, eps 1e-8), with bias correction.
    Adam { lr: f64 },
}

/// An optimizer over one list of tensors.
pub struct Optimizer {
    pub rule: Rule,
    /// Momentum's buffers, or Adam's first moments: one per tensor (empty for SGD).
    pub m: Vec<Tensor>,
    /// Adam's second moments, one per tensor (empty otherwise).
    pub v: Vec<Tensor>,
    /// Steps taken (Adam's bias correction); set it when resuming.
    pub t: u64,
}

impl Optimizer {
    /// A fresh optimizer for `params`: its state is zeros shaped like them.
    pub fn new(rule: Rule, params: &[Tensor]) -> Optimizer {
        let zeros = || params.iter().map(|p| p.zeros_like().detach()).collect();
        let (m, v) = match rule {
            Rule::Sgd { .. } => (vec![], vec![]),
            Rule::Momentum { .. } => (zeros(), vec![]),
            Rule::Adam { .. } => (zeros(), zeros()),
        };
        Optimizer { rule, m, v, t: 0 }
    }

    // ANCHOR: step
    /// One update of `params` with `grads` (one per parameter, already synchronised).
    pub fn step(&mut self, params: &mut [Tensor], grads: &[Tensor]) {
        self.t += 1;
        tch::no_grad(|| match self.rule {
            Rule::Sgd { lr } => {
                for (p, g) in params.iter_mut().zip(grads) {
                    let _ = p.g_sub_(&(g * lr));
                }
            }
            Rule::Momentum { lr, momentum } => {
                for ((p, g), buf) in params.iter_mut().zip(grads).zip(&mut self.m) {
                    let _ = buf.g_mul_scalar_(momentum).g_add_(g);
                    let _ = p.g_sub_(&(&*buf * lr));
                }
            }
            Rule::Adam { lr } => {
                let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
                let c1 = 1.0 - b1.powi(self.t as i32);
                let c2 = 1.0 - b2.powi(self.t as i32);
                let state = self.m.iter_mut().zip(self.v.iter_mut());
                for ((p, g), (m, v)) in params.iter_mut().zip(grads).zip(state) {
                    let _ = m.g_mul_scalar_(b1).g_add_(&(g * (1.0 - b1)));
                    let _ = v.g_mul_scalar_(b2).g_add_(&(g * g * (1.0 - b2)));
                    let update = (&*m / c1) / ((&*v / c2).sqrt() + eps);
                    let _ = p.g_sub_(&(update * lr));
                }
            }
        });
    }
    // ANCHOR_END: step

    /// One update from the gradients autograd left in `params` (`p.grad()`).
    pub fn step_on_grads(&mut self, params: &mut [Tensor]) {
        let grads: Vec<Tensor> = params.iter().map(Tensor::grad).collect();
        self.step(params, &grads);
    }
}

/// Sets every gradient of `params` to zero in place (keeps their storage, so views of it
/// stay valid); before the first backward there is nothing to zero.
pub fn zero_grads(params: &mut [Tensor]) {
    for p in params.iter_mut() {
        p.zero_grad();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(t: &Tensor) -> Vec<f64> {
        Vec::<f64>::try_from(t.flatten(0, -1)).unwrap()
    }

    #[test]
    fn sgd_steps_exactly_lr_times_the_gradient() {
        let mut p = [Tensor::from_slice(&[1.0f64, 2.0])];
        let g = [Tensor::from_slice(&[0.5f64, -1.0])];
        let mut opt = Optimizer::new(Rule::Sgd { lr: 0.1 }, &p);
        opt.step(&mut p, &g);
        assert_eq!(values(&p[0]), [1.0 - 0.05, 2.0 + 0.1]);
        assert!(opt.m.is_empty() && opt.v.is_empty());
    }

    #[test]
    fn momentum_accumulates_like_pytorch() {
        let mut p = [Tensor::from_slice(&[1.0f64])];
        let g = [Tensor::from_slice(&[1.0f64])];
        let mut opt = Optimizer::new(
            Rule::Momentum {
                lr: 0.5,
                momentum: 0.9,
            },
            &p,
        );
        opt.step(&mut p, &g);
        opt.step(&mut p, &g);
        // buf 1, then 1.9: param 1 - 0.5 - 0.95.
        assert_eq!(values(&opt.m[0]), [1.9]);
        assert!((values(&p[0])[0] - (1.0 - 0.5 - 0.95)).abs() < 1e-12);
    }

    #[test]
    fn adams_first_step_is_lr_times_the_sign() {
        let mut p = [Tensor::from_slice(&[1.0f64, 1.0])];
        let g = [Tensor::from_slice(&[3.0f64, -0.25])];
        let mut opt = Optimizer::new(Rule::Adam { lr: 0.01 }, &p);
        opt.step(&mut p, &g);
        let got = values(&p[0]);
        assert!(
            (got[0] - 0.99).abs() < 1e-6 && (got[1] - 1.01).abs() < 1e-6,
            "{got:?}"
        );
        assert_eq!(opt.t, 1);
    }
}
