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
use std::time::Duration;
use tabled::Tabled;
use tch::Device;
use toolkit::bench::{at_rank_counts, tagged};
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

/// On every rank: measure; rank 0 prints `ROW,np,mib,chunk_bytes,seconds,model,is_best`.
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
                let best = usize::from(i + 1 == chunks.len() && chunk != bytes);
                println!("ROW,{p},{mib},{chunk},{secs:e},{model:e},{best}");
            }
        }
    }
    if world.rank() == 0 {
        println!("DEV,{}", if dev == Device::Cpu { "cpu" } else { "gpu" });
    }
}

fn main() {
    if toolkit::launch::under_mpirun() {
        return child();
    }
    let mut rows = vec![];
    let mut on_gpu = false;
    for (np, lines) in at_rank_counts(&NPS, Duration::from_secs(300)) {
        on_gpu |= tagged(&lines, "DEV,").any(|d| d == "gpu");
        if tagged(&lines, "ROW,").next().is_none() {
            panic!(
                "staging_bench: the {np}-rank run printed no ROW lines:\n{}",
                lines.join("\n")
            );
        }
        let mut whole_s = 0.0;
        for line in tagged(&lines, "ROW,") {
            let f: Vec<&str> = line.split(',').collect();
            let (mib, chunk): (usize, usize) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            let (secs, model): (f64, f64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
            if chunk == mib << 20 {
                whole_s = secs;
            }
            rows.push(Row {
                np,
                size: format!("{mib} MiB"),
                chunk: match (chunk == mib << 20, f[5] == "1") {
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
