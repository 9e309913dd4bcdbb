//! Chapter 10, given code for exercise 10.6: a collective call's fingerprint (which call,
//! its root, its bytes, its place in the communicator's sequence of collectives), as text
//! and as a fixed array of integers for an allgather; and the verdict of a mismatch, as
//! text. Read it, use it; ex 10.6 (`desync.rs`) compares the ranks' fingerprints. Checked
//! with `make check CH=10` (tests/desync.rs).

use std::fmt;

/// The collectives a fingerprint can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallKind {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Allgather,
    Scatter,
    Alltoall,
    ReduceScatter,
}

impl CallKind {
    /// Every kind, in the order of their codes (a kind's code is its index here).
    pub const ALL: [CallKind; 9] = [
        CallKind::Barrier,
        CallKind::Bcast,
        CallKind::Reduce,
        CallKind::Allreduce,
        CallKind::Gather,
        CallKind::Allgather,
        CallKind::Scatter,
        CallKind::Alltoall,
        CallKind::ReduceScatter,
    ];

    /// The MPI name of the call: `MPI_Bcast`.
    pub fn name(self) -> &'static str {
        match self {
            CallKind::Barrier => "MPI_Barrier",
            CallKind::Bcast => "MPI_Bcast",
            CallKind::Reduce => "MPI_Reduce",
            CallKind::Allreduce => "MPI_Allreduce",
            CallKind::Gather => "MPI_Gather",
            CallKind::Allgather => "MPI_Allgather",
            CallKind::Scatter => "MPI_Scatter",
            CallKind::Alltoall => "MPI_Alltoall",
            CallKind::ReduceScatter => "MPI_Reduce_scatter",
        }
    }

    /// Whether the call has a root rank (a broadcast, a reduce, a gather, a scatter).
    pub fn has_root(self) -> bool {
        matches!(
            self,
            CallKind::Bcast | CallKind::Reduce | CallKind::Gather | CallKind::Scatter
        )
    }

    /// The kind's code: its index in [`CallKind::ALL`].
    pub fn code(self) -> u64 {
        CallKind::ALL.iter().position(|&k| k == self).unwrap() as u64
    }
}

// ANCHOR: fingerprint
/// What one rank is about to call: the `seq`-th collective on this communicator
/// (numbered from 1, as the harness's flight recorder numbers them), which one, its root (-1 when the call has none) and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    pub seq: u64,
    pub call: CallKind,
    pub root: i32,
    pub bytes: u64,
}

/// The number of integers of a fingerprint as [`Fingerprint::to_words`] writes it: the
/// same on every rank, so the allgather that compares them always matches.
pub const WORDS: usize = 4;
// ANCHOR_END: fingerprint

impl Fingerprint {
    /// The call without its place: `MPI_Bcast(root=0 4194304 bytes)`,
    /// `MPI_Allreduce(4194304 bytes)` when the root is -1, `MPI_Barrier()` for a barrier
    /// with neither.
    pub fn call_text(&self) -> String {
        let name = self.call.name();
        match (self.root, self.bytes) {
            (r, bytes) if r >= 0 => format!("{name}(root={r} {bytes} bytes)"),
            (_, 0) if self.call == CallKind::Barrier => format!("{name}()"),
            (_, bytes) => format!("{name}({bytes} bytes)"),
        }
    }

    /// The fingerprint as integers, for an allgather: seq, call code, root (as the bits
    /// of an `i64`), bytes.
    pub fn to_words(&self) -> [u64; WORDS] {
        [
            self.seq,
            self.call.code(),
            i64::from(self.root) as u64,
            self.bytes,
        ]
    }

    /// Reads back what [`Fingerprint::to_words`] wrote; panics on anything else.
    pub fn from_words(words: &[u64]) -> Fingerprint {
        let [seq, code, root, bytes] = words.try_into().unwrap_or_else(|_| {
            panic!(
                "{} words, not a fingerprint's {WORDS}: {words:?}",
                words.len()
            )
        });
        let call = *CallKind::ALL.get(code as usize).unwrap_or_else(|| {
            panic!("word 1 is {code}, not a call's code: were these words made by to_words?")
        });
        Fingerprint {
            seq,
            call,
            root: root as i64 as i32,
            bytes,
        }
    }
}

impl fmt::Display for Fingerprint {
    /// `MPI_Bcast(root=0 4194304 bytes) as collective #17`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} as collective #{}", self.call_text(), self.seq)
    }
}

// ANCHOR: mismatch
/// The ranks of one collective that are about to call something else than the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The fingerprint most ranks have (of a tie, the one of the lowest rank).
    pub expected: Fingerprint,
    /// The ranks that have it, in rank order.
    pub agree: Vec<usize>,
    /// Every other rank, in rank order, with its own fingerprint.
    pub odd: Vec<(usize, Fingerprint)>,
}
// ANCHOR_END: mismatch

/// Ranks as text, consecutive ones as a range: `rank 3`, `ranks 0-2, 5` (the harness's
/// words, which its desync line uses too).
pub use toolkit::desync::ranks_text;

impl fmt::Display for Mismatch {
    /// `collective #17 on this communicator: rank 3 calls MPI_Bcast(root=0 4194304
    /// bytes); ranks 0-2 call MPI_Allreduce(4194304 bytes)`: the odd ranks first, grouped
    /// by what they call (with its place when it is not the expected one), then the others.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let says = |ranks: &[usize], print: &Fingerprint| {
            let verb = if ranks.len() == 1 { "calls" } else { "call" };
            let mut text = format!("{} {verb} {}", ranks_text(ranks), print.call_text());
            if print.seq != self.expected.seq {
                text += &format!(" as collective #{}", print.seq);
            }
            text
        };
        let mut groups: Vec<(Fingerprint, Vec<usize>)> = vec![];
        for (rank, print) in &self.odd {
            match groups.iter_mut().find(|g| g.0 == *print) {
                Some(g) => g.1.push(*rank),
                None => groups.push((*print, vec![*rank])),
            }
        }
        let mut parts: Vec<String> = groups.iter().map(|(p, r)| says(r, p)).collect();
        parts.push(says(&self.agree, &self.expected));
        let seq = self.expected.seq;
        write!(
            f,
            "collective #{seq} on this communicator: {}",
            parts.join("; ")
        )
    }
}
