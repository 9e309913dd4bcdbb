//! Benchmark: one micro-batch between two neighbouring stages, both ways, by each
//! `--transport` the CPU has: `mpi` (ex 7.2's messages: copied into a `Vec`, sent,
//! received into a new `Vec`, copied into a tensor) and `shm` (written into the
//! neighbour's slot of a shared-memory window; MPI carries an empty doorbell and ack).
//!
//! Run: `cargo run --release -p ch07-pipeline --features solution --bin transport_bench`
//! (part of `make bench CH=07`; it starts 2 ranks itself). Sizes: micro-batches of 32 rows
//! x 96 (the trainer's, f32) up to 4 Mi values; each timed as the fastest of the rounds
//! (rank 0 sends to rank 1, which sends the tensor back; one way = half a round trip),
//! the transports alternated round by round. Writes target/workbook/ch07/transport_bench.csv.
//! `WORKBOOK_BENCH_SMOKE=1`: two sizes, three rounds.

use ch07::node_link::{self, LinkGuard};
use ch07::pipe_config::Transport;
use ch07::pipe_train::learner_transfer;
use ch07::transport;
use ch07::wire::Transfer;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tabled::Tabled;
use tch::{Device, Kind, Tensor};
use toolkit::bench::{self, at_rank_counts, print_tagged, tagged_rows};
use toolkit::report::print_and_save;

/// Values per micro-batch: the trainer's (32 x 96), then larger.
const SIZES: [usize; 4] = [32 * 96, 1 << 16, 1 << 20, 1 << 22];
const ROUNDS: usize = 60;

#[derive(Serialize, Deserialize)]
struct Measured {
    values: usize,
    mpi_us: f64,
    shm_us: f64,
}

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "values (f32)")]
    values: usize,
    #[tabled(rename = "KiB")]
    kib: String,
    #[tabled(rename = "mpi us one way")]
    mpi: String,
    #[tabled(rename = "shm us one way")]
    shm: String,
    #[tabled(rename = "shm vs mpi")]
    speedup: String,
}

/// One round: rank 0 sends `t` to rank 1 through `io`, rank 1 sends it back; seconds.
fn round(world: &SimpleCommunicator, io: Transfer<f32>, t: &Tensor) -> Result<f64, String> {
    let (me, shape) = (world.rank() as usize, t.size());
    let mut buf = Vec::new();
    let peer = 1 - me;
    world.barrier();
    let t0 = Instant::now();
    let mut pass = |send_first: bool, t: &Tensor| -> Result<Tensor, String> {
        if send_first {
            mpi::request::scope(|scope| {
                (io.send)(world, peer, 0, t, &shape, &mut buf, scope).map(|r| {
                    r.wait();
                })
            })?;
            (io.recv)(world, peer, 1, &shape, Device::Cpu)
        } else {
            let got = (io.recv)(world, peer, 0, &shape, Device::Cpu)?;
            mpi::request::scope(|scope| {
                (io.send)(world, peer, 1, &got, &shape, &mut buf, scope).map(|r| {
                    r.wait();
                })
            })?;
            Ok(got)
        }
    };
    let back = pass(me == 0, t)?;
    let took = t0.elapsed().as_secs_f64();
    node_link::flush(world);
    if me == 0 && !back.equal(t) {
        return Err("the tensor came back changed".into());
    }
    Ok(took)
}

fn inner(world: &SimpleCommunicator) -> Result<(), String> {
    let sizes = bench::sized(&SIZES[..], &SIZES[..2]);
    let rounds = bench::sized(ROUNDS, 3);
    let mpi = learner_transfer::<f32>();
    let shm = transport::transfer::<f32>();
    for &n in sizes {
        let room = (n, n);
        let link = transport::link::<f32>(world, world, Transport::Shm, room, Device::Cpu)?;
        let _guard: Option<LinkGuard> = link.map(node_link::install);
        let t = Tensor::arange(n as i64, (Kind::Float, Device::Cpu)).view([1, n as i64]);
        let (mut best_mpi, mut best_shm) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..rounds {
            best_mpi = best_mpi.min(round(world, mpi, &t)?);
            best_shm = best_shm.min(round(world, shm, &t)?);
        }
        if world.rank() == 0 {
            let us = |s: f64| s / 2.0 * 1e6;
            print_tagged(
                "TRANSPORT",
                &Measured {
                    values: n,
                    mpi_us: us(best_mpi),
                    shm_us: us(best_shm),
                },
            );
        }
    }
    Ok(())
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        if let Err(why) = inner(&universe.world()) {
            eprintln!("transport_bench: {why}");
            std::process::exit(1);
        }
        return;
    }
    tch::set_num_threads(1);
    let mut rows = vec![];
    for (_, lines) in at_rank_counts(&[2], Duration::from_secs(300)) {
        let measured =
            tagged_rows::<Measured>(&lines, "TRANSPORT").unwrap_or_else(|e| panic!("{e}"));
        for m in measured {
            rows.push(Row {
                values: m.values,
                kib: format!("{:.0}", (m.values * 4) as f64 / 1024.0),
                mpi: format!("{:.1}", m.mpi_us),
                shm: format!("{:.1}", m.shm_us),
                speedup: format!("{:.2}x", m.mpi_us / m.shm_us),
            });
        }
    }
    if let Err(e) = print_and_save(&rows, "ch07/transport_bench.csv") {
        eprintln!("transport_bench: cannot write the csv: {e}");
    }
    println!(
        "one way = half the fastest round trip of {} rounds; 2 ranks on this machine ({} cores)",
        bench::sized(ROUNDS, 3),
        toolkit::report::host_cores()
    );
}
