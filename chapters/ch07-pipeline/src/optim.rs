//! Given: the optimizers, on a stage's own parameters. Plain SGD for the equivalence
//! checks (a step is exactly `lr` times the gradient, so a wrong scale shows), Adam for
//! the lab (it learns the addition task much faster). Their state is checkpointed.

use tch::Tensor;

/// Which update rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    Sgd { lr: f64 },
    Adam { lr: f64 },
}

/// An optimizer over one stage's parameters.
pub struct Optimizer {
    pub rule: Rule,
    /// Adam's first and second moments (empty for SGD), one per parameter.
    pub m: Vec<Tensor>,
    pub v: Vec<Tensor>,
    /// Steps taken (Adam's bias correction).
    pub t: u64,
}

impl Optimizer {
    /// A fresh optimizer for `params`.
    pub fn new(rule: Rule, params: &[Tensor]) -> Optimizer {
        let zeros = |_| params.iter().map(Tensor::zeros_like).collect();
        let (m, v) = match rule {
            Rule::Sgd { .. } => (vec![], vec![]),
            Rule::Adam { .. } => (zeros(0), zeros(1)),
        };
        Optimizer { rule, m, v, t: 0 }
    }

    // ANCHOR: step
    /// One update of `params` with `grads`.
    pub fn step(&mut self, params: &mut [Tensor], grads: &[Tensor]) {
        self.t += 1;
        tch::no_grad(|| match self.rule {
            Rule::Sgd { lr } => {
                for (p, g) in params.iter_mut().zip(grads) {
                    let _ = p.g_sub_(&(g * lr));
                }
            }
            Rule::Adam { lr } => {
                let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
                let c1 = 1.0 - b1.powi(self.t as i32);
                let c2 = 1.0 - b2.powi(self.t as i32);
                for (i, (p, g)) in params.iter_mut().zip(grads).enumerate() {
                    let m = &mut self.m[i];
                    let _ = m.g_mul_scalar_(b1).g_add_(&(g * (1.0 - b1)));
                    let v = &mut self.v[i];
                    let _ = v.g_mul_scalar_(b2).g_add_(&(g * g * (1.0 - b2)));
                    let update = (&*m / c1) / ((&*v / c2).sqrt() + eps);
                    let _ = p.g_sub_(&(update * lr));
                }
            }
        });
    }
    // ANCHOR_END: step
}
