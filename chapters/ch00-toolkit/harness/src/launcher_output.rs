//! What the launcher itself prints, told apart from what the ranks say. Open MPI and MPICH
//! frame their reports in rules (`-----`, `=====`); those that only say "a rank ended
//! badly" add nothing once the rank has said why, and are left out of what a learner reads.

use std::io::{BufRead, BufReader, Read};

/// Lines of Open MPI's or MPICH's own that say nothing a learner can act on.
pub fn launcher_noise(text: &str) -> bool {
    const NOISE: [&str; 15] = [
        "more process has sent help message",
        "more processes have sent help message",
        // libevent inside Open MPI, when ranks end while their sockets are polled.
        "] Epoll ",
        "orte_base_help_aggregate",
        "ORTE_ERROR_LOG",
        "MPI_ABORT was invoked",
        "NOTE: invoking MPI_ABORT",
        "You may or may not see output",
        "exited on signal",
        "Primary job  terminated normally",
        "Per user-direction, the job has been aborted",
        "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
        "CLEANING UP REMAINING PROCESSES",
        "YOU CAN IGNORE THE BELOW CLEANUP MESSAGES",
        "mpirun detected that one or more processes exited with non-zero status",
    ];
    let t = text.trim();
    t.is_empty() || is_banner_rule(t) || NOISE.iter().any(|n| t.contains(n))
}

/// A launcher's framing line: `-----...` (Open MPI) or `=====...` (MPICH).
fn is_banner_rule(t: &str) -> bool {
    t.len() >= 20 && (t.chars().all(|c| c == '-') || t.chars().all(|c| c == '='))
}

/// What came through a job's stderr.
#[derive(Default)]
pub(crate) struct Forwarded {
    /// Whether any launcher line was left out.
    pub omitted: bool,
    /// The lines that came through, each once (for the deadlock hint).
    pub passed: Vec<String>,
    /// How many times the most repeated line came (every rank refusing alike: the ranks).
    pub most_repeats: usize,
}

/// Copies a job's stderr to ours, leaving out the launcher's blocks (framed by rules) that
/// only report a rank that ended badly, and its stray internal lines; a line that every
/// rank printed alike (a refusal) comes through once.
pub(crate) fn forward_without_noise(stream: impl Read, err: &mut impl std::io::Write) -> Forwarded {
    let mut omitted = false;
    let mut passed: Vec<String> = vec![];
    // Each line that came through, with how many times it came (a job's stderr can be long).
    let mut repeats: std::collections::HashMap<String, usize> = Default::default();
    let mut block: Option<Vec<String>> = None;
    for line in BufReader::new(stream).split(b'\n').map_while(Result::ok) {
        let line = String::from_utf8_lossy(&line).into_owned();
        let rule = is_banner_rule(line.trim());
        match block.as_mut() {
            None if rule => block = Some(vec![line]),
            // `[host:pid] ...`: the launcher's internal lines.
            None if line.starts_with('[') && launcher_noise(&line) => omitted = true,
            None => match repeats.get_mut(&line) {
                Some(n) => *n += 1,
                None => {
                    let _ = writeln!(err, "{line}");
                    repeats.insert(line.clone(), 1);
                    passed.push(line);
                }
            },
            Some(lines) => {
                lines.push(line);
                if rule {
                    let lines = block.take().unwrap_or_default();
                    let noise = lines.iter().any(|l| {
                        !is_banner_rule(l.trim()) && launcher_noise(l) && !l.trim().is_empty()
                    });
                    if noise {
                        omitted = true;
                    } else {
                        lines.iter().for_each(|l| {
                            let _ = writeln!(err, "{l}");
                        });
                    }
                }
            }
        }
    }
    // An unclosed block is printed: it may be the only explanation there is.
    for l in block.unwrap_or_default() {
        let _ = writeln!(err, "{l}");
    }
    Forwarded {
        omitted,
        passed,
        most_repeats: repeats.into_values().max().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ranks_bad_end_is_left_out_and_a_launch_failure_is_kept() {
        let rule = "-".repeat(74);
        let text = format!(
            "hybrid: --threads 0: use --threads 1 or more\n{rule}\nPrimary job  terminated \
             normally, but 1 process returned\na non-zero exit code.\n{rule}\n{rule}\n\
             mpirun was unable to launch the specified application\n{rule}\n"
        );
        let mut out = Vec::new();
        let got = forward_without_noise(text.as_bytes(), &mut out);
        let out = String::from_utf8(out).unwrap();
        assert!(got.omitted);
        assert!(out.starts_with("hybrid: --threads 0"), "{out}");
        assert!(!out.contains("Primary job"), "{out}");
        assert!(out.contains("unable to launch"), "{out}");
    }

    #[test]
    fn what_follows_a_refusal_on_every_rank_is_left_out() {
        let text = "this job has ranks 0 to 3 only: WORKBOOK_SLOW_LINK names rank 9\n\
             [warn] Epoll MOD(1) on fd 26 failed. Old events were 6; read change was 0 (none); \
             write change was 2 (del); close change was 0 (none): Bad file descriptor\n\
             [vm:01234] 3 more processes have sent help message help-mpi-api.txt / mpi-abort\n";
        let mut out = Vec::new();
        let got = forward_without_noise(text.as_bytes(), &mut out);
        assert!(got.omitted);
        assert_eq!(got.passed.len(), 1, "{:?}", got.passed);
    }

    #[test]
    fn a_refusal_every_rank_printed_alike_comes_through_once() {
        let text = "zero: --resume ck: saved at stage 1, this run is stage 3\n".repeat(3)
            + "zero: rank 1: other\n";
        let mut out = Vec::new();
        let got = forward_without_noise(text.as_bytes(), &mut out);
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.lines().count(), 2, "{out}");
        assert_eq!(got.most_repeats, 3);
    }
}
