//! What does the call recorder cost? A ping-pong of 8 bytes between ranks 0 and 1, with
//! the recorder on and off in alternating rounds of the same run, side by side.
//!
//! Run: `cargo run --release -p toolkit --bin recorder_cost` (re-launches with NP=2).
//! Expect the two latencies within noise of each other: the recorder writes a few plain
//! numbers per blocking call (no lock, no text), a few nanoseconds next to a microsecond.

use mpi::traits::*;
use tabled::Tabled;

const ROUND_TRIPS: usize = 20_000;
const ROUNDS: usize = 7;

/// One-way latency in microseconds: half a round trip, the median round of `ROUNDS`.
fn latency_us(world: &mpi::topology::SimpleCommunicator, recording: bool) -> Vec<f64> {
    toolkit::intercept::set_recording(recording);
    let rank = world.rank();
    let mut buf = [0u8; 8];
    let mut samples = vec![];
    for _ in 0..ROUNDS {
        world.barrier();
        let start = mpi::time();
        for _ in 0..ROUND_TRIPS {
            if rank == 0 {
                world.process_at_rank(1).send(&buf[..]);
                world.process_at_rank(1).receive_into(&mut buf[..]);
            } else if rank == 1 {
                world.process_at_rank(0).receive_into(&mut buf[..]);
                world.process_at_rank(0).send(&buf[..]);
            }
        }
        samples.push((mpi::time() - start) / ROUND_TRIPS as f64 / 2.0 * 1e6);
    }
    toolkit::intercept::set_recording(true);
    samples
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[derive(Tabled)]
struct Row {
    recorder: &'static str,
    #[tabled(rename = "one-way latency (us, median of 7 rounds)")]
    latency: String,
    #[tabled(rename = "vs off")]
    ratio: String,
}

fn main() {
    if std::env::var_os("NP").is_none() {
        std::env::set_var("NP", "2");
    }
    let universe = toolkit::init();
    let world = universe.world();
    if world.size() < 2 {
        if world.rank() == 0 {
            println!("recorder_cost needs 2 ranks or more (NP=2)");
        }
        return;
    }
    // Interleave on and off, so that drift in the machine's load hits both alike.
    let (mut on, mut off) = (vec![], vec![]);
    for _ in 0..3 {
        on.extend(latency_us(&world, true));
        off.extend(latency_us(&world, false));
    }
    if world.rank() == 0 {
        let (on, off) = (median(on), median(off));
        let rows = [
            Row {
                recorder: "on",
                latency: format!("{on:.3}"),
                ratio: format!("{:+.1}%", (on / off - 1.0) * 100.0),
            },
            Row {
                recorder: "off",
                latency: format!("{off:.3}"),
                ratio: "-".into(),
            },
        ];
        println!("{}", toolkit::report::table(rows));
        println!("{ROUND_TRIPS} round trips of 8 bytes per round, ranks 0 and 1");
    }
}
