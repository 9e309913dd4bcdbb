//! Benchmark: whole-buffer staging against double-buffered staging in chunks (ex 5.6),
//! at 16 and 64 MiB, at 2 and 4 ranks, with the staging model's predictions (ex 5.7).
//!
//! Run: `make bench CH=05` (release build, the solutions). Started without mpirun this
//! program is the driver: it runs itself under mpirun at NP = 2 and 4 (`toolkit::bench`)
//! and collects one row per (NP, size, chunk).
//! Expect: on a GPU node, chunked staging faster than whole staging from 16 MiB (the
//! copy of chunk k+1 hides behind the allreduce of chunk k). Without a GPU the tensors
//! are CPU tensors and the "copies" are memcpys: the table measures the host path only
//! and says that the GPU figure is not measured here. `target/workbook/ch05-staging.csv`.

use ch05::gpu_node::visible_gpus;
use ch05::measure::{measure_links, staged};
use ch05::staging_model::{best_chunk, pipelined, whole};
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tabled::Tabled;
use tch::Device;
use toolkit::bench::{self, at_rank_counts, print_row};
use toolkit::report::print_and_save;

const SIZES_MIB: [usize; 2] = [16, 64];
const NPS: [u32; 2] = [2, 4];
/// A fixed chunk beside the model's best: 1 MiB.
const FIXED_CHUNK: usize = 1 << 20;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "NP")]
    np: u32,
    #[tabled(rename = "size")]
    size: String,
    #[tabled(rename = "chunk")]
    chunk: String,
    #[tabled(rename = "measured")]
    measured: String,
    #[tabled(rename = "vs whole")]
    speedup: String,
    #[tabled(rename = "model")]
    model: String,
}

/// One measurement, as rank 0 prints it (`ROW {json}`).
#[derive(Serialize, Deserialize)]
struct Measured {
    np: usize,
    mib: usize,
    chunk_bytes: usize,
    seconds: f64,
    model_seconds: f64,
    /// The chunk is the model's best (not the whole buffer).
    is_best: bool,
    /// The buffers were GPU tensors (else CPU tensors: the host path only).
    on_gpu: bool,
}

/// On every rank: measure; rank 0 prints a [`Measured`] per (size, chunk).
fn child() {
    let universe = toolkit::init();
    let world = universe.world();
    let dev = if visible_gpus() > 0 {
        let (local, _) = ch05::gpu_node::local_place(&world);
        Device::Cuda(local % visible_gpus())
    } else {
        Device::Cpu
    };
    let m = measure_links(&world, dev);
    let p = world.size() as usize;
    for mib in SIZES_MIB {
        let bytes = mib << 20;
        let (best, _) = best_chunk(&m, p, bytes);
        let mut chunks = vec![bytes, FIXED_CHUNK, best];
        chunks.dedup();
        for (i, &chunk) in chunks.iter().enumerate() {
            let secs = staged(&world, bytes / 4, (chunk / 4).max(1), dev);
            let model = if chunk == bytes {
                whole(&m, p, bytes)
            } else {
                pipelined(&m, p, bytes, chunk)
            };
            if world.rank() == 0 {
                print_row(&Measured {
                    np: p,
                    mib,
                    chunk_bytes: chunk,
                    seconds: secs,
                    model_seconds: model,
                    is_best: i + 1 == chunks.len() && chunk != bytes,
                    on_gpu: dev != Device::Cpu,
                });
            }
        }
    }
}

fn main() {
    if toolkit::launch::under_mpirun() {
        return child();
    }
    let mut rows = vec![];
    let mut on_gpu = false;
    for (np, lines) in at_rank_counts(&NPS, Duration::from_secs(300)) {
        let measured =
            bench::rows::<Measured>(&lines).unwrap_or_else(|e| panic!("staging_bench: {e}"));
        on_gpu |= measured.iter().any(|r| r.on_gpu);
        if measured.is_empty() {
            panic!(
                "staging_bench: the {np}-rank run printed no ROW lines:\n{}",
                lines.join("\n")
            );
        }
        let mut whole_s = 0.0;
        for r in measured {
            let (mib, chunk, secs, model) = (r.mib, r.chunk_bytes, r.seconds, r.model_seconds);
            if chunk == mib << 20 {
                whole_s = secs;
            }
            rows.push(Row {
                np,
                size: format!("{mib} MiB"),
                chunk: match (chunk == mib << 20, r.is_best) {
                    (true, _) => "whole".into(),
                    (false, true) => format!("{} KiB (model's best)", chunk >> 10),
                    (false, false) => format!("{} KiB", chunk >> 10),
                },
                measured: format!("{:.2} ms", secs * 1e3),
                speedup: format!("{:.2}x", whole_s / secs),
                model: format!("{:.2} ms", model * 1e3),
            });
        }
    }
    print_and_save(&rows, "ch05-staging.csv").expect("write the CSV");
    if !on_gpu {
        println!(
            "no GPU here: these are CPU tensors staged through the same code (the copies are \
             memcpys). The GPU figure (target: chunked faster than whole from 16 MiB) is not \
             measured here."
        );
    }
}
