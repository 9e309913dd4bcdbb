//! Per-rank output: every line a job printed, with the rank that printed it.
//!
//! Each launcher tags a rank's lines its own way when asked to: Open MPI's
//! `--tag-output` gives `[1,2]<stdout>:text`, Hydra's `-prepend-rank` gives `[2] text`,
//! Slurm's `srun --label` gives `2: text`. [`collect`] reads a stream on a thread and
//! splits the tag off; lines without a tag are the launcher's own (rank `None`).

use crate::launcher::Flavor;
use std::io::{BufRead, BufReader, Read};
use std::process::ExitStatus;
use std::thread;
use std::time::Duration;

/// Which stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One line of output, with the rank that printed it when the launcher said so.
#[derive(Clone, Debug)]
pub struct Line {
    pub rank: Option<u32>,
    pub stream: Stream,
    pub text: String,
}

impl Line {
    /// A blank line, or libtest's `running 1 test` / `test NAME ... ` printed by a rank.
    pub fn is_libtest_noise(&self) -> bool {
        let t = self.text.trim();
        t.is_empty()
            || t == "running 1 test"
            || (t.starts_with("test ") && (t.contains(" ... ") || t.ends_with(" ...")))
    }
}

/// What a finished (or killed) job left behind.
#[derive(Debug)]
pub struct Outcome {
    /// Exit status of mpirun; `None` when the job was killed at its deadline.
    pub status: Option<ExitStatus>,
    /// True when the job ran past its deadline and was killed.
    pub timed_out: bool,
    /// Every line printed by the launcher and the ranks, in arrival order per stream; when
    /// the job failed, last, the harness's `[workbook] rank R ended first, ...` (rank
    /// `None`), if it saw one rank end before the others ([`crate::rank_exits`]).
    pub lines: Vec<Line>,
    /// Wall time of the whole job.
    pub wall: Duration,
}

impl Outcome {
    /// True when mpirun exited with status 0.
    pub fn success(&self) -> bool {
        self.status.map(|s| s.success()).unwrap_or(false)
    }

    /// All output as `rank R | text` lines, for messages and assertions, without blank
    /// lines and the lines libtest prints when a test binary runs as a rank.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in self.lines.iter().filter(|l| !l.is_libtest_noise()) {
            match l.rank {
                Some(r) => out.push_str(&format!("rank {r} | {}\n", l.text)),
                None => out.push_str(&format!("{}\n", l.text)),
            }
        }
        out
    }

    /// Lines printed by one rank.
    pub fn rank_lines(&self, rank: u32) -> Vec<&str> {
        let mine = self.lines.iter().filter(|l| l.rank == Some(rank));
        mine.map(|l| l.text.as_str()).collect()
    }
}

/// Reads a stream into lines on a thread, splitting off the launcher's rank prefix.
pub(crate) fn collect(
    stream: impl Read + Send + 'static,
    kind: Stream,
    flavor: Flavor,
) -> thread::JoinHandle<Vec<Line>> {
    thread::spawn(move || {
        let reader = BufReader::new(stream);
        let lines = reader.split(b'\n').map_while(Result::ok);
        let text = lines.map(|l| String::from_utf8_lossy(&l).into_owned());
        text.map(|t| split_rank(&t, kind, flavor)).collect()
    })
}

/// `[1,2]<stdout>:hello` (Open MPI), `[2] hello` (MPICH) or `2: hello` (Slurm) -> rank 2,
/// `hello`.
pub(crate) fn split_rank(line: &str, stream: Stream, flavor: Flavor) -> Line {
    let parsed = match flavor {
        Flavor::OpenMpi => line.strip_prefix('[').and_then(|rest| {
            let (ids, rest) = rest.split_once(']')?;
            let rank = ids.split(',').nth(1)?.parse().ok()?;
            let text = rest.split_once(">:").map(|(_, t)| t).unwrap_or(rest);
            // Open MPI 5 puts a space after the tag (`[1,2]<stdout>: hello`), 4 does not.
            let text = text.strip_prefix(' ').unwrap_or(text);
            Some((rank, text))
        }),
        Flavor::Mpich => line.strip_prefix('[').and_then(|rest| {
            let (id, text) = rest.split_once("] ")?;
            Some((id.parse().ok()?, text))
        }),
        Flavor::Slurm => {
            let (id, text) = line.trim_start().split_once(':').unwrap_or(("", ""));
            let text = text.strip_prefix(' ').unwrap_or(text);
            id.parse().ok().map(|rank| (rank, text))
        }
    };
    match parsed {
        Some((rank, text)) => Line {
            rank: Some(rank),
            stream,
            text: text.to_string(),
        },
        None => Line {
            rank: None,
            stream,
            text: line.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_prefixes_are_split() {
        let l = split_rank("[1,2]<stdout>:hello: x", Stream::Stdout, Flavor::OpenMpi);
        assert_eq!((l.rank, l.text.as_str()), (Some(2), "hello: x"));
        let l = split_rank("[1,2]<stdout>: hello", Stream::Stdout, Flavor::OpenMpi);
        assert_eq!((l.rank, l.text.as_str()), (Some(2), "hello"));
        let l = split_rank("[3] hi [x]", Stream::Stderr, Flavor::Mpich);
        assert_eq!((l.rank, l.text.as_str()), (Some(3), "hi [x]"));
        let l = split_rank("mpirun noticed", Stream::Stderr, Flavor::OpenMpi);
        assert_eq!(l.rank, None);
        let l = split_rank(" 1: loss: 0.5", Stream::Stdout, Flavor::Slurm);
        assert_eq!((l.rank, l.text.as_str()), (Some(1), "loss: 0.5"));
        let l = split_rank("srun: error: task 2 exited", Stream::Stderr, Flavor::Slurm);
        assert_eq!(l.rank, None);
    }
}
