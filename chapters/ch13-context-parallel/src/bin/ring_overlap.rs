//! Benchmark: how much of ring attention's communication hides under its compute, priced
//! by chapter 3's alpha-beta model. Not causal, so every rank computes `p` block pairs and
//! the ring passes `p − 1` key/value blocks of `n` bytes. Per context length, all ranks at
//! once:
//! - `c`: one block pair's attention and merge (ex 13.1), measured alone (no message);
//! - `m`: one step's message, priced by chapter 3's model measured right before
//!   (`ch03::machine::calibrate_at`: `rendezvous + n / beta`), and measured alone (the
//!   ring's `p − 1` shifts with no compute);
//! - the ring (ex 13.2) measured, next to the model without overlap, `p·c + (p − 1)·m`,
//!   and with perfect overlap, `c + (p − 1)·max(c, m)`; and `m / c`, the messages' time
//!   against the compute's at each step.
//!
//! Run: `make bench CH=13` runs it with the chapter's other benchmark; alone, `NP=2 cargo
//! run --release -p ch13-context-parallel --features solution --bin ring_overlap` (it
//! relaunches itself under mpirun; NP=2 gives each rank a core of the course's 2-core
//! machine). `WORKBOOK_BENCH_SMOKE=1`: one short length, one repetition.

use ch03::cost::Costs;
use ch03::machine::{calibrate_at, median_of_runs, Machine};
use ch13::blocks::{block_of, pack};
use ch13::flags::RingFlags;
use ch13::lab::{draw, probe_merge};
use ch13::merge::merge;
use ch13::partial::{attend_block, Mask};
use ch13::ring::ring_forward;
use mpi::point_to_point::send_receive_into;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// One warm-up run of `f`, then chapter 3's median over `reps` runs (the slowest rank's).
fn timed(world: &SimpleCommunicator, reps: usize, f: &dyn Fn()) -> f64 {
    f();
    median_of_runs(world, reps, f)
}

fn main() {
    let smoke = std::env::var_os("WORKBOOK_BENCH_SMOKE").is_some();
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let (seqs, reps): (&[usize], usize) = match smoke {
        true => (&[256], 1),
        false => (&[256, 1024, 4096], 7),
    };
    let say = |line: String| {
        if rank == 0 {
            println!("{line}");
        }
    };
    say(format!(
        "ring_overlap: {p} ranks, 4 heads x 32, f64, not causal; ms per forward pass, the median of {reps} (slowest rank)"
    ));
    say(format!(
        "{:>6} {:>9} {:>9} {:>8} {:>8} {:>6} {:>9} {:>10} {:>10} {:>9}",
        "seq",
        "block KiB",
        "c",
        "m model",
        "m meas.",
        "m / c",
        "ring",
        "no overlap",
        "overlap",
        "ring /"
    ));
    say(format!(
        "{:>6} {:>9} {:>9} {:>8} {:>8} {:>6} {:>9} {:>10} {:>10} {:>9}",
        "", "", "", "", "", "", "measured", "(model)", "(model)", "overlap"
    ));
    let ran = unless_todo(&world, || {
        for &seq in seqs {
            let flags = RingFlags {
                seq,
                heads: 4,
                head_dim: 32,
                seed: 13,
            };
            let [q, k, v] = draw::<3>(&flags);
            probe_merge(&q, &k, &v);
            let mine = |x: &tch::Tensor| block_of(x, rank, p);
            let (mq, mk, mv) = (mine(&q), mine(&k), mine(&v));
            let block = pack(&mk, &mv);
            let n = block.len() * std::mem::size_of::<f64>();
            // One block pair's work, p times: what a rank computes in the ring.
            let compute = || {
                let mut acc = attend_block(&mq, &mk, &mv, Mask::Full);
                for _ in 1..p {
                    acc = merge(&acc, &attend_block(&mq, &mk, &mv, Mask::Full));
                }
                drop(acc);
            };
            let c = timed(&world, reps, &compute) / p as f64;
            // The p − 1 shifts alone.
            let shifts = || {
                let mut inbox = vec![0f64; block.len()];
                let right = world.process_at_rank(((rank + 1) % p) as i32);
                let left = world.process_at_rank(((rank + p - 1) % p) as i32);
                for _ in 1..p {
                    send_receive_into(&block[..], &right, &mut inbox[..], &left);
                }
            };
            let m_meas = timed(&world, reps, &shifts) / (p.max(2) - 1) as f64;
            let machine = Machine {
                rungs: calibrate_at(&world, &[n]),
            };
            let model = machine.at(n);
            let m = model.rendezvous + n as f64 / model.link.beta;
            let ring = timed(&world, reps, &|| {
                drop(ring_forward(&world, &mq, &mk, &mv, false))
            });
            let steps = (p - 1) as f64;
            let serial = p as f64 * c + steps * m;
            let overlapped = c + steps * c.max(m);
            let ms = |s: f64| s * 1e3;
            say(format!(
                "{seq:>6} {:>9} {:>9.3} {:>8.3} {:>8.3} {:>5.1}% {:>9.2} {:>10.2} {:>10.2} {:>9.3}",
                n / 1024,
                ms(c),
                ms(m),
                ms(m_meas),
                100.0 * m / c,
                ms(ring),
                ms(serial),
                ms(overlapped),
                ring / overlapped
            ));
        }
    });
    if let Err(task) = ran {
        toolkit::gate::stop_unfinished(&world, "ring_overlap", &task);
    }
    say(
        "c: one block pair's attention and merge alone; m: one step's message (model: chapter 3's \
         rendezvous + n / beta measured at n; meas.: the p − 1 shifts alone, per shift); \
         no overlap: p·c + (p − 1)·m; overlap: c + (p − 1)·max(c, m)"
            .into(),
    );
}
