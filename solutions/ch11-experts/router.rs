//! Chapter 11 exercise 11.1: solution.

use crate::config::MoeConfig;
pub use crate::routing::{Choice, Routing};

// ANCHOR: capacity
/// C = ceil(T·k·factor / E).
pub fn capacity(cfg: &MoeConfig, tokens: usize) -> usize {
    ((tokens * cfg.k) as f64 * cfg.capacity_factor / cfg.experts as f64).ceil() as usize
}
// ANCHOR_END: capacity

// ANCHOR: route
/// Top-k with softmax gates (renormalised for k = 2), kept while the expert has room.
pub fn route(cfg: &MoeConfig, logits: &[f32]) -> Result<Routing, String> {
    cfg.check()?;
    let e = cfg.experts;
    if !logits.len().is_multiple_of(e) {
        return Err(format!(
            "{} logits do not split into rows of {e} experts",
            logits.len()
        ));
    }
    let tokens = logits.len() / e;
    let cap = capacity(cfg, tokens);
    let (mut load, mut dropped) = (vec![0; e], vec![0; e]);
    let mut choices = Vec::with_capacity(tokens * cfg.k);
    for row in logits.chunks(e) {
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v)) as f64;
        let p: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let mut order: Vec<usize> = (0..e).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
        let top = &order[..cfg.k];
        let norm: f64 = match cfg.k {
            1 => p.iter().sum(),
            _ => top.iter().map(|&i| p[i]).sum(),
        };
        for &x in top {
            let kept = load[x] < cap;
            if kept {
                load[x] += 1;
            } else {
                dropped[x] += 1;
            }
            let gate = (p[x] / norm) as f32;
            choices.push(Choice {
                expert: x,
                gate,
                kept,
            });
        }
    }
    Ok(Routing {
        tokens,
        k: cfg.k,
        capacity: cap,
        choices,
        load,
        dropped,
    })
}
// ANCHOR_END: route
