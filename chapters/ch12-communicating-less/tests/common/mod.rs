//! Shared checks of chapter 12's exercises: each takes the allreduce under test and
//! returns `Err(message)` naming the rank and the case it got wrong, so the exercises'
//! tests and the planted mistakes (solutions/ch12-communicating-less/planted_mistakes.rs)
//! use the same ones.
//!
//! Not a test itself; `mod common;` in each test file.
#![allow(dead_code)] // each test file uses part of it

pub mod local;
pub mod quant;

pub use local::{check_local, LocalCase};

use ch12::nodes::{NodeGroups, Nodes};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::{abs_sums, close_sums, exact};

/// A hierarchical allreduce (ex 12.1's or ex 12.2's), on `i64` and on `f32`.
pub type Allreduce = (
    fn(&NodeGroups, &[i64]) -> Vec<i64>,
    fn(&NodeGroups, &[f32]) -> Vec<f32>,
);

/// One case: `len` elements per rank, a layout (0: `split_shared`, k: k emulated nodes,
/// capped at the rank count), a seed.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub len: usize,
    pub nodes: usize,
    pub seed: u64,
}

impl Case {
    /// The layout at `ranks` ranks.
    pub fn layout(&self, ranks: usize) -> Nodes {
        match self.nodes {
            0 => Nodes::Shared,
            k => Nodes::Emulated(k.min(ranks)),
        }
    }

    /// The case in one line, as the messages name it.
    pub fn name(&self, ranks: usize) -> String {
        format!(
            "len={} nodes={:?} seed={}",
            self.len,
            self.layout(ranks),
            self.seed
        )
    }
}

/// The cases: 0 to 40 elements (lengths that the node sizes do not divide included), the
/// real nodes or 1, 2 or 3 emulated ones.
pub fn cases() -> impl Strategy<Value = Case> {
    (0usize..41, 0usize..4, any::<u64>()).prop_map(|(len, nodes, seed)| Case { len, nodes, seed })
}

/// splitmix64: the same numbers on every rank that asks.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Rank `rank`'s inputs: integers in -1000..1000 and floats in -1000..1000 with
/// magnitudes spread over six decimal orders (so that the order of the sum shows).
pub fn inputs(case: &Case, rank: usize) -> (Vec<i64>, Vec<f32>) {
    let mut s = case.seed ^ (rank as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
    let ints = (0..case.len)
        .map(|_| (next(&mut s) % 2001) as i64 - 1000)
        .collect();
    let floats = (0..case.len)
        .map(|_| {
            let u = (next(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            let scale = 10f64.powi((next(&mut s) % 6) as i32 - 2);
            ((u * 2.0 - 1.0) * scale) as f32
        })
        .collect();
    (ints, floats)
}

/// Builds the case's groups and checks one allreduce on it against MPI_Allreduce: `i64`
/// exactly, `f32` within the summation bound for `p` terms. Ranks whose nodes are not
/// all of one size skip `busy` (it needs equal nodes) when `needs_uniform` is set.
pub fn check_allreduce(
    world: &SimpleCommunicator,
    (ints, floats): Allreduce,
    case: &Case,
    needs_uniform: bool,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = format!("rank {rank} of {p}, {}", case.name(p));
    let groups = NodeGroups::new(world, case.layout(p)).map_err(|e| format!("{at}: {e}"))?;
    if needs_uniform && !groups.uniform() {
        return Ok(());
    }
    let at = format!("{at} ({})", groups.describe());
    let (my_ints, my_floats) = inputs(case, rank);
    let mut want_i = vec![0i64; case.len];
    world.all_reduce_into(&my_ints[..], &mut want_i[..], SystemOperation::sum());
    let mut want_f = vec![0f32; case.len];
    world.all_reduce_into(&my_floats[..], &mut want_f[..], SystemOperation::sum());
    let got_i = ints(&groups, &my_ints);
    let got_f = floats(&groups, &my_floats);
    // The classic slip: a rank left with its own values (the result never came back).
    let why = if got_i == my_ints && want_i != my_ints {
        ": this rank holds its own values: the sum never came back to it (the leader \
         broadcasts the result to its node)"
    } else {
        ""
    };
    exact(&format!("{at}: i64 sums"), &got_i, &want_i).map_err(|e| e + why)?;
    let all: Vec<Vec<f32>> = (0..p).map(|r| inputs(case, r).1).collect();
    let sums = abs_sums(case.len, &all);
    close_sums(&format!("{at}: f32 sums"), &got_f, &want_f, &sums, p)
}

/// Ex 12.3's step, as the checks take it.
pub type Step = fn(&SimpleCommunicator, &mut ch12::feedback::Feedback, &[f32]) -> Vec<f32>;

/// Rank `rank`'s gradient and old residual for a top-k case: whole numbers in -1000..1000
/// stored as `f32`, so that every sum of the checks is exact in any order; ties are common.
pub fn integer_inputs(case: &Case, rank: usize) -> (Vec<f32>, Vec<f32>) {
    let mut s = case.seed ^ (rank as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d);
    let mut draw = || {
        (0..case.len)
            .map(|_| (next(&mut s) % 2001) as f32 - 1000.0)
            .collect()
    };
    (draw(), draw())
}

/// Ok if `kept` holds `k` ascending indices of `xs` and no element left out is larger in
/// magnitude than one kept, or as large at a lower index.
pub fn check_top_k(at: &str, xs: &[f32], k: usize, kept: &[u32]) -> Result<(), String> {
    if kept.len() != k || kept.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{at}: top_k kept {kept:?}: expected {k} ascending indices"
        ));
    }
    let is_kept = |i: usize| kept.contains(&(i as u32));
    for &i in kept {
        let x = xs[i as usize].abs();
        let beats =
            |j: usize| !is_kept(j) && (xs[j].abs() > x || (xs[j].abs() == x && j < i as usize));
        if let Some(j) = (0..xs.len()).find(|&j| beats(j)) {
            return Err(format!(
                "{at}: top_k kept index {i} (|x| = {x}) but left out index {j} (|x| = {})",
                xs[j].abs()
            ));
        }
    }
    Ok(())
}

/// Checks one step on every rank: the bytes counted against 4 + 8·k, the new residual
/// (exactly the accumulated gradient with the sent elements zeroed), the result (exactly
/// the sum of every rank's sent pieces), and so the conservation: result + Σ residuals =
/// Σ (gradient + old residual).
pub fn check_step(
    world: &SimpleCommunicator,
    step: Step,
    case: &Case,
    percent: f64,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let at = format!(
        "rank {rank} of {p}, len={} top-k {percent}% seed={}",
        case.len, case.seed
    );
    let mut fb =
        ch12::feedback::Feedback::new(case.len, percent).map_err(|e| format!("{at}: {e}"))?;
    let (grad, old) = integer_inputs(case, rank);
    fb.residual = old.clone();
    let got = step(world, &mut fb, &grad);
    if fb.bytes_sent != fb.bytes_per_step() {
        return Err(format!(
            "{at}: counted {} bytes sent, the formula 4 + 8·{} says {}",
            fb.bytes_sent,
            fb.keep,
            fb.bytes_per_step()
        ));
    }
    // The sum as it is, and as it comes out when the old residual is never added back.
    let (mut want, mut without) = (vec![0f32; case.len], vec![0f32; case.len]);
    for r in 0..p {
        let (g, o) = integer_inputs(case, r);
        let acc: Vec<f32> = g.iter().zip(&o).map(|(g, o)| g + o).collect();
        let kept = ch12::topk::top_k(&acc, fb.keep);
        check_top_k(&format!("{at}: rank {r}'s pieces"), &acc, fb.keep, &kept)?;
        let mut rest = acc.clone();
        for &i in &kept {
            want[i as usize] += acc[i as usize];
            rest[i as usize] = 0.0;
        }
        for i in ch12::topk::top_k(&g, fb.keep) {
            without[i as usize] += g[i as usize];
        }
        if r == rank {
            let kept_sent = fb.residual == acc && rest != acc;
            exact(
                &format!("{at}: residual (gradient + old residual, minus what was sent)"),
                &fb.residual,
                &rest,
            )
            .map_err(|why| match kept_sent {
                true => why + ": the residual still holds the values sent: zero them after sending, or they are sent again next step",
                false => why,
            })?;
        }
    }
    let never_added = got == without && without != want;
    exact(
        &format!("{at}: result (the sum of every rank's sent pieces)"),
        &got,
        &want,
    )
    .map_err(|why| match never_added {
        true => why + ": it is the sum of each rank's top-k of its gradient alone: the old residual was never added back (select from gradient + residual)",
        false => why,
    })
}
