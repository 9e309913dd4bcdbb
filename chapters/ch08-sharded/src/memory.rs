//! Given: the stages, what a rank holds in each (measured from its buffers, and by the
//! formulas of the ZeRO paper), and the bytes a ring sends per step.
//!
//! With f32 parameters and Adam, a plain data-parallel rank holds 16 bytes per parameter:
//! 4 for the parameter, 4 for its gradient, 4 + 4 for Adam's m and v. ZeRO-1 shards m and
//! v over the N ranks, ZeRO-2 the gradients too:
//!
//! | stage | bytes per rank |
//! |---|---|
//! | 0 (plain data parallelism) | 16P |
//! | 1 (ZeRO-1) | 8P + 8P/N |
//! | 2 (ZeRO-2) | 4P + 12P/N |

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tabled::Tabled;

/// What a rank shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Stage 0: plain data parallelism (allreduce, Adam on every parameter everywhere).
    Replicated,
    /// Stage 1: ZeRO-1, Adam's m and v sharded.
    Zero1,
    /// Stage 2: ZeRO-2, the gradients sharded too.
    Zero2,
    /// Stage 3: ZeRO-3 (FSDP), the parameters sharded too, gathered one layer at a time.
    Zero3,
}

impl Stage {
    /// 0, 1 or 2.
    pub fn number(self) -> u8 {
        match self {
            Stage::Replicated => 0,
            Stage::Zero1 => 1,
            Stage::Zero2 => 2,
            Stage::Zero3 => 3,
        }
    }

    /// "plain DP", "ZeRO-1", "ZeRO-2", "ZeRO-3".
    pub fn name(self) -> &'static str {
        match self {
            Stage::Replicated => "plain DP",
            Stage::Zero1 => "ZeRO-1",
            Stage::Zero2 => "ZeRO-2",
            Stage::Zero3 => "ZeRO-3",
        }
    }

    /// The formula of [`formula`], as text.
    pub fn formula_text(self) -> &'static str {
        match self {
            Stage::Replicated => "16P",
            Stage::Zero1 => "8P + 8P/N",
            Stage::Zero2 => "4P + 12P/N",
            Stage::Zero3 => "16P/N + 8L",
        }
    }
}

/// Bytes a rank holds between steps, by kind, measured from the buffers it keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// The flat parameters (every stage holds them all).
    pub params: usize,
    /// The gradient kept for the step: the whole flat gradient, or (ZeRO-2) its shard.
    pub grads: usize,
    /// Adam's m and v: for every parameter, or (ZeRO-1, 2, 3) for the shard.
    pub adam: usize,
    /// ZeRO-3: the most held at once for a while inside the last step (gathered layers
    /// and a layer's whole gradient); 0 at the other stages.
    pub gathered: usize,
}

impl Held {
    /// All of it.
    pub fn total(&self) -> usize {
        self.params + self.grads + self.adam + self.gathered
    }
}

/// Bytes per rank by the formula, for `p` parameters over `n` ranks (f32, Adam).
pub fn formula(stage: Stage, p: usize, n: usize) -> f64 {
    let (p, n) = (p as f64, n as f64);
    match stage {
        Stage::Replicated => 16.0 * p,
        Stage::Zero1 => 8.0 * p + 8.0 * p / n,
        Stage::Zero2 => 4.0 * p + 12.0 * p / n,
        Stage::Zero3 => 16.0 * p / n,
    }
}

/// ZeRO-3's bytes held inside a step beyond its shards, for layers of `padded` parameters
/// each (forward order, padding included): a layer gathered and its whole gradient, 8L,
/// at the largest; with `prefetch`, plus the layer before it, gathered ahead in the
/// backward (the forward's two gathered layers, 4L + 4L', never exceed that).
pub fn gathered_formula(padded: &[usize], prefetch: bool) -> usize {
    let before = |l: usize| if prefetch && l > 0 { padded[l - 1] } else { 0 };
    (0..padded.len())
        .map(|l| 4 * (2 * padded[l] + before(l)))
        .max()
        .unwrap_or(0)
}

/// Bytes a rank sends per step at ZeRO-3 on the ring: an allgather in the forward, one in
/// the backward and a reduce-scatter of each layer's `padded` values, 3L(N-1)/N each.
pub fn sent_formula_zero3(padded: &[usize], n: usize) -> f64 {
    padded.iter().map(|&l| 1.5 * sent_formula(l, n)).sum()
}

/// Bytes a rank sends per step in a ring reduce-scatter plus a ring allgather (or one ring
/// allreduce) of `p` f32 values over `n` ranks: 2P(N-1)/N values of 4 bytes.
pub fn sent_formula(p: usize, n: usize) -> f64 {
    4.0 * 2.0 * p as f64 * (n as f64 - 1.0) / n as f64
}

/// One rank's line of the lab's table.
#[derive(Clone, Debug, Tabled)]
pub struct RankRow {
    #[tabled(rename = "rank")]
    pub rank: usize,
    #[tabled(rename = "params B")]
    pub params: usize,
    #[tabled(rename = "grads B")]
    pub grads: usize,
    #[tabled(rename = "Adam m+v B")]
    pub adam: usize,
    #[tabled(rename = "held B")]
    pub held: usize,
    #[tabled(rename = "formula B")]
    pub formula: String,
    #[tabled(rename = "held - formula")]
    pub over: String,
    #[tabled(rename = "sent/step B")]
    pub sent: String,
    /// The stage's bytes sent by formula (2P(N-1)/N x 4; ZeRO-3: 3P(N-1)/N x 4).
    #[tabled(rename = "sent formula B")]
    pub sent_formula: String,
    /// ZeRO-3: the peak of gathered layers and gradients inside the step (in `held`).
    #[tabled(rename = "gathered peak B")]
    pub gathered: usize,
}

/// Collective: every rank's `held` bytes and the bytes it `sent` in a step (None: not
/// counted) to rank 0, which gets its table's rows against `formula` (bytes held) and
/// `sent_formula`; `inside_mpi`: the collectives were MPI's own, whose sends the recorder
/// does not see. The other ranks get `None`.
pub fn gather_rows(
    world: &SimpleCommunicator,
    held: Held,
    sent: Option<usize>,
    formula: f64,
    sent_formula: f64,
    inside_mpi: bool,
) -> Option<Vec<RankRow>> {
    let mine = [
        held.params,
        held.grads,
        held.adam,
        held.gathered,
        sent.unwrap_or(usize::MAX),
    ]
    .map(|x| x as u64);
    let mut all = vec![0u64; 5 * world.size() as usize];
    world.all_gather_into(&mine[..], &mut all[..]);
    let row = |(rank, f): (usize, &[u64])| {
        let held = (f[0] + f[1] + f[2] + f[3]) as usize;
        RankRow {
            rank,
            params: f[0] as usize,
            grads: f[1] as usize,
            adam: f[2] as usize,
            held,
            formula: format!("{formula:.1}"),
            over: format!("{:.1}", held as f64 - formula),
            sent: match (inside_mpi, f[4]) {
                (true, _) => "inside MPI".into(),
                (_, s) if s == u64::MAX => "-".into(),
                (_, s) => s.to_string(),
            },
            sent_formula: format!("{sent_formula:.1}"),
            gathered: f[3] as usize,
        }
    };
    (world.rank() == 0).then(|| all.chunks(5).enumerate().map(row).collect())
}
