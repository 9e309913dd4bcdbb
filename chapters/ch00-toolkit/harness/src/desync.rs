//! Where did the ranks part? The flight lines of every rank ([`crate::flight`]), compared.
//!
//! Each rank's report ends with its last collectives per communicator, numbered there.
//! The launcher reads every rank's lines and looks, communicator by communicator, for the
//! first number at which the ranks called different collectives (a rank that skipped a
//! broadcast calls its next collective one number early), else for ranks that never
//! reached the last number the others reached. [`first_mismatch`] says it in one sentence;
//! [`crate::diagnose`] puts it above its hint.

use std::collections::BTreeMap;

/// Numbered calls: `(17, "MPI_Bcast(root=0 8 bytes)")`.
type Calls = Vec<(u64, String)>;
/// One rank's flight line: (its rank, the communicator, its numbered calls).
type Flight = (usize, String, Calls);

/// Reads `rank 3: flight on WORLD: #15 MPI_Allreduce(8 bytes) | #16 MPI_Barrier()`.
fn parse(line: &str) -> Option<Flight> {
    let rest = line.strip_prefix("rank ")?;
    let (rank, rest) = rest.split_once(": flight on ")?;
    let (comm, calls) = rest.split_once(": #")?;
    let calls = format!("#{calls}");
    let calls = calls.split(" | ").map(|c| {
        let (seq, call) = c.strip_prefix('#')?.split_once(' ')?;
        Some((seq.parse().ok()?, call.to_string()))
    });
    Some((
        rank.parse().ok()?,
        comm.to_string(),
        calls.collect::<Option<_>>()?,
    ))
}

/// `0-2, 5, 7-8`: ranks in runs (two or more consecutive ranks as a range).
pub fn rank_list(ranks: &[usize]) -> String {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(usize, usize)> = vec![];
    for r in sorted {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == r => run.1 = r,
            _ => runs.push((r, r)),
        }
    }
    let text = |&(a, b): &(usize, usize)| match a == b {
        true => a.to_string(),
        false => format!("{a}-{b}"),
    };
    runs.iter().map(text).collect::<Vec<_>>().join(", ")
}

/// `rank 3` or `ranks 0-2, 5`.
pub fn ranks_text(ranks: &[usize]) -> String {
    match ranks.len() {
        1 => format!("rank {}", ranks[0]),
        _ => format!("ranks {}", rank_list(ranks)),
    }
}

/// `1st`, `2nd`, `3rd`, `11th`, `17th`, `22nd`.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The first collective the ranks disagree on, or the ranks that never reached the one
/// the others are in, from every rank's flight lines among `lines`; `None` when they agree
/// (or there is only one rank's record).
pub fn first_mismatch(lines: &[&str]) -> Option<String> {
    let mut by_comm: BTreeMap<String, Vec<(usize, Calls)>> = BTreeMap::new();
    for (rank, comm, calls) in lines.iter().filter_map(|l| parse(l)) {
        by_comm.entry(comm).or_default().push((rank, calls));
    }
    // WORLD first: a desync there explains the rest.
    let mut comms: Vec<_> = by_comm.into_iter().collect();
    comms.sort_by_key(|(c, _)| c != "WORLD");
    comms.iter().find_map(|(comm, ranks)| on_one(comm, ranks))
}

fn on_one(comm: &str, ranks: &[(usize, Calls)]) -> Option<String> {
    if ranks.len() < 2 {
        return None;
    }
    let mut seqs: Vec<u64> = ranks
        .iter()
        .flat_map(|(_, c)| c.iter().map(|x| x.0))
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    for seq in seqs {
        // Which ranks called what as their `seq`-th collective here.
        let mut groups: Vec<(&str, Vec<usize>)> = vec![];
        for (rank, calls) in ranks {
            let Some((_, call)) = calls.iter().find(|c| c.0 == seq) else {
                continue;
            };
            match groups.iter_mut().find(|g| g.0 == call) {
                Some(g) => g.1.push(*rank),
                None => groups.push((call, vec![*rank])),
            }
        }
        if groups.len() > 1 {
            // The most ranks are taken as right (ties: the group of the lowest rank).
            groups.sort_by_key(|g| (std::cmp::Reverse(g.1.len()), g.1.iter().min().copied()));
            let (call, most) = &groups[0];
            let odd: Vec<String> = groups[1..]
                .iter()
                .map(|(c, r)| format!("{} called {c}", ranks_text(r)))
                .collect();
            return Some(format!(
                "{} as the {} collective on {comm}; {} called {call}",
                odd.join(", and "),
                ordinal(seq),
                ranks_text(most)
            ));
        }
    }
    let last = |calls: &[(u64, String)]| calls.last().cloned().unwrap_or((0, String::new()));
    let top = ranks.iter().map(|(_, c)| last(c).0).max()?;
    let (ahead, behind): (Vec<_>, Vec<_>) = ranks.iter().partition(|(_, c)| last(c).0 == top);
    if behind.is_empty() {
        return None;
    }
    let there = ahead.iter().map(|(r, _)| *r).collect::<Vec<_>>();
    let late = behind.iter().map(|(r, _)| *r).collect::<Vec<_>>();
    let (_, lowest) = behind.iter().min_by_key(|(_, c)| last(c).0)?;
    let (seq, call) = last(lowest);
    Some(format!(
        "{} entered the {} collective on {comm} ({}); {} never did (the last there: #{seq} {call})",
        ranks_text(&there),
        ordinal(top),
        last(&ahead[0].1).1,
        ranks_text(&late),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_broadcast_is_named_where_the_ranks_part() {
        let lines = [
            "rank 0: flight on WORLD: #16 MPI_Allreduce(8 bytes) | #17 MPI_Bcast(root=0 4194304 bytes)",
            "rank 1: flight on WORLD: #16 MPI_Allreduce(8 bytes) | #17 MPI_Bcast(root=0 4194304 bytes)",
            "rank 2: flight on WORLD: #16 MPI_Allreduce(8 bytes) | #17 MPI_Bcast(root=0 4194304 bytes)",
            "rank 3: flight on WORLD: #16 MPI_Allreduce(8 bytes) | #17 MPI_Allreduce(8 bytes)",
            "rank 3: DEADLOCK? `x` not finished",
        ];
        assert_eq!(
            first_mismatch(&lines).unwrap(),
            "rank 3 called MPI_Allreduce(8 bytes) as the 17th collective on WORLD; ranks 0-2 \
             called MPI_Bcast(root=0 4194304 bytes)"
        );
    }

    #[test]
    fn a_rank_that_never_arrived_is_named() {
        let lines = [
            "rank 0: flight on ranks 0, 2: #1 MPI_Barrier() | #2 MPI_Barrier()",
            "rank 2: flight on ranks 0, 2: #1 MPI_Barrier()",
        ];
        let said = first_mismatch(&lines).unwrap();
        assert_eq!(
            said,
            "rank 0 entered the 2nd collective on ranks 0, 2 (MPI_Barrier()); rank 2 never did \
             (the last there: #1 MPI_Barrier())"
        );
        assert_eq!(
            first_mismatch(&lines[..1]),
            None,
            "one rank: nothing to compare"
        );
        let agree = [
            "rank 0: flight on WORLD: #3 MPI_Barrier()",
            "rank 1: flight on WORLD: #3 MPI_Barrier()",
        ];
        assert_eq!(first_mismatch(&agree), None);
    }

    #[test]
    fn ranks_are_listed_in_runs_and_counted_in_words() {
        assert_eq!(rank_list(&[5, 0, 1, 2, 7, 8]), "0-2, 5, 7-8");
        let words: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(ordinal).to_vec();
        assert_eq!(
            words,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
        );
    }
}
