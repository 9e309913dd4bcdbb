//! A message trace: the point-to-point messages this thread really sent and received,
//! in program order, with the address of each buffer.
//!
//! Labs use it to show what the learner's code did rather than what it should have done:
//! chapter 3's `ring_steps` turns the send buffers' addresses back into chunk numbers, and
//! chapter 2's figures are drawn from the solutions' traced messages
//! ([`rounds`] gives each message its round). The PMPI wrappers ([`crate::wrappers`])
//! feed it; it costs one load per call while off (the default).
//!
//! ```ignore
//! toolkit::trace::start();
//! ring::reduce_scatter_ring(&world, &mut data, Op::Sum);
//! let messages = toolkit::trace::stop(); // this thread's sends and receives, in order
//! ```

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// One traced message, as this rank saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traced {
    /// `true` for a send, `false` for a receive.
    pub sent: bool,
    /// The other rank (destination or source; `i64::MIN` for "any source").
    pub peer: i64,
    /// The message's size in bytes (for a receive: the buffer's size).
    pub bytes: i64,
    /// The buffer's address, to find which part of the caller's data it was.
    pub addr: usize,
    /// For a send, its first 8 bytes (fewer, zero-padded, for a shorter message) as a
    /// little-endian integer: labs mark each rank's data so that this says what it is.
    pub first: i64,
}

static TRACING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static LOG: RefCell<Vec<Traced>> = const { RefCell::new(Vec::new()) };
}

/// Starts tracing (for every thread; each keeps its own log), with an empty log here.
pub fn start() {
    LOG.with(|log| log.borrow_mut().clear());
    TRACING.store(true, Ordering::Relaxed);
}

/// Stops tracing and returns this thread's messages since [`start`], in program order.
pub fn stop() -> Vec<Traced> {
    TRACING.store(false, Ordering::Relaxed);
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// Whether tracing is on (the wrappers skip their work when it is not).
pub(crate) fn is_on() -> bool {
    TRACING.load(Ordering::Relaxed)
}

/// Notes one message when tracing is on (the wrappers call it before the library).
pub(crate) fn note(sent: bool, peer: i64, bytes: i64, addr: usize) {
    if TRACING.load(Ordering::Relaxed) {
        let mut head = [0u8; 8];
        let n = bytes.clamp(0, 8) as usize;
        if sent && addr != 0 && n > 0 {
            // SAFETY: a send buffer the caller just passed to MPI, `bytes` long (>= n).
            let src = unsafe { std::slice::from_raw_parts(addr as *const u8, n) };
            head[..n].copy_from_slice(src);
        }
        let entry = Traced {
            sent,
            peer,
            bytes,
            addr,
            first: i64::from_le_bytes(head),
        };
        LOG.with(|log| log.borrow_mut().push(entry));
    }
}

/// Gathers every rank's `log` on rank 0, each message with `mark(message)`: an address
/// means nothing on another rank, so each rank turns it into something that does (a
/// chunk number, or the message's [`Traced::first`] value) first. Rank 0 gets `Some(logs by rank)`, the others `None`. Every rank
/// of `world` must call it.
pub fn gather(
    world: &SimpleCommunicator,
    log: &[Traced],
    mark: impl Fn(&Traced) -> i64,
) -> Option<Vec<Vec<(Traced, i64)>>> {
    let p = world.size() as usize;
    let mut lengths = vec![0i64; p];
    world.all_gather_into(&(log.len() as i64), &mut lengths[..]);
    let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
    let mut mine = vec![0i64; 4 * longest];
    for (slot, m) in mine.chunks_mut(4).zip(log) {
        slot.copy_from_slice(&[i64::from(m.sent), m.peer, m.bytes, mark(m)]);
    }
    let root = world.process_at_rank(0);
    if world.rank() != 0 {
        root.gather_into(&mine[..]);
        return None;
    }
    let mut all = vec![0i64; 4 * longest * p];
    root.gather_into_root(&mine[..], &mut all[..]);
    let logs = (0..p)
        .map(|r| {
            let rows = all[4 * longest * r..].chunks(4).take(lengths[r] as usize);
            rows.map(|f| {
                let m = Traced {
                    sent: f[0] == 1,
                    peer: f[1],
                    bytes: f[2],
                    addr: 0,
                    first: 0,
                };
                (m, f[3])
            })
            .collect()
        })
        .collect();
    Some(logs)
}

/// Rank 0, after [`gather`]: the gathered messages round by round, printed as text and
/// written as an SVG to `file` under the output folder, then a `  figure: PATH` line.
/// `label(mark)` names what a message carried; `axis` names the rounds ("step", "round").
pub fn draw(
    title: &str,
    axis: &str,
    logs: &[Vec<(Traced, i64)>],
    label: impl Fn(i64) -> String,
    file: &str,
) {
    let plain: Vec<Vec<Traced>> = logs
        .iter()
        .map(|l| l.iter().map(|x| x.0).collect())
        .collect();
    let arrows =
        crate::diagram::arrows_from_rounds(&rounds(&plain), |from, i| label(logs[from][i].1));
    print!(
        "{}",
        crate::diagram::to_text(title, logs.len(), axis, &arrows)
    );
    let svg = crate::diagram::rounds_svg(title, axis, logs.len(), &arrows);
    match crate::report::write_file(file, &svg) {
        Ok(path) => {
            let here = std::env::current_dir().unwrap_or_default();
            let shown = path.strip_prefix(&here).unwrap_or(&path);
            println!("  figure: {}", shown.display());
        }
        Err(e) => println!("  (figure not written: {e})"),
    }
}

/// The round of every send in `logs` (one log per rank, in program order): one more than
/// the latest of its rank's earlier sends and of the messages its rank received before
/// it (1 for a rank's first send when it received nothing before).
/// The k-th send from a to b is matched with the k-th receive on b from a. Returns
/// `(round, from, to, index of the send in its rank's log)`, sorted by round, then rank.
/// A receive that no send matches (a deadlock, an "any source") leaves the sends after
/// it out.
pub fn rounds(logs: &[Vec<Traced>]) -> Vec<(usize, usize, usize, usize)> {
    let p = logs.len();
    // The k-th send from a to b: (a, index in a's log), in order, per (a, b).
    let mut sends: Vec<Vec<Vec<usize>>> = vec![vec![vec![]; p]; p];
    for (a, log) in logs.iter().enumerate() {
        for (i, m) in log.iter().enumerate() {
            if m.sent && (0..p as i64).contains(&m.peer) {
                sends[a][m.peer as usize].push(i);
            }
        }
    }
    let mut round: Vec<Vec<Option<usize>>> = logs.iter().map(|l| vec![None; l.len()]).collect();
    loop {
        let mut changed = false;
        for (b, log) in logs.iter().enumerate() {
            let (mut latest, mut seen) = (0, vec![0usize; p]);
            for (i, m) in log.iter().enumerate() {
                if m.sent {
                    if round[b][i].is_none() {
                        round[b][i] = Some(latest + 1);
                        changed = true;
                    }
                    latest = round[b][i].unwrap_or(latest + 1);
                    continue;
                }
                let matched = usize::try_from(m.peer)
                    .ok()
                    .filter(|&a| a < p)
                    .and_then(|a| sends[a][b].get(seen[a]).map(|&j| (a, j)));
                let Some((a, j)) = matched else { break };
                seen[a] += 1;
                match round[a][j] {
                    Some(r) => latest = latest.max(r),
                    None => break,
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = vec![];
    for (a, log) in logs.iter().enumerate() {
        for (i, m) in log.iter().enumerate() {
            if let (true, Some(r)) = (m.sent, round[a][i]) {
                out.push((r, a, m.peer as usize, i));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(to: i64) -> Traced {
        Traced {
            sent: true,
            peer: to,
            bytes: 8,
            addr: 0,
            first: 0,
        }
    }
    fn recv(from: i64) -> Traced {
        Traced {
            sent: false,
            ..send(from)
        }
    }

    #[test]
    fn a_binomial_tree_takes_three_rounds_at_eight_ranks() {
        // 0 -> 4; then 0 -> 2, 4 -> 6; then 0 -> 1, 2 -> 3, 4 -> 5, 6 -> 7.
        let logs = vec![
            vec![send(4), send(2), send(1)],
            vec![recv(0)],
            vec![recv(0), send(3)],
            vec![recv(2)],
            vec![recv(0), send(6), send(5)],
            vec![recv(4)],
            vec![recv(4), send(7)],
            vec![recv(6)],
        ];
        let got: Vec<_> = rounds(&logs)
            .iter()
            .map(|&(r, a, b, _)| (r, a, b))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 0, 4),
                (2, 0, 2),
                (2, 4, 6),
                (3, 0, 1),
                (3, 2, 3),
                (3, 4, 5),
                (3, 6, 7)
            ]
        );
    }

    #[test]
    fn a_ring_step_waits_for_the_previous_one_and_a_deadlock_stops_the_count() {
        let ring = |p: i64| -> Vec<Vec<Traced>> {
            (0..p)
                .map(|r| {
                    (0..p - 1)
                        .flat_map(|_| [send((r + 1) % p), recv((r + p - 1) % p)])
                        .collect()
                })
                .collect()
        };
        let got: Vec<usize> = rounds(&ring(3)).iter().map(|x| x.0).collect();
        assert_eq!(got, vec![1, 1, 1, 2, 2, 2]);
        // Rank 1 waits for a message from 2 that 2 never sends: 1's later sends are out.
        let stuck = vec![vec![send(1)], vec![recv(2), send(0)], vec![]];
        assert_eq!(rounds(&stuck), vec![(1, 0, 1, 0)]);
    }
}
