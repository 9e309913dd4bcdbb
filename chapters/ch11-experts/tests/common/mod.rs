//! Shared checks of chapter 11's exercises: each takes the function under test and
//! returns `Err(message)` naming the case it got wrong, so the exercise's tests and the
//! planted mistakes (solutions/ch11-experts/planted_mistakes.rs) use the same ones.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

pub mod balance;
pub mod grad;
pub mod layer;

use ch11::config::MoeConfig;
use ch11::routing::{Choice, Routing};
use ch11::task::Rng;

/// A capacity function (ex 11.1's `capacity`).
pub type Capacity = fn(&MoeConfig, usize) -> usize;
/// A router (ex 11.1's `route`).
pub type Route = fn(&MoeConfig, &[f32]) -> Result<Routing, String>;

/// One case of the layer: T tokens per rank (plus a little more on some ranks), E
/// experts, k, a capacity factor of `quarters / 4`, rows of `hidden` floats, a seed.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub tokens: usize,
    pub experts: usize,
    pub k: usize,
    pub quarters: u32,
    pub hidden: usize,
    pub seed: u64,
}

impl Case {
    /// The router's settings of this case.
    pub fn cfg(&self) -> MoeConfig {
        MoeConfig::new(self.experts, self.k, self.quarters as f64 / 4.0).unwrap()
    }

    /// Rank `rank`'s tokens: `tokens + (rank·7 mod 5)`.
    pub fn tokens_of(&self, rank: usize) -> usize {
        self.tokens + rank * 7 % 5
    }

    /// Rank `rank`'s (logits, x): logits in steps of 0.5 from -1 to 1, so that ties are
    /// common; x normal. The same on every rank that asks.
    pub fn inputs(&self, rank: usize) -> (Vec<f32>, Vec<f32>) {
        let t = self.tokens_of(rank);
        let mut rng = Rng::new(self.seed ^ (rank as u64 + 1).wrapping_mul(0x9e37_79b9));
        let logits = (0..t * self.experts)
            .map(|_| (rng.next_u64() % 5) as f32 * 0.5 - 1.0)
            .collect();
        let x = (0..t * self.hidden).map(|_| rng.normal()).collect();
        (logits, x)
    }

    /// The case in one line, as the messages name it.
    pub fn name(&self) -> String {
        format!(
            "T={} E={} k={} factor={} hidden={} seed={}",
            self.tokens,
            self.experts,
            self.k,
            self.quarters as f64 / 4.0,
            self.hidden,
            self.seed
        )
    }
}

/// C by integer arithmetic, for a factor of `quarters / 4`: `ceil(T·k·quarters / 4E)`.
pub fn capacity_exact(tokens: usize, experts: usize, k: usize, quarters: u32) -> usize {
    (tokens * k * quarters as usize).div_ceil(4 * experts)
}

/// The router written another way: the top k by repeated argmax (the lower index wins a
/// tie), gates by softmax in f64, kept while fewer than C were kept before.
pub fn reference_route(cfg: &MoeConfig, logits: &[f32], cap: usize) -> Routing {
    let e = cfg.experts;
    let tokens = logits.len() / e;
    let (mut load, mut dropped, mut choices) = (vec![0; e], vec![0; e], vec![]);
    for row in logits.chunks(e) {
        let mut top: Vec<usize> = vec![];
        for _ in 0..cfg.k {
            let best =
                (0..e)
                    .filter(|i| !top.contains(i))
                    .fold(None, |b: Option<usize>, i| match b {
                        Some(j) if row[j] >= row[i] => Some(j),
                        _ => Some(i),
                    });
            top.push(best.unwrap());
        }
        let p = |i: usize| (row[i] as f64 - row[top[0]] as f64).exp();
        let all: f64 = (0..e).map(p).sum();
        let norm = if cfg.k == 1 {
            all
        } else {
            p(top[0]) + p(top[1])
        };
        for &x in &top {
            let kept = load[x] < cap;
            if kept {
                load[x] += 1
            } else {
                dropped[x] += 1
            }
            choices.push(Choice {
                expert: x,
                gate: (p(x) / norm) as f32,
                kept,
            });
        }
    }
    Routing {
        tokens,
        k: cfg.k,
        capacity: cap,
        choices,
        load,
        dropped,
    }
}

/// Checks a capacity function at one case against the integer formula.
pub fn check_capacity(capacity: Capacity, case: &Case) -> Result<(), String> {
    let (got, want) = (
        capacity(&case.cfg(), case.tokens),
        capacity_exact(case.tokens, case.experts, case.k, case.quarters),
    );
    match got == want {
        true => Ok(()),
        false => Err(format!(
            "{}: capacity {got}, but ceil(T·k·factor / E) = ceil({} / {}) = {want}",
            case.name(),
            (case.tokens * case.k) as f64 * case.quarters as f64 / 4.0,
            case.experts
        )),
    }
}

/// Checks a router on rank 0's inputs of `case`: every choice (expert, gate within 1e-6,
/// kept), and the drops per expert against an independent count: with token-major
/// order, expert e drops `max(0, wanted_e - C)` of the `wanted_e` choices that name it.
pub fn check_route(route: Route, case: &Case) -> Result<(), String> {
    let cfg = case.cfg();
    let (logits, _) = case.inputs(0);
    let cap = capacity_exact(case.tokens, case.experts, case.k, case.quarters);
    let want = reference_route(&cfg, &logits, cap);
    let got = route(&cfg, &logits).map_err(|e| format!("{}: refused: {e}", case.name()))?;
    if (got.tokens, got.k, got.capacity) != (want.tokens, want.k, want.capacity) {
        return Err(format!(
            "{}: tokens {}, k {}, capacity {}; expected {}, {}, {}",
            case.name(),
            got.tokens,
            got.k,
            got.capacity,
            want.tokens,
            want.k,
            want.capacity
        ));
    }
    if got.choices.len() != want.choices.len() {
        return Err(format!(
            "{}: {} choices, expected T·k = {}",
            case.name(),
            got.choices.len(),
            want.choices.len()
        ));
    }
    for (i, (g, w)) in got.choices.iter().zip(&want.choices).enumerate() {
        let (t, j) = (i / case.k, i % case.k);
        let row = &logits[t * case.experts..(t + 1) * case.experts];
        if g.expert != w.expert || g.kept != w.kept || (g.gate - w.gate).abs() > 1e-6 {
            return Err(format!(
                "{}: token {t} choice {j} (logits {row:?}): expert {} gate {} kept {}; expected \
                 expert {} gate {} kept {}",
                case.name(),
                g.expert,
                g.gate,
                g.kept,
                w.expert,
                w.gate,
                w.kept
            ));
        }
    }
    let mut wanted = vec![0usize; case.experts];
    for c in &want.choices {
        wanted[c.expert] += 1;
    }
    let drops: Vec<usize> = wanted.iter().map(|&n| n.saturating_sub(cap)).collect();
    let load: Vec<usize> = wanted.iter().map(|&n| n.min(cap)).collect();
    if got.dropped != drops || got.load != load {
        return Err(format!(
            "{}: load {:?} dropped {:?}; with C = {cap} and {wanted:?} choices per expert, \
             expected load {load:?} dropped {drops:?}",
            case.name(),
            got.load,
            got.dropped
        ));
    }
    Ok(())
}
