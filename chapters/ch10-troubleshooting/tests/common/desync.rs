//! Shared checks of exercise 10.6 (a desync check before each collective), used by the
//! tests (tests/desync.rs) and by the planted mistakes
//! (solutions/ch10-troubleshooting/planted_mistakes.rs): random plans of what each rank
//! calls, the verdict expected of them, worked out apart from the exercise, and checks
//! that return `Err(message)` naming the case. Not a test itself.

use ch10::fingerprint::{CallKind, Fingerprint, Mismatch};
use proptest::prelude::*;
use std::cmp::Reverse;

/// How one rank's call differs from the plan's base call.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    Same,
    /// Another collective (its root, if it has one, the base's or 0; a barrier: no bytes).
    Call(CallKind),
    /// Another root (for a call that has one; else no change).
    Root(i32),
    /// Other bytes (for a call that is not a barrier; else no change).
    Bytes(u64),
    /// One collective ahead (`true`) or behind: it skipped one, or the others did.
    Seq(bool),
}

/// A collective as every rank is about to call it: one base call, changed on some ranks.
#[derive(Clone, Debug)]
pub struct Plan {
    pub base: Fingerprint,
    /// One per rank.
    pub changes: Vec<Change>,
}

impl Plan {
    /// Every rank's fingerprint, in rank order.
    pub fn all(&self) -> Vec<Fingerprint> {
        self.changes
            .iter()
            .map(|c| changed(self.base, *c))
            .collect()
    }
}

/// `base` with `change` applied.
pub fn changed(base: Fingerprint, change: Change) -> Fingerprint {
    let mut f = base;
    match change {
        Change::Same => {}
        Change::Call(call) => {
            f.call = call;
            f.root = if call.has_root() {
                base.root.max(0)
            } else {
                -1
            };
            f.bytes = if call == CallKind::Barrier {
                0
            } else {
                base.bytes
            };
        }
        Change::Root(root) if base.call.has_root() => f.root = root,
        Change::Bytes(bytes) if base.call != CallKind::Barrier => f.bytes = bytes,
        Change::Root(_) | Change::Bytes(_) => {}
        Change::Seq(ahead) => f.seq = if ahead { base.seq + 1 } else { base.seq - 1 },
    }
    f
}

/// A fingerprint of `p` ranks' job: collective #1 to #40, any call, any root, 0 to 16 MiB
/// (a barrier: none).
fn base(p: usize) -> impl Strategy<Value = Fingerprint> {
    let calls = prop::sample::select(CallKind::ALL.to_vec());
    let bytes = prop_oneof![Just(0u64), Just(4 << 20), 1u64..1 << 24];
    (1u64..=40, calls, 0..p as i32, bytes).prop_map(|(seq, call, root, bytes)| Fingerprint {
        seq,
        call,
        root: if call.has_root() { root } else { -1 },
        bytes: if call == CallKind::Barrier { 0 } else { bytes },
    })
}

/// A change other than `Same`, from few values, so that odd ranks often share one.
fn deviation(p: usize) -> impl Strategy<Value = Change> {
    let calls = prop::sample::select(vec![
        CallKind::Bcast,
        CallKind::Allreduce,
        CallKind::Barrier,
    ]);
    prop_oneof![
        calls.prop_map(Change::Call),
        (0..p as i32).prop_map(Change::Root),
        prop::sample::select(vec![0u64, 4 << 20, 8 << 20]).prop_map(Change::Bytes),
        any::<bool>().prop_map(Change::Seq),
    ]
}

/// Plans of `p` ranks: all alike; exactly one rank odd (rank 0 as likely as any); or any
/// number of ranks changed, up to all of them (then the majority may be a changed call).
pub fn plans(p: usize) -> impl Strategy<Value = Plan> {
    let alike = Just(vec![Change::Same; p]);
    let one = (0..p, deviation(p)).prop_map(move |(rank, c)| {
        let mut changes = vec![Change::Same; p];
        changes[rank] = c;
        changes
    });
    let maybe = prop_oneof![2 => Just(Change::Same), 1 => deviation(p)];
    let several = prop::collection::vec(maybe, p);
    let changes = prop_oneof![1 => alike, 2 => one, 3 => several];
    (base(p), changes).prop_map(|(base, changes)| Plan { base, changes })
}

/// The verdict expected of `all`, by counting for each rank how many ranks have its
/// fingerprint: the most (of equal counts, the lowest rank) is the expected one.
pub fn expected_verdict(all: &[Fingerprint]) -> Option<Mismatch> {
    let count = |r: usize| all.iter().filter(|f| **f == all[r]).count();
    let best = (0..all.len()).max_by_key(|&r| (count(r), Reverse(r)))?;
    if count(best) == all.len() {
        return None;
    }
    let expected = all[best];
    Some(Mismatch {
        expected,
        agree: (0..all.len()).filter(|&r| all[r] == expected).collect(),
        odd: (0..all.len())
            .filter(|&r| all[r] != expected)
            .map(|r| (r, all[r]))
            .collect(),
    })
}

/// Compares a verdict with the expected one; `case` and `who` name what is checked.
fn compare(
    case: &str,
    who: &str,
    got: Option<&Mismatch>,
    all: &[Fingerprint],
) -> Result<(), String> {
    let want = expected_verdict(all);
    Err(match (got, &want) {
        (g, w) if g == w.as_ref() => return Ok(()),
        (None, Some(w)) => format!("{case}: your {who} found no mismatch; expected: {w}"),
        (Some(g), None) => format!(
            "{case}, every one calling {}: your {who} found a mismatch: {g}",
            all[0]
        ),
        (Some(g), Some(w)) if g.to_string() != w.to_string() => {
            format!("{case}: your {who} says [{g}], expected [{w}]")
        }
        (g, w) => format!("{case}: your {who} gives {g:?}, expected {w:?} (the fields differ)"),
    })
}

/// An `odd_ranks` function (ex 10.6).
pub type OddRanks = fn(&[Fingerprint]) -> Option<Mismatch>;

/// Checks an `odd_ranks` function on every rank's fingerprint `all`.
pub fn check_odd_ranks(odd_ranks: OddRanks, all: &[Fingerprint]) -> Result<(), String> {
    let case = format!("{} ranks", all.len());
    compare(&case, "odd_ranks", odd_ranks(all).as_ref(), all)
}

/// Checks what `check_collective` returned on `rank` when the ranks' fingerprints are `all`.
pub fn check_verdict(
    got: Result<(), Mismatch>,
    all: &[Fingerprint],
    rank: usize,
) -> Result<(), String> {
    let case = format!("rank {rank} of {}", all.len());
    compare(&case, "check_collective", got.err().as_ref(), all)
}

/// The chapter's worked example: `p` ranks at collective #17 allreduce 4 MiB, but rank
/// `odd` broadcasts it from root 0.
pub fn one_broadcast(p: usize, odd: usize) -> Vec<Fingerprint> {
    let allreduce = Fingerprint {
        seq: 17,
        call: CallKind::Allreduce,
        root: -1,
        bytes: 4 << 20,
    };
    let mut all = vec![allreduce; p];
    all[odd] = changed(allreduce, Change::Call(CallKind::Bcast));
    all
}
