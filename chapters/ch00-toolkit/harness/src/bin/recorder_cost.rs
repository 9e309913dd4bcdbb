//! What do the recorders cost? An 8-byte ping-pong between ranks 0 and 1 (the recorder of
//! blocked calls), and an 8-byte allreduce on every rank (that recorder and the flight
//! recorder of collectives), each with the recorders on and off in alternating rounds of
//! the same run, side by side.
//!
//! Run: `cargo run --release -p toolkit --bin recorder_cost` (re-launches with NP=2; set
//! NP for more ranks). Expect on and off within noise of each other: the recorders write a
//! few plain numbers per call (the flight recorder under an uncontended lock), no text, a
//! few tens of nanoseconds next to a microsecond.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tabled::Tabled;

const CALLS: usize = 20_000;
const ROUNDS: usize = 7;

/// One 8-byte round trip between ranks 0 and 1 (the others idle).
fn ping_pong(world: &SimpleCommunicator) {
    let mut buf = [0u8; 8];
    match world.rank() {
        0 => {
            world.process_at_rank(1).send(&buf[..]);
            world.process_at_rank(1).receive_into(&mut buf[..]);
        }
        1 => {
            world.process_at_rank(0).receive_into(&mut buf[..]);
            world.process_at_rank(0).send(&buf[..]);
        }
        _ => {}
    }
}

/// One allreduce of 8 bytes on every rank.
fn allreduce(world: &SimpleCommunicator) {
    let mut sum = 0u64;
    world.all_reduce_into(&1u64, &mut sum, SystemOperation::sum());
}

/// Microseconds per `op` (divided by `per`), one sample per round of [`CALLS`] calls.
fn time_us(
    world: &SimpleCommunicator,
    recording: bool,
    op: fn(&SimpleCommunicator),
    per: f64,
) -> Vec<f64> {
    toolkit::intercept::set_recording(recording);
    let mut samples = vec![];
    for _ in 0..ROUNDS {
        world.barrier();
        let start = mpi::time();
        for _ in 0..CALLS {
            op(world);
        }
        samples.push((mpi::time() - start) / CALLS as f64 / per * 1e6);
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
    call: &'static str,
    recorders: &'static str,
    #[tabled(rename = "us per call (median of 21 rounds)")]
    time: String,
    #[tabled(rename = "vs off")]
    ratio: String,
}

/// The two rows of one call: on (with its ratio to off) and off.
fn rows(
    world: &SimpleCommunicator,
    call: &'static str,
    op: fn(&SimpleCommunicator),
    per: f64,
) -> [Row; 2] {
    // Interleave on and off, so that drift in the machine's load hits both alike.
    let (mut on, mut off) = (vec![], vec![]);
    for _ in 0..3 {
        on.extend(time_us(world, true, op, per));
        off.extend(time_us(world, false, op, per));
    }
    let (on, off) = (median(on), median(off));
    let row = |recorders, t: f64, ratio| Row {
        call,
        recorders,
        time: format!("{t:.3}"),
        ratio,
    };
    [
        row("on", on, format!("{:+.1}%", (on / off - 1.0) * 100.0)),
        row("off", off, "-".into()),
    ]
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
    let mut table = Vec::from(rows(&world, "ping-pong, 8 bytes (one way)", ping_pong, 2.0));
    table.extend(rows(&world, "allreduce, 8 bytes", allreduce, 1.0));
    if world.rank() == 0 {
        println!("{}", toolkit::report::table(table));
        println!(
            "{CALLS} calls per round on {} ranks; the ping-pong between ranks 0 and 1",
            world.size()
        );
    }
}
