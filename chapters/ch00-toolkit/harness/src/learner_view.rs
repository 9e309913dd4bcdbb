//! What a learner sees of a failed job: the ranks' own lines without the launcher's noise,
//! a hint when the watchdog reported, and the launcher's lines when the ranks did not say
//! why the job failed.
//!
//! Unit-tested here (`cargo test -q -p toolkit --lib learner_view`); every planted fault's
//! message in the chapters goes through it.

use crate::outcome::Outcome;
use crate::testing::RAN;

/// True when the job failed although its ranks agreed that the test passed (rank 0's
/// `ran ... ok` line, for every rank count the launch started, [`crate::sizes`]): a rank
/// failed in `MPI_Finalize` or on its way out.
pub(crate) fn passed_then_failed(out: &Outcome) -> bool {
    let said = |t: &str, word: &str| t.contains(RAN) && t.trim_end().ends_with(word);
    let ranks = out.lines.iter().filter(|l| l.rank.is_some());
    let (mut passed, mut failed, mut started) = (0, 0, 0);
    for l in ranks {
        passed += usize::from(said(&l.text, ": ok"));
        failed += usize::from(said(&l.text, ": FAILED"));
        started += usize::from(crate::sizes::is_start_line(&l.text));
    }
    !out.success() && passed > 0 && failed == 0 && passed >= started
}

/// Rank lines first (what the learner's code said), then a hint when the watchdog
/// reported, then at most 8 launcher lines if the ranks said nothing that explains the
/// failure. A job whose ranks all agreed the test passed, and that failed anyway (a rank
/// that failed in `MPI_Finalize` or on its way out), is said to be so.
pub fn learner_view(out: &Outcome) -> String {
    let mut text = String::new();
    let said = out.lines.iter().filter(|l| {
        l.rank.is_some()
            && !l.is_libtest_noise()
            && !crate::sizes::is_start_line(&l.text)
            && !crate::launcher_output::launcher_noise(&l.text)
    });
    let said: Vec<_> = said.collect();
    for l in &said {
        // Lines that name their rank already (`rank 1: ...`) need no prefix.
        if l.text.starts_with("rank ") {
            text.push_str(&format!("  {}\n", l.text));
        } else {
            text.push_str(&format!("  rank {} | {}\n", l.rank.unwrap_or(0), l.text));
        }
    }
    let lines: Vec<&str> = said.iter().map(|l| l.text.as_str()).collect();
    if let Some(hint) = crate::diagnose::deadlock_hint(&lines) {
        hint.lines()
            .for_each(|l| text.push_str(&format!("  {l}\n")));
    }
    let passed_then_failed = passed_then_failed(out);
    if passed_then_failed {
        text.push_str(
            "  every rank agreed that the test passed, and the job failed after that: a rank \
             failed in MPI_Finalize or on its way out (the launcher's lines below say which, \
             when it said)\n",
        );
    }
    // When the ranks said why they failed, mpirun's own lines add nothing.
    let explained = !passed_then_failed
        && said
            .iter()
            .any(|l| l.text.starts_with("rank ") || l.text.contains(RAN));
    if explained {
        return text;
    }
    // After a pass, even the launcher's usual noise (`ORTE_ERROR_LOG`, a rank that exited
    // on a signal) is the only account of what went wrong: keep it, blank lines aside.
    let shown = |t: &str| match passed_then_failed {
        true => !t.trim().is_empty(),
        false => !crate::launcher_output::launcher_noise(t),
    };
    let launcher = out.lines.iter().filter(|l| l.rank.is_none());
    for l in launcher.filter(|l| shown(&l.text)).take(8) {
        text.push_str(&format!("  mpirun | {}\n", l.text));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Line, Stream};
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;
    use std::time::Duration;

    fn job(code: i32, lines: &[(Option<u32>, &str)]) -> Outcome {
        let lines = lines.iter().map(|(rank, text)| Line {
            rank: *rank,
            stream: Stream::Stderr,
            text: text.to_string(),
        });
        Outcome {
            status: Some(ExitStatus::from_raw(code << 8)),
            timed_out: false,
            lines: lines.collect(),
            wall: Duration::from_secs(1),
        }
    }

    #[test]
    fn a_job_that_failed_after_every_rank_passed_says_so_and_shows_the_launcher() {
        let out = job(
            1,
            &[
                (Some(0), "[workbook] ran `t` at 4 ranks: ok"),
                (None, "  Process name: [[4242,1],2]"),
            ],
        );
        let seen = learner_view(&out);
        assert!(
            seen.contains("every rank agreed that the test passed"),
            "{seen}"
        );
        assert!(
            seen.contains("mpirun |   Process name: [[4242,1],2]"),
            "{seen}"
        );
    }

    #[test]
    fn a_count_that_failed_after_counts_that_passed_is_no_pass() {
        let ran = |n: usize, word: &str| {
            let at = crate::report::rank_count(n);
            format!("[workbook] ran `t` at {at}: {word}")
        };
        let (start1, start3) = (
            "[workbook] size `t` at 1 rank",
            "[workbook] size `t` at 3 ranks",
        );
        let ok1 = ran(1, "ok");
        let panicked = job(
            101,
            &[(Some(0), start1), (Some(0), &ok1), (Some(0), start3)],
        );
        assert!(!passed_then_failed(&panicked));
        let failed3 = ran(3, "FAILED");
        let wrong = job(
            1,
            &[
                (Some(0), start1),
                (Some(0), &ok1),
                (Some(0), start3),
                (Some(0), &failed3),
            ],
        );
        assert!(!passed_then_failed(&wrong));
        let ok3 = ran(3, "ok");
        let passed = job(
            1,
            &[
                (Some(0), start1),
                (Some(0), &ok1),
                (Some(0), start3),
                (Some(0), &ok3),
            ],
        );
        assert!(passed_then_failed(&passed));
    }

    #[test]
    fn a_failed_test_explains_itself_without_the_launcher() {
        let out = job(
            1,
            &[
                (Some(0), "rank 1 says: off by one"),
                (Some(0), "[workbook] ran `t` at 2 ranks: FAILED"),
                (None, "  Process name: [[4242,1],0]"),
            ],
        );
        let seen = learner_view(&out);
        assert!(
            seen.contains("off by one") && !seen.contains("mpirun |"),
            "{seen}"
        );
        assert!(!seen.contains("every rank agreed"), "{seen}");
    }
}
