//! The slow_link lab's measurements: the matrix as a table, chapter 3's two allreduces
//! timed against the model, the crossover sweep, and the deadline case.

use ch03::allreduce_ring;
use ch03::doubling::allreduce_recursive_doubling;
use ch03::ops::Op;
use ch10::crossover::crossover_slowdown;
use ch10::model::{doubling_time, ring_time, slowed, Links};
use ch10::AlphaBeta;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::{Duration, Instant};
use toolkit::gate::unless_todo;
use toolkit::slow_links::{self, SlowLink};

/// Calls per timing: the shortest (over calls) of the slowest rank's time is kept.
const REPS: usize = 5;
/// The vector sizes (bytes per rank) of the comparison.
pub const SIZES: [usize; 3] = [16 << 10, 128 << 10, 1 << 20];
/// The slowdowns of the sweep (the slow link's bandwidth is the median link's over this).
const SLOWDOWNS: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 6.0, 8.0];
/// The emulated network under every link: a delay and a rate per message.
const NETWORK_DELAY: Duration = Duration::from_micros(50);
const NETWORK_RATE: f64 = 100e6;

/// The emulated network: every link, both ways, [`NETWORK_DELAY`] and [`NETWORK_RATE`].
pub fn network(p: usize) -> Vec<SlowLink> {
    let pairs = (0..p).flat_map(|a| (a + 1..p).map(move |b| (a, b)));
    let link = |(a, b): (usize, usize)| SlowLink {
        from: a as i32,
        to: b as i32,
        both_ways: true,
        delay: NETWORK_DELAY,
        rate: Some(NETWORK_RATE),
    };
    pairs.map(link).collect()
}

/// What every rank knows: the median link and the rank count.
pub struct Setup {
    /// The median link of the matrix, taken as every unslowed link.
    pub fast: AlphaBeta,
    /// Ranks.
    pub p: usize,
}

/// Milliseconds of `f` on the slowest rank, the shortest of [`REPS`] calls.
pub fn time_ms(world: &SimpleCommunicator, f: impl Fn()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..REPS {
        world.barrier();
        let start = Instant::now();
        f();
        let mine = start.elapsed().as_secs_f64();
        let mut slowest = 0.0f64;
        world.all_reduce_into(&mine, &mut slowest, SystemOperation::max());
        best = best.min(slowest);
    }
    best * 1e3
}

/// The ring's and doubling's measured milliseconds for `bytes` bytes per rank.
fn measure_both(world: &SimpleCommunicator, bytes: usize) -> (f64, f64) {
    let xs = vec![world.rank() as f32; bytes / 4];
    let ring = time_ms(world, || drop(allreduce_ring(world, &xs, Op::Sum)));
    let doubling = time_ms(world, || {
        drop(allreduce_recursive_doubling(world, &xs, Op::Sum))
    });
    (ring, doubling)
}

/// Measured and predicted milliseconds of one size: ring, then doubling.
#[derive(Clone, Copy)]
pub struct Times {
    pub measured: (f64, f64),
    pub predicted: (f64, f64),
}

fn row(label: &str, t: &Times) -> String {
    let (m, q) = (t.measured, t.predicted);
    let winner = if m.1 <= m.0 { "doubling" } else { "ring" };
    format!(
        "{label:>10} {:>9.2} {:>9.2} {:>10.2} {:>10.2}   {winner}",
        m.0, q.0, m.1, q.1
    )
}

const HEADER: &str = "ring ms   (model)  doubling ms  (model)   faster";

/// Times chapter 3's ring and recursive doubling at [`SIZES`], and prints them with the
/// model's predictions on the measured `links`. The largest size's times, or `None` when
/// an exercise of chapter 3 is not done.
pub fn algorithms_under(world: &SimpleCommunicator, s: &Setup, links: &Links) -> Option<Times> {
    let say = |line: &str| {
        if world.rank() == 0 {
            println!("{line}")
        }
    };
    let tiny = vec![1.0f32; 3];
    let done = unless_todo(world, || {
        allreduce_ring(world, &tiny, Op::Sum);
        allreduce_recursive_doubling(world, &tiny, Op::Sum);
    });
    if let Err(task) = done {
        toolkit::gate::stop_unfinished(world, "slow_link", &task);
    }
    say(&format!(
        "\nchapter 3's allreduces under the slow link, {} ranks:",
        s.p
    ));
    say(&format!("{:>10} {HEADER}", "per rank"));
    let mut last = None;
    for bytes in SIZES {
        let t = Times {
            measured: measure_both(world, bytes),
            predicted: (
                ring_time(links, s.p, bytes) * 1e3,
                doubling_time(links, s.p, bytes) * 1e3,
            ),
        };
        say(&row(&format!("{} KiB", bytes >> 10), &t));
        last = Some(t);
    }
    last
}

/// The slow link 2-3 at each of [`SLOWDOWNS`], at the largest size: where doubling starts
/// to win, measured, against ex 10.2's prediction. Power-of-two jobs of 4 ranks or more.
pub fn crossover_sweep(world: &SimpleCommunicator, s: &Setup) {
    let say = |line: &str| {
        if world.rank() == 0 {
            println!("{line}")
        }
    };
    if s.p < 4 || !s.p.is_power_of_two() {
        say("\nthe crossover sweep needs 4, 8, 16... ranks (ex 10.2's model): run with NP=8");
        return;
    }
    let bytes = SIZES[SIZES.len() - 1];
    let predicted = match unless_todo(world, || crossover_slowdown(s.fast, s.p, bytes)) {
        Ok(x) => x,
        Err(task) => toolkit::gate::stop_unfinished(world, "slow_link", &task),
    };
    say(&format!(
        "\nlink 2-3 slowed s times (+ rate beta / (s - 1)), {} KiB per rank:",
        bytes >> 10
    ));
    say(&format!("{:>10} {HEADER}", "s"));
    let mut measured = None;
    for slowdown in SLOWDOWNS {
        let rule = (slowdown > 1.0).then(|| SlowLink {
            from: 2,
            to: 3,
            both_ways: true,
            delay: Duration::ZERO,
            rate: Some(s.fast.beta / (slowdown - 1.0)),
        });
        world.barrier();
        slow_links::set([network(s.p), rule.into_iter().collect()].concat());
        let links = Links {
            fast: s.fast,
            slow: vec![(2, 3, slowed(s.fast, slowdown))],
        };
        let t = Times {
            measured: measure_both(world, bytes),
            predicted: (
                ring_time(&links, s.p, bytes) * 1e3,
                doubling_time(&links, s.p, bytes) * 1e3,
            ),
        };
        say(&row(&format!("{slowdown}"), &t));
        if measured.is_none() && t.measured.1 <= t.measured.0 {
            measured = Some(slowdown);
        }
    }
    world.barrier();
    let predicted = predicted.map_or("none".to_string(), |x| format!("s = {x:.2}"));
    let measured = measured.map_or("not within s <= 8".to_string(), |x| format!("by s = {x}"));
    say(&format!(
        "doubling wins from: predicted {predicted} (ex 10.2), measured {measured}"
    ));
}

/// The seed's case: a deadline per allreduce between the two predicted times of the
/// largest size; the ring misses it, doubling makes it (compared, not enforced).
pub fn deadline(world: &SimpleCommunicator, t: Times) {
    if world.rank() != 0 {
        return;
    }
    let (ring, doubling) = t.predicted;
    println!(
        "\nthe deadline case ({} KiB per rank, the slow link in force):",
        SIZES[SIZES.len() - 1] >> 10
    );
    if ring <= doubling {
        println!(
            "  the ring is predicted no slower here: no deadline between them; slow the link more"
        );
        return;
    }
    let limit = (ring * doubling).sqrt();
    let verdict = |ms: f64| {
        if ms > limit {
            "missed: it would time out"
        } else {
            "made it"
        }
    };
    println!("  deadline {limit:.1} ms per allreduce (between the model's {doubling:.1} and {ring:.1} ms)");
    println!(
        "  ring     {:>7.1} ms: {}",
        t.measured.0,
        verdict(t.measured.0)
    );
    println!(
        "  doubling {:>7.1} ms: {}",
        t.measured.1,
        verdict(t.measured.1)
    );
}
