//! Planted faults: a learner's mistake injected into an unchanged program, at the PMPI
//! layer ([`crate::wrappers`]), by the `WORKBOOK_FAULT` setting.
//!
//! The checks must name a hang or a wrong message in the very test a learner runs, not in
//! a copy of it. A fault makes one rank's MPI calls misbehave the way a mistaken program
//! would, with no change to the program: a rank that skips a broadcast, a send with the
//! wrong tag. Rules, separated by commas:
//!
//! | rule | on rank R, every call to CALL ... | the mistake it stands for |
//! |---|---|---|
//! | `MPI_Bcast@3:skip` | returns at once, doing nothing | `if rank != last { broadcast }` |
//! | `MPI_Isend@1:tag+1` | goes out with its tag plus 1 | `send(.., tag = i + 1)` |
//!
//! `skip` applies to the blocking calls the recorder wraps (sends and collectives: a
//! skipped receive or wait would leave a buffer or a request undefined). `tag+N` applies to
//! the tag a rank sends with: `MPI_Send`, `MPI_Ssend`, `MPI_Isend`, `MPI_Sendrecv` and
//! `MPI_Sendrecv_replace`. Run it:
//! `WORKBOOK_FAULT=MPI_Bcast@2:skip cargo test -p ch06-data-parallel --features solution
//! --test main broadcast::`. A rule that does not parse stops the rank with the rule's text.

use std::sync::OnceLock;

/// What a fault does to a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call returns `MPI_SUCCESS` without doing anything.
    Skip,
    /// A send goes out with its tag plus this.
    Retag(i32),
}

/// One rule of `WORKBOOK_FAULT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The MPI function, e.g. `MPI_Bcast`.
    pub call: String,
    /// The rank (in `MPI_COMM_WORLD`) whose calls misbehave.
    pub rank: i32,
    pub fault: Fault,
}

static RULES: OnceLock<Vec<Rule>> = OnceLock::new();

/// Parses `WORKBOOK_FAULT`'s text into rules.
pub fn parse(text: &str) -> Result<Vec<Rule>, String> {
    let mut rules = vec![];
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad =
            |why: &str| format!("WORKBOOK_FAULT rule {part:?}: {why} (e.g. MPI_Bcast@3:skip)");
        let (call, rest) = part.split_once('@').ok_or_else(|| bad("no @RANK"))?;
        let (rank, fault) = rest
            .split_once(':')
            .ok_or_else(|| bad("no :skip or :tag+N"))?;
        let rank = rank.parse().map_err(|_| bad("the rank is not a number"))?;
        let fault = match fault {
            "skip" => Fault::Skip,
            f => match f.strip_prefix("tag+").map(str::parse) {
                Some(Ok(n)) => Fault::Retag(n),
                _ => return Err(bad("the fault is neither skip nor tag+N")),
            },
        };
        if !call.starts_with("MPI_") {
            return Err(bad("the call must be an MPI function such as MPI_Send"));
        }
        let receives = ["Recv", "Wait", "Probe"].iter().any(|w| call.contains(w));
        if fault == Fault::Skip && receives {
            return Err(bad("only sends and collectives can be skipped"));
        }
        let call = call.to_string();
        rules.push(Rule { call, rank, fault });
    }
    Ok(rules)
}

/// The rules in force (none unless `WORKBOOK_FAULT` is set).
fn rules() -> &'static [Rule] {
    RULES.get_or_init(|| match std::env::var("WORKBOOK_FAULT") {
        Ok(text) => parse(&text).unwrap_or_else(|why| {
            crate::job::say(&why);
            crate::job::abort_job(2)
        }),
        Err(_) => vec![],
    })
}

/// The fault planted in `call` on this rank, if any. Costs one load when none is set.
pub fn planted(call: &str) -> Option<Fault> {
    let rules = rules();
    if rules.is_empty() {
        return None;
    }
    let rank = crate::job::world_rank()?;
    rules
        .iter()
        .find(|r| r.rank == rank && r.call == call)
        .map(|r| r.fault)
}

/// True when `call` is to be skipped on this rank.
pub(crate) fn skip(call: &str) -> bool {
    planted(call) == Some(Fault::Skip)
}

/// The tag `call` really sends with on this rank.
pub(crate) fn tag(call: &str, tag: i32) -> i32 {
    match planted(call) {
        Some(Fault::Retag(n)) => tag + n,
        _ => tag,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_bad_ones_say_which_part_is_wrong() {
        let rules = parse("MPI_Bcast@3:skip, MPI_Isend@1:tag+1").unwrap();
        assert_eq!(rules[0].call, "MPI_Bcast");
        assert_eq!((rules[0].rank, rules[0].fault), (3, Fault::Skip));
        assert_eq!((rules[1].rank, rules[1].fault), (1, Fault::Retag(1)));
        assert!(parse("").unwrap().is_empty());
        for (bad, says) in [
            ("MPI_Bcast:skip", "no @RANK"),
            ("MPI_Bcast@x:skip", "not a number"),
            ("MPI_Bcast@1:drop", "neither skip nor tag+N"),
            ("Bcast@1:skip", "an MPI function"),
            ("MPI_Recv@0:skip", "only sends and collectives"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(says) && err.contains(bad), "{bad}: {err}");
        }
    }
}
