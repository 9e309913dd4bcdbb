//! Chapter 13 exercise 13.1: solution.

use crate::partial::Partial;
use tch::Tensor;

// ANCHOR: merge
/// The log-sum-exp of both, shifted by the larger; each output weighted by its share.
pub fn merge(a: &Partial, b: &Partial) -> Partial {
    let m = a.lse.maximum(&b.lse);
    // A row that saw no key on either side keeps m finite for the arithmetic below.
    let m = m.where_self(&m.isfinite(), &m.zeros_like());
    let lse = &m + ((&a.lse - &m).exp() + (&b.lse - &m).exp()).log();
    let weight = |part: &Tensor| {
        (part - &lse)
            .exp()
            .nan_to_num(0.0, None, None)
            .unsqueeze(-1)
    };
    let out = &a.out * weight(&a.lse) + &b.out * weight(&b.lse);
    Partial { out, lse }
}
// ANCHOR_END: merge
