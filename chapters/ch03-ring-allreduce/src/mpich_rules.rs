//! Given code: [`rules`]'s decision table in the format MPICH 4.0 reads instead (a
//! collective selection file, JSON), written and parsed back.
//!
//! The file is a tree of JSON objects whose keys are conditions, tried in the order they
//! are written; the first that holds is followed, down to an `"algorithm=NAME":{}` leaf:
//! `"collective=allreduce"`, `"comm_type=intra"`, then `"comm_size<=N"` (the last one
//! `"comm_size=any"`), then `"avg_msg_size<N"` (bytes per rank; the last `=any`). Run with
//! `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE`.
//!
//! MPICH reads this file *instead of* its own tree: a collective the file leaves out stops
//! the program at `Assertion failed in file src/mpi/coll/mpir_coll.c ...: cnt`. So the file
//! also names one algorithm for MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Iallreduce (the
//! ones the `tune` benchmark's launches call, directly or through MPICH's `smp` and `nb`
//! allreduce). For a whole program, put its allreduce section
//! into the `maint/tuning/coll/mpir/generic.json` of your MPICH's sources. A communicator
//! between two table sizes takes the rules of the next size up (Open MPI's file: the next
//! size down); the tuner measures only the table's sizes. The `tune` benchmark writes one.

use crate::rules::AllreduceRules;
use std::fmt::Write;

/// MPICH 4.0's allreduce algorithms (`MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM`), index as in
/// the tuner's table; 0 (`auto`) leaves the choice to MPICH's own tree.
pub const MPICH_ALLREDUCE: [&str; 5] = [
    "auto",
    "recursive_doubling",
    "reduce_scatter_allgather",
    "smp",
    "nb",
];

/// Short names of [`MPICH_ALLREDUCE`] for the table's columns (the course's names).
pub const MPICH_ALLREDUCE_LABELS: [&str; 5] = ["auto", "rec.dbl", "Raben.", "smp", "nb"];

/// The other collectives the file must name (the file's name, the call), with the one
/// algorithm it gives each.
const OTHERS: [(&str, &str, &str); 4] = [
    ("barrier", "MPI_Barrier", "MPIR_Barrier_intra_dissemination"),
    ("bcast", "MPI_Bcast", "MPIR_Bcast_intra_binomial"),
    ("reduce", "MPI_Reduce", "MPIR_Reduce_intra_binomial"),
    // MPICH's `nb` allreduce is MPI_Iallreduce, waited for: it selects from the tree too.
    (
        "iallreduce",
        "MPI_Iallreduce",
        "MPIR_Iallreduce_intra_sched_recursive_doubling",
    ),
];

/// The function MPICH's file names for algorithm `k` of [`MPICH_ALLREDUCE`] (1-4).
fn function(k: usize) -> String {
    let name = MPICH_ALLREDUCE[k];
    let kind = if name == "nb" { "allcomm" } else { "intra" };
    format!("MPIR_Allreduce_{kind}_{name}")
}

/// The selection file for `rules` (algorithms numbered as in [`MPICH_ALLREDUCE`], 1-4).
pub fn to_json(rules: &AllreduceRules) -> String {
    let mut out = String::from("{\n  \"collective=allreduce\": {\n    \"comm_type=intra\": {\n");
    let mut sizes: Vec<String> = rules.sizes.iter().map(|(p, _)| format!("<={p}")).collect();
    sizes.push("=any".into()); // larger communicators: the largest size's rules
    for (i, cond) in sizes.iter().enumerate() {
        let msgs = &rules.sizes[i.min(rules.sizes.len() - 1)].1;
        let _ = writeln!(out, "      \"comm_size{cond}\": {{");
        for (j, &(_, alg)) in msgs.iter().enumerate() {
            let bound = msgs
                .get(j + 1)
                .map_or("=any".into(), |n| format!("<{}", n.0));
            let leaf = function(alg as usize);
            let comma = if j + 1 < msgs.len() { "," } else { "" };
            let _ = writeln!(
                out,
                "        \"avg_msg_size{bound}\": {{ \"algorithm={leaf}\": {{}} }}{comma}"
            );
        }
        let comma = if i + 1 < sizes.len() { "," } else { "" };
        let _ = writeln!(out, "      }}{comma}");
    }
    out += "    }\n  }";
    for (coll, _, alg) in OTHERS {
        let _ = write!(
            out,
            ",\n  \"collective={coll}\": {{ \"comm_type=intra\": {{ \"algorithm={alg}\": {{}} }} }}"
        );
    }
    out + "\n}\n"
}

/// A JSON object of objects, its keys in the file's order.
struct Node(Vec<(String, Node)>);

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, n)| n)
    }
}

/// Skips white space, then `c` if it comes next: whether it did.
fn eat(s: &mut &str, c: char) -> bool {
    *s = s.trim_start();
    s.strip_prefix(c).map(|rest| *s = rest).is_some()
}

/// Reads objects whose values are objects (all a selection file holds).
fn object(s: &mut &str) -> Result<Node, String> {
    if !eat(s, '{') {
        return Err(format!(
            "expected `{{` at `{}`",
            s.chars().take(20).collect::<String>()
        ));
    }
    let mut keys = Vec::new();
    while !eat(s, '}') {
        if !keys.is_empty() && !eat(s, ',') {
            return Err(format!(
                "expected `,` or `}}` at `{}`",
                s.chars().take(20).collect::<String>()
            ));
        }
        if !eat(s, '"') {
            return Err("expected a quoted key".into());
        }
        let end = s.find('"').ok_or("a key without its closing quote")?;
        let key = s[..end].to_string();
        *s = &s[end + 1..];
        if !eat(s, ':') {
            return Err(format!("expected `:` after \"{key}\""));
        }
        keys.push((key, object(s)?));
    }
    Ok(Node(keys))
}

/// A `name<N` / `name<=N` / `name=any` key's bound: Some(N) or None for `any`.
fn bound(key: &str, name: &str, op: &str) -> Result<Option<u64>, String> {
    let rest = key
        .strip_prefix(name)
        .ok_or(format!("expected a {name} key, found \"{key}\""))?;
    if rest == "=any" {
        return Ok(None);
    }
    let n = rest.strip_prefix(op).and_then(|n| n.parse().ok());
    n.map(Some).ok_or(format!(
        "expected \"{name}{op}N\" or \"{name}=any\", found \"{key}\""
    ))
}

/// Parses a selection file written by [`to_json`] (or in its shape) back to the table; the
/// error is one line that says what was expected where.
pub fn parse(text: &str) -> Result<AllreduceRules, String> {
    let mut rest = text;
    let root = object(&mut rest)?;
    for (coll, call, _) in OTHERS {
        if root.get(&format!("collective={coll}")).is_none() {
            return Err(format!(
                "no \"collective={coll}\": MPICH would stop at an assertion at the first {call}"
            ));
        }
    }
    let intra = root
        .get("collective=allreduce")
        .and_then(|n| n.get("comm_type=intra"))
        .ok_or("no \"collective=allreduce\" with \"comm_type=intra\" in it")?;
    let mut table = AllreduceRules::default();
    for (i, (key, msgs)) in intra.0.iter().enumerate() {
        let Some(p) = bound(key, "comm_size", "<=")? else {
            if i + 1 != intra.0.len() {
                return Err("\"comm_size=any\" must come last".into());
            }
            break;
        };
        let mut rules = Vec::new();
        let mut from = 0;
        for (key, leaf) in &msgs.0 {
            let alg = leaf.0.first().map(|(k, _)| k.as_str()).unwrap_or("");
            let k = (1..MPICH_ALLREDUCE.len())
                .find(|&k| alg == format!("algorithm={}", function(k)))
                .ok_or(format!("{p} ranks: no MPICH allreduce algorithm \"{alg}\""))?;
            rules.push((from, k as u64));
            match bound(key, "avg_msg_size", "<")? {
                Some(n) if n > from => from = n,
                Some(n) => return Err(format!("{p} ranks: sizes must ascend ({n} B)")),
                None => break,
            }
        }
        if msgs.0.last().is_none_or(|(k, _)| k != "avg_msg_size=any") {
            return Err(format!(
                "{p} ranks: the last size key must be \"avg_msg_size=any\""
            ));
        }
        table.sizes.push((p, rules));
    }
    match intra.0.last() {
        Some((key, _)) if key == "comm_size=any" => Ok(table),
        _ => Err(
            "the last communicator key must be \"comm_size=any\" (else larger ones have no rule)"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_goes_through_its_file_and_back() {
        let mut t = AllreduceRules::default();
        t.add(4, &[(8, 1), (2048, 1), (131072, 2), (8 << 20, 3)]);
        t.add(2, &[(8, 4)]);
        let json = to_json(&t);
        assert!(
            json.contains(
                "\"avg_msg_size<131072\": { \"algorithm=MPIR_Allreduce_intra_recursive_doubling\""
            ),
            "{json}"
        );
        assert!(json.contains("MPIR_Allreduce_allcomm_nb"), "{json}");
        assert_eq!(parse(&json), Ok(t));
    }

    #[test]
    fn a_file_it_cannot_read_is_refused_in_one_line() {
        let mut t = AllreduceRules::default();
        t.add(2, &[(8, 1), (4096, 2)]);
        let good = to_json(&t);
        let bad = [
            (
                good.replace("intra_recursive_doubling", "intra_ring"),
                "no MPICH allreduce algorithm \"algorithm=MPIR_Allreduce_intra_ring\"",
            ),
            (
                good.replace("\"collective=bcast\"", "\"collective=bcast2\""),
                "no \"collective=bcast\"",
            ),
            (
                good.replace("comm_size=any", "comm_size<=8"),
                "must be \"comm_size=any\"",
            ),
            (
                good.replace("avg_msg_size<4096", "avg_msg_size<=4096"),
                "expected \"avg_msg_size<N\"",
            ),
            (good.replacen('}', "", 1), "expected `,` or `}`"),
        ];
        for (text, says) in bad {
            let err = parse(&text).unwrap_err();
            assert!(err.contains(says) && !err.contains('\n'), "{err}");
        }
    }
}
