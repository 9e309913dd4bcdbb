//! Given code: a decision table for MPI_Allreduce in the format Open MPI's tuned component
//! reads (a "dynamic rules file", classic format, as Open MPI 4.1 parses it), written and
//! parsed back.
//!
//! The file is a list of integers, `#` starting a comment: the number of collectives (1);
//! the collective's id (2: allreduce); the number of communicator sizes; then for each
//! size: the size, the number of rules, and per rule `message-size algorithm topo
//! segment-size`. A rule applies from its message size (bytes per rank) up to the next
//! rule's; the first rule must start at 0. For a communicator size without its own rules,
//! Open MPI takes the largest size below it that has some. Run with
//! `OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE`.
//! The `tune` benchmark writes one; nothing to run here.

use std::fmt::Write;

/// Open MPI's id of MPI_Allreduce in a rules file.
pub const ALLREDUCE_ID: u64 = 2;

/// Open MPI 4.1's allreduce algorithms (`coll_tuned_allreduce_algorithm`): the number is
/// the index. 0 leaves the choice to Open MPI's fixed decision.
pub const OMPI_ALLREDUCE: [&str; 7] = [
    "fixed",
    "linear",
    "red+bcast",
    "rec.dbl",
    "ring",
    "seg.ring",
    "Raben.",
];

/// The algorithms chosen for each communicator size: `(size, [(from bytes, algorithm)])`,
/// both lists ascending, each size's rules starting at 0 bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllreduceRules {
    /// Per communicator size, the rules in ascending message size.
    pub sizes: Vec<(u64, Vec<(u64, u64)>)>,
}

impl AllreduceRules {
    /// The table for one communicator size from the fastest algorithm at each measured
    /// message size (ascending): a rule where the choice changes, the first at 0 bytes.
    pub fn add(&mut self, comm_size: u64, fastest: &[(u64, u64)]) {
        let mut rules: Vec<(u64, u64)> = Vec::new();
        for &(bytes, alg) in fastest {
            let from = if rules.is_empty() { 0 } else { bytes };
            if rules.last().is_none_or(|&(_, last)| last != alg) {
                rules.push((from, alg));
            }
        }
        self.sizes.push((comm_size, rules));
        self.sizes.sort_by_key(|s| s.0);
    }

    /// The algorithm Open MPI takes for `bytes` on a communicator of `comm_size` ranks
    /// (None where the table has no size at or below it: Open MPI's fixed decision).
    pub fn choice(&self, comm_size: u64, bytes: u64) -> Option<u64> {
        let (_, rules) = self.sizes.iter().rev().find(|(s, _)| *s <= comm_size)?;
        rules
            .iter()
            .rev()
            .find(|(from, _)| *from <= bytes)
            .map(|r| r.1)
    }

    /// The file's text, commented.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "1 # collectives\n{ALLREDUCE_ID} # MPI_Allreduce");
        let _ = writeln!(out, "{} # communicator sizes", self.sizes.len());
        for (size, rules) in &self.sizes {
            let _ = writeln!(
                out,
                "{size} # ranks\n{} # rules: bytes alg topo segsize",
                rules.len()
            );
            for (from, alg) in rules {
                let name = OMPI_ALLREDUCE.get(*alg as usize).unwrap_or(&"?");
                let _ = writeln!(out, "{from} {alg} 0 0 # {name}");
            }
        }
        out
    }

    /// Parses a rules file with MPI_Allreduce's rules only; the error is one line that
    /// names the line of the file and what was expected there.
    pub fn parse(text: &str) -> Result<AllreduceRules, String> {
        let mut numbers = text.lines().enumerate().flat_map(|(i, line)| {
            let data = line.split('#').next().unwrap_or("");
            data.split_whitespace().map(move |w| (i + 1, w))
        });
        let mut next = |what: &str| -> Result<u64, String> {
            match numbers.next() {
                Some((line, word)) => word
                    .parse()
                    .map_err(|_| format!("line {line}: expected {what}, found `{word}`")),
                None => Err(format!("the file ends where {what} is expected")),
            }
        };
        if next("the number of collectives")? != 1 {
            return Err("this table holds MPI_Allreduce only: the first number must be 1".into());
        }
        let id = next("the collective's id")?;
        if id != ALLREDUCE_ID {
            return Err(format!(
                "collective id {id}: MPI_Allreduce is {ALLREDUCE_ID}"
            ));
        }
        let mut table = AllreduceRules::default();
        for _ in 0..next("the number of communicator sizes")? {
            let size = next("a communicator size")?;
            let mut rules: Vec<(u64, u64)> = Vec::new();
            for _ in 0..next("the number of rules")? {
                let from = next("a message size")?;
                let alg = next("an algorithm")?;
                let (_topo, _segsize) = (next("the topology")?, next("the segment size")?);
                if alg as usize >= OMPI_ALLREDUCE.len() {
                    return Err(format!(
                        "{size} ranks, from {from} B: no allreduce algorithm {alg} (0-6)"
                    ));
                }
                if rules.last().is_some_and(|&(f, _)| f >= from) || (rules.is_empty() && from != 0)
                {
                    return Err(format!(
                        "{size} ranks: rules must start at 0 bytes and ascend ({from} B)"
                    ));
                }
                rules.push((from, alg));
            }
            table.sizes.push((size, rules));
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_goes_through_its_text_and_back() {
        let mut t = AllreduceRules::default();
        t.add(4, &[(8, 3), (2048, 3), (131072, 6), (8 << 20, 4)]);
        t.add(2, &[(8, 4)]);
        assert_eq!(t.sizes[1].1, vec![(0, 3), (131072, 6), (8 << 20, 4)]);
        assert_eq!(AllreduceRules::parse(&t.to_text()), Ok(t.clone()));
        assert_eq!(
            (t.choice(4, 100), t.choice(7, 200_000), t.choice(1, 8)),
            (Some(3), Some(6), None)
        );
    }

    #[test]
    fn a_table_it_cannot_read_is_refused_in_one_line() {
        let bad = [
            ("1\n2\n1\n4\n1\n0 9 0 0\n", "no allreduce algorithm 9"),
            ("1\n2\n1\n4\n2\n0 3 0 0\n0 4 0 0\n", "ascend"),
            (
                "1\n2\n1\n4\n1\n0 three 0 0\n",
                "line 6: expected an algorithm, found `three`",
            ),
            (
                "1\n2\n1\n4\n2\n0 3 0 0\n",
                "the file ends where a message size",
            ),
            ("1\n3\n", "collective id 3"),
        ];
        for (text, says) in bad {
            let err = AllreduceRules::parse(text).unwrap_err();
            assert!(err.contains(says) && !err.contains('\n'), "{err}");
        }
    }
}
