//! Reading the watchdog's reports of all ranks together, as a teacher would.
//!
//! Each rank's watchdog knows only its own rank. The launcher sees every rank's line, so
//! it can say what the picture means: every rank in a send, every rank in a receive, ranks
//! in different collectives... [`deadlock_hint`] turns the lines into one hint, after the
//! first collective the ranks disagree on when their flight lines show one.

/// What one rank was doing when its deadline passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Sending,
    Receiving,
    Waiting,
    Collective,
    /// In a one-sided epoch that waits for other ranks (start, complete, wait).
    Epoch,
    Finished,
    Computing,
    /// Past the case deadline, yet its blocking calls still begin and end (`SLOW?`).
    Moving,
}

fn state_of(line: &str) -> Option<State> {
    if line.contains("SLOW?") {
        return Some(State::Moving);
    }
    // The head line of a rank with several blocked threads: its threads' lines follow.
    if line.ends_with("threads in blocking calls:") {
        return None;
    }
    // A watchdog line: a rank's report, or one of its threads' (`rank 0 thread `x`: blocked
    // in ...`). Other lines that quote a thread's name are not reports.
    let thread_report = line.contains(" thread `") && line.contains("`: blocked in ");
    if !line.contains("DEADLOCK?") && !thread_report {
        return None;
    }
    let call = line.split("blocked in ").nth(1).unwrap_or("");
    let name = call.split('(').next().unwrap_or("");
    Some(match name {
        "MPI_Send" | "MPI_Ssend" => State::Sending,
        "MPI_Recv" | "MPI_Probe" | "MPI_Mprobe" => State::Receiving,
        "MPI_Wait" | "MPI_Waitall" | "MPI_Waitany" | "MPI_Waitsome" => State::Waiting,
        "MPI_Sendrecv" | "MPI_Sendrecv_replace" => State::Receiving,
        "MPI_Win_start" | "MPI_Win_complete" | "MPI_Win_wait" => State::Epoch,
        "" if line.contains("waits for the others") => State::Finished,
        "" => State::Computing,
        _ => State::Collective,
    })
}

/// Still at work: moving through MPI calls, computing, or finished and waiting.
fn slow_or_busy(state: State) -> bool {
    matches!(state, State::Moving | State::Computing | State::Finished)
}

/// The collective a line names (`MPI_Bcast`), for "ranks in different collectives".
fn collective_of(line: &str) -> Option<&str> {
    let call = line.split("blocked in ").nth(1)?;
    call.split('(').next()
}

/// One hint for a set of watchdog lines (one or more per rank), or `None` when there is
/// no watchdog report among them; headed, when the ranks' flight lines show where they
/// parted, by a `desync:` line ([`crate::desync`]).
pub fn deadlock_hint(lines: &[&str]) -> Option<String> {
    let reports: Vec<(&str, State)> = lines
        .iter()
        .filter_map(|l| state_of(l).map(|s| (*l, s)))
        .collect();
    if reports.is_empty() {
        return None;
    }
    let all = |s: State| reports.iter().all(|(_, r)| *r == s);
    let any = |s: State| reports.iter().any(|(_, r)| *r == s);
    let hint = if any(State::Moving) && reports.iter().all(|(_, r)| slow_or_busy(*r)) {
        "every rank is still working: the case is slow, not stuck. Count the messages it \
         sends (one per element, or chunks of 1, make thousands of waits); with more ranks \
         than cores, the ranks share them (and MPICH's waiting ranks spin). Time one case \
         alone; if it is merely slow, raise WORKBOOK_CASE_TIMEOUT."
    } else if any(State::Epoch) {
        "ranks wait in one-sided epochs: an access epoch (MPI_Win_start, MPI_Win_complete) \
         waits for an MPI_Win_post to it from each of its targets, an exposure epoch \
         (MPI_Win_wait) for an MPI_Win_complete from each of its origins. A post's or a \
         start's group that leaves out a rank that puts into, or is put into by, this rank \
         leaves both sides waiting: compare each rank's groups with whom it puts into."
    } else if all(State::Sending) {
        "every rank is sending and none is receiving: a large message is sent only when its \
         receive starts. Let even ranks send first and odd ranks receive first, or use \
         send_receive, or non-blocking calls."
    } else if all(State::Receiving) {
        "every rank waits to receive and none is sending: a message no rank sends (wrong \
         destination or tag? a send skipped on some ranks?)."
    } else if any(State::Finished) && (any(State::Receiving) || any(State::Waiting)) {
        "some ranks finished while others wait for a message: compare the waiting ranks' \
         source and tag with what the finished ranks sent."
    } else if any(State::Finished) && any(State::Collective) {
        "some ranks finished while others wait in a collective: the finished ranks never \
         called it (skipped it, or returned before it). Every rank of the communicator \
         must call every collective, in the same order."
    } else if all(State::Collective) {
        let mut names: Vec<&str> = reports
            .iter()
            .filter_map(|(l, _)| collective_of(l))
            .collect();
        names.sort();
        names.dedup();
        if names.len() > 1 {
            "the ranks are in different collectives: every rank must call the same \
             collectives in the same order."
        } else {
            "every rank is in the same collective and it does not finish: a rank of the \
             communicator is missing from it, or the ranks disagree on its root or size."
        }
    } else if any(State::Collective) {
        "some ranks are in a collective, others in point-to-point calls: a collective must \
         be called by every rank of the communicator."
    } else if all(State::Computing) {
        "no rank is in MPI: the work is slow or loops forever. If it is merely slow, raise \
         WORKBOOK_CASE_TIMEOUT."
    } else {
        "the ranks wait for each other in a cycle: write down who sends to whom and who \
         receives from whom in this case, and find the pair that never matches."
    };
    match crate::desync::first_mismatch(lines) {
        Some(desync) => Some(format!("desync: {desync}\nhint: {hint}")),
        None => Some(format!("hint: {hint}")),
    }
}

/// [`deadlock_hint`] for a job of `ranks` ranks: when some ranks reported a blocked call
/// and others sent no report at all, the silent ones are named first. A trainer's
/// `--collective-timeout` reports only the ranks that wait in a call; a rank that is late
/// (computing, sleeping, stuck outside MPI) never reaches its own timeout.
pub fn deadlock_hint_among(lines: &[&str], ranks: u32) -> Option<String> {
    let reported: Vec<u32> = lines
        .iter()
        .filter(|l| state_of(l).is_some())
        .filter_map(|l| {
            l.strip_prefix("rank ")?
                .split([':', ' '])
                .next()?
                .parse()
                .ok()
        })
        .collect();
    let silent: Vec<String> = (0..ranks)
        .filter(|r| !reported.contains(r))
        .map(|r| r.to_string())
        .collect();
    if reported.is_empty() || silent.is_empty() {
        return deadlock_hint(lines);
    }
    let (who, was) = match silent.as_slice() {
        [one] => (format!("rank {one}"), "it was"),
        many => (format!("ranks {}", many.join(", ")), "they were"),
    };
    Some(format!(
        "hint: {who} sent no report: {was} in no blocking MPI call when the others' wait \
         passed its limit (late: still computing, sleeping or stuck outside MPI), and the \
         others wait for {who} in the call they name. Look at what {who} does before that \
         call."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_in_a_send_is_named() {
        let lines = [
            "rank 0: DEADLOCK? `swap` not finished after 3 s; blocked in MPI_Send(dest=1 tag=0 4194304 bytes) for 3.0 s",
            "rank 1: DEADLOCK? `swap` not finished after 3 s; blocked in MPI_Send(dest=0 tag=0 4194304 bytes) for 3.0 s",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("every rank is sending"), "{hint}");
    }

    #[test]
    fn a_missing_send_is_told_apart() {
        let lines = [
            "rank 0: DEADLOCK? `x` not finished after 3 s; blocked in MPI_Mprobe(source=2 tag=1) for 3.0 s",
            "rank 1: DEADLOCK? `x` not finished after 3 s; this rank finished the case and waits for the others",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("some ranks finished"), "{hint}");
    }

    #[test]
    fn an_epoch_never_posted_to_is_told_apart() {
        let lines = [
            "rank 0: DEADLOCK? `x` not finished after 3 s; blocked in MPI_Win_start(opening an access epoch: waiting for its targets' MPI_Win_post) for 3.0 s",
            "rank 1: DEADLOCK? `x` not finished after 3 s; blocked in MPI_Win_wait(closing an exposure epoch) for 3.0 s",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("one-sided epochs"), "{hint}");
    }

    #[test]
    fn a_skipped_collective_is_told_apart() {
        let lines = [
            "rank 0: DEADLOCK? `t`: a call has waited 20 s (WORKBOOK_CASE_TIMEOUT) for a message or a partner that has not come; blocked in MPI_Bcast(root=0 8 bytes) for 20.0 s",
            "rank 1: DEADLOCK? `t`: this rank finished the test and waits for the others",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("never called it"), "{hint}");
    }

    #[test]
    fn a_rank_that_never_reports_is_named() {
        let line = "rank 0: DEADLOCK? `train`: a call has waited 1 s (--collective-timeout 1) for a message or a partner that has not come; blocked in MPI_Allreduce(8 bytes) for 1.0 s";
        let hint = deadlock_hint_among(&[line], 3).unwrap();
        assert!(hint.contains("ranks 1, 2 sent no report"), "{hint}");
        let hint = deadlock_hint_among(&[line], 1).unwrap();
        assert!(
            hint.contains("a rank of the communicator is missing"),
            "{hint}"
        );
        assert_eq!(deadlock_hint_among(&["rank 0: all fine"], 2), None);
    }

    #[test]
    fn a_slow_case_is_not_called_a_cycle() {
        let lines = [
            "rank 0: SLOW? `x` not finished after 20 s, yet not stuck: it still enters MPI calls; now in MPI_Wait(one non-blocking request) for 0.1 s",
            "rank 1: SLOW? `x` not finished after 20 s, yet not stuck: it still enters MPI calls; now in MPI_Wait(one non-blocking request) for 0.0 s",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("slow, not stuck"), "{hint}");
        let stuck = "rank 2: DEADLOCK? `x` not finished after 20 s; blocked in MPI_Recv(source=0 tag=1) for 20.0 s";
        let hint = deadlock_hint(&[lines[0], stuck]).unwrap();
        assert!(!hint.contains("slow, not stuck"), "{hint}");
    }

    #[test]
    fn different_collectives_are_told_apart() {
        let lines = [
            "rank 0: DEADLOCK? `x` not finished after 3 s; blocked in MPI_Bcast(root=0 8 bytes) for 3.0 s",
            "rank 1: DEADLOCK? `x` not finished after 3 s; blocked in MPI_Barrier() for 3.0 s",
        ];
        let hint = deadlock_hint(&lines).unwrap();
        assert!(hint.contains("different collectives"), "{hint}");
        assert_eq!(deadlock_hint(&["rank 0: all fine"]), None);
        let panic = "rank 0: panicked at x.rs:1: MPI called from thread `worker-0`";
        assert_eq!(deadlock_hint(&[panic]), None);
    }
}
