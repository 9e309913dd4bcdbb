//! The classic deadlock and its three fixes.
//!
//! Run: `make run CH=01 BIN=deadlock` (the parity fix is your ex 1.2) or with
//! `SOLUTION=1`. Needs 2 ranks or more for part 1; NP=4 by default.
//! Expect: (1) a table showing that a blocking send of a small message returns before
//! the receiver has started its receive (the message is buffered: "eager"), while a
//! large one waits for it ("rendezvous"); the switch is near 4 KiB with Open MPI on one
//! host; (2) the three deadlock-free ways to shift 1 MiB
//! one rank to the right, timed and checked. With `BROKEN=1` (or `-- --broken`) it also
//! runs the broken order, everyone sending 2 MiB first: the watchdog names the call each
//! rank is stuck in after 5 s and ends the job (exit code 124).

use ch01::exchange::shift_right;
use ch01::{neighbours, SHIFT_TAG};
use mpi::point_to_point as p2p;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;
use tabled::Tabled;
use toolkit::report::{table, Timing};

/// How long rank 1 waits before it starts its receive in part 1.
const LATE: Duration = Duration::from_millis(100);
/// Message sizes of part 1, in bytes.
const PROBE_SIZES: [usize; 6] = [8, 1024, 4000, 8192, 65536, 1 << 20];
/// Elements shifted in part 2 (1 MiB of f64) and in the broken demo (2 MiB).
const SHIFT: usize = 1 << 17;

#[derive(Tabled)]
struct Probe {
    bytes: usize,
    #[tabled(rename = "send returned after (ms)")]
    send_ms: String,
    #[tabled(rename = "so the send")]
    verdict: &'static str,
}

#[derive(Tabled)]
struct Fix {
    fix: &'static str,
    #[tabled(rename = "MPI calls")]
    calls: &'static str,
    #[tabled(rename = "ms (slowest rank)")]
    ms: String,
    checked: &'static str,
}

/// A tag no message carries: rank 1 asks for it to keep MPI busy while it "works".
const NEVER_SENT: mpi::Tag = 99;

/// Part 1: rank 0 sends `bytes` to rank 1, which starts its receive only after `LATE`.
/// Meanwhile rank 1 stays inside MPI (it polls for another message), so its library can
/// take in a buffered message; it just has not asked for this one yet.
fn probe(world: &SimpleCommunicator, bytes: usize) -> Option<f64> {
    let data: Vec<u8> = (0..bytes).map(|i| (i % 253) as u8).collect();
    world.barrier();
    match world.rank() {
        0 => {
            let start = mpi::time();
            world.process_at_rank(1).send(&data[..]);
            Some(mpi::time() - start)
        }
        1 => {
            let (zero, start) = (world.process_at_rank(0), std::time::Instant::now());
            while start.elapsed() < LATE {
                assert!(zero.immediate_probe_with_tag(NEVER_SENT).is_none());
            }
            let mut buf = vec![0u8; bytes];
            world.process_at_rank(0).receive_into(&mut buf[..]);
            assert!(
                buf == data,
                "rank 1: the {bytes}-byte message arrived changed"
            );
            None
        }
        _ => None,
    }
}

// ANCHOR: fixes
/// Fix 2: one call that sends and receives; MPI orders the two halves itself.
fn with_send_receive(world: &SimpleCommunicator, mine: &[f64], theirs: &mut [f64]) {
    let (left, right) = neighbours(world.rank(), world.size());
    let (from, to) = (world.process_at_rank(left), world.process_at_rank(right));
    p2p::send_receive_into_with_tags(mine, &to, SHIFT_TAG, theirs, &from, SHIFT_TAG);
}

/// Fix 3: start both operations without blocking, then wait for both.
fn with_immediate(world: &SimpleCommunicator, mine: &[f64], theirs: &mut [f64]) {
    let (left, right) = neighbours(world.rank(), world.size());
    let (from, to) = (world.process_at_rank(left), world.process_at_rank(right));
    mpi::request::scope(|scope| {
        let recv = from.immediate_receive_into_with_tag(scope, theirs, SHIFT_TAG);
        let send = to.immediate_send_with_tag(scope, mine, SHIFT_TAG);
        recv.wait();
        send.wait();
    });
}
// ANCHOR_END: fixes

// ANCHOR: broken
/// The deadlock: every rank sends first. Beyond the eager limit every send waits for a
/// receive that its neighbour will only start after its own send: a cycle of waits.
fn everyone_sends_first(world: &SimpleCommunicator, mine: &[f64], theirs: &mut [f64]) {
    let (left, right) = neighbours(world.rank(), world.size());
    world.process_at_rank(right).send_with_tag(mine, SHIFT_TAG);
    world
        .process_at_rank(left)
        .receive_into_with_tag(theirs, SHIFT_TAG);
}
// ANCHOR_END: broken

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let say = |text: &str| {
        if rank == 0 {
            println!("{text}")
        }
    };

    if size >= 2 {
        say("part 1: rank 0 sends; rank 1 starts the matching receive 100 ms later");
        // Every rank takes part in every probe (barrier); only rank 0 times its send.
        let times: Vec<Option<f64>> = PROBE_SIZES.iter().map(|&b| probe(&world, b)).collect();
        let rows: Vec<Probe> = PROBE_SIZES
            .iter()
            .zip(times)
            .filter_map(|(&bytes, s)| s.map(|s| (bytes, s)))
            .map(|(bytes, s)| Probe {
                bytes,
                send_ms: format!("{:.1}", s * 1e3),
                verdict: if s < LATE.as_secs_f64() / 2.0 {
                    "returned at once (buffered, eager)"
                } else {
                    "waited for the receive (rendezvous)"
                },
            })
            .collect();
        if rank == 0 {
            println!("{}", table(rows));
        }
    }

    let (left, _) = neighbours(rank, size);
    let mine: Vec<f64> = (0..SHIFT)
        .map(|i| (rank as usize * SHIFT + i) as f64)
        .collect();
    let want: Vec<f64> = (0..SHIFT)
        .map(|i| (left as usize * SHIFT + i) as f64)
        .collect();

    let broken = std::env::var("BROKEN").is_ok_and(|v| v == "1")
        || std::env::args().any(|a| a == "--broken");
    if broken {
        let big: Vec<f64> = mine.iter().chain(&mine).copied().collect(); // 2 MiB
        let mut theirs = vec![0.0; big.len()];
        say("broken: every rank sends 2 MiB to its right neighbour, then receives");
        toolkit::watchdog::arm("everyone sends 2 MiB first", Duration::from_secs(5));
        everyone_sends_first(&world, &big, &mut theirs);
        toolkit::watchdog::disarm();
        say("broken: it finished?! (at 1 rank, or with a very large eager limit)");
    }

    say(&format!(
        "part 2: shift {} KiB to the right on {size} ranks, three ways",
        SHIFT / 128
    ));
    type Shift = fn(&SimpleCommunicator, &[f64], &mut [f64]);
    let fixes: [(&str, &str, Shift); 3] = [
        (
            "1. order by rank parity (ex 1.2)",
            "MPI_Send, MPI_Recv",
            shift_right::<f64>,
        ),
        ("2. send_receive", "MPI_Sendrecv", with_send_receive),
        (
            "3. non-blocking, then wait",
            "MPI_Irecv, MPI_Isend, MPI_Wait",
            with_immediate,
        ),
    ];
    let mut rows = vec![];
    for (fix, calls, shift) in fixes {
        let mut theirs = vec![-1.0; SHIFT];
        world.barrier();
        let start = mpi::time();
        shift(&world, &mine, &mut theirs);
        let took = Timing::over_ranks(&world, mpi::time() - start);
        assert!(
            theirs == want,
            "rank {rank}: `{fix}` did not deliver rank {left}'s data"
        );
        rows.push(Fix {
            fix,
            calls,
            ms: format!("{:.2}", took.max * 1e3),
            checked: "ok",
        });
    }
    if rank == 0 {
        println!("{}", table(rows));
        println!("{}", toolkit::report::oversubscription_note(size as usize));
        println!("deadlock: all three fixes delivered the left neighbour's data on every rank");
        if !broken {
            println!("to see the deadlock itself: BROKEN=1 make run CH=01 BIN=deadlock");
        }
    }
}
