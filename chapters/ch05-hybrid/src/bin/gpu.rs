//! Lab: GPUs and MPI. Each rank finds its GPU (ex 5.5), then host, staged (ex 5.6) and,
//! where the MPI can read GPU memory, CUDA-aware ping-pong and allreduce, with the
//! staging model's prediction (ex 5.7) beside each; and, where ranks 0 and 1 share a node
//! and have GPUs, their ping-pong device to device over CUDA IPC (`ch05::ipc_path`; else
//! one line says why, and the column stays empty).
//!
//! Run: `make run CH=05 BIN=gpu [NP=2] [SOLUTION=1]` (2 ranks unless NP says otherwise:
//! `ranks` in course.toml's `[chapter.crate]`); more ranks than GPUs on a node:
//! `cargo run --release -p ch05-hybrid --features solution --bin gpu -- --share`.
//! Expect: one line per rank with its place on the node and its GPU; without a GPU, one
//! line saying why the device part is skipped, then the same staged code on CPU tensors
//! (8 B to 16 MiB; 256 MiB on a GPU), a table of measured and predicted times, and
//! `target/workbook/ch05-gpu.csv`.

use ch05::gpu_node::{cuda_aware, cuda_visible_devices, local_place, visible_gpus, CudaAware};
use ch05::ipc_path::{self, IpcPair};
use ch05::links::Links;
use ch05::measure::{host_allreduce, measure_links, pingpong, seconds_per, staged, tensor};
use ch05::placement::choose_gpu;
use ch05::staging_model::{best_chunk, whole};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tabled::Tabled;
use tch::Device;
use toolkit::report::Timing;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "bytes")]
    bytes: String,
    #[tabled(rename = "ping-pong host")]
    pp_host: String,
    #[tabled(rename = "ping-pong staged")]
    pp_staged: String,
    #[tabled(rename = "ping-pong IPC")]
    pp_ipc: String,
    #[tabled(rename = "allreduce host")]
    host: String,
    #[tabled(rename = "staged whole")]
    whole: String,
    #[tabled(rename = "whole model")]
    whole_model: String,
    #[tabled(rename = "best chunk")]
    chunk: String,
    #[tabled(rename = "staged chunked")]
    chunked: String,
    #[tabled(rename = "chunked model")]
    chunked_model: String,
    #[tabled(rename = "CUDA-aware")]
    aware: String,
}

fn us(s: f64) -> String {
    format!("{:.1} µs", s * 1e6)
}

fn size(b: usize) -> String {
    match b {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

/// This rank's device: its GPU by ex 5.5, or the CPU (with the reason, said once).
fn device(world: &SimpleCommunicator) -> Device {
    let (local_rank, local_size) = local_place(world);
    let gpus = visible_gpus();
    if gpus == 0 {
        if world.rank() == 0 {
            let why = torch_link::why_no_cuda(false).unwrap_or_default();
            println!(
                "no GPU ({why}), so the device part is skipped; the host part runs CPU \
                 tensors through the same staged code"
            );
        }
        return Device::Cpu;
    }
    let visible = cuda_visible_devices();
    // `--share`: let the node's ranks share its GPUs (one GPU, two ranks: a laptop or a
    // single-GPU machine); without it ex 5.5 refuses more ranks than GPUs.
    let share = std::env::args().any(|a| a == "--share");
    match choose_gpu(local_rank, local_size, gpus, visible.as_deref(), share) {
        Ok(gpu) => {
            println!(
                "rank {}: local rank {local_rank} of {local_size}, Device::Cuda({}) = GPU {} \
                 of the node",
                world.rank(),
                gpu.index,
                gpu.physical
            );
            Device::Cuda(gpu.index)
        }
        Err(why) => {
            eprintln!("rank {}: {why} (this lab: add --share)", world.rank());
            world.abort(2)
        }
    }
}

/// CUDA-aware allreduce: the device pointer handed to MPI (only with `CudaAware::Yes`).
fn aware_allreduce(world: &SimpleCommunicator, n: usize, dev: Device) -> f64 {
    let send = tensor(world, n, dev);
    let recv = send.empty_like();
    seconds_per(world, ch05::measure::reps_for(4 * n), || {
        if let Device::Cuda(g) = dev {
            tch::Cuda::synchronize(g as i64); // MPI is not stream-aware: finish the writes
        }
        // SAFETY: two live contiguous f32 tensors of n elements on one GPU; the library
        // said it is CUDA-aware; the call blocks until MPI is done with both.
        unsafe {
            mpi::ffi::MPI_Allreduce(
                send.data_ptr(),
                recv.data_ptr(),
                n as i32,
                f32::equivalent_datatype().as_raw(),
                SystemOperation::sum().as_raw(),
                world.as_raw(),
            );
        }
    })
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let dev = device(&world);
    let aware = dev != Device::Cpu && cuda_aware() == CudaAware::Yes;
    if world.rank() == 0 {
        println!("CUDA-aware MPI: {:?}", cuda_aware());
    }
    let m: Links = measure_links(&world, dev);
    let p = world.size() as usize;
    let (_, on_node) = local_place(&world);
    let top = if dev == Device::Cpu { 24 } else { 28 };
    let mut ipc = match IpcPair::open(&world, 1 << top, dev) {
        Ok(pair) => pair,
        Err(why) => {
            if world.rank() == 0 {
                println!("ping-pong IPC: skipped: {why}");
            }
            None
        }
    };
    let ipc_open = world.rank() < 2 && ipc.is_some();
    let ipc_any = Timing::over_ranks(&world, f64::from(u8::from(ipc_open))).max > 0.0;
    let mut rows = vec![];
    for shift in (3..=top)
        .step_by(3)
        .chain([top])
        .collect::<std::collections::BTreeSet<_>>()
    {
        let bytes = 1usize << shift;
        let n = bytes / 4;
        let (chunk, chunk_model) = best_chunk(&m, p, bytes);
        let elems = (chunk / 4).max(1);
        let two = p > 1;
        rows.push(Row {
            bytes: size(bytes),
            pp_host: if two {
                us(pingpong(&world, n, None))
            } else {
                "-".into()
            },
            pp_staged: if two {
                us(pingpong(&world, n, Some(dev)))
            } else {
                "-".into()
            },
            pp_ipc: if ipc_any {
                us(ipc_path::pingpong(&world, &mut ipc, n, dev))
            } else {
                "-".into()
            },
            host: us(host_allreduce(&world, n)),
            whole: us(staged(&world, n, n, dev)),
            whole_model: us(whole(&m, p, bytes)),
            chunk: size(chunk),
            chunked: us(staged(&world, n, elems, dev)),
            chunked_model: us(chunk_model),
            aware: if aware {
                us(aware_allreduce(&world, n, dev))
            } else {
                "-".into()
            },
        });
    }
    if let Some(pair) = ipc {
        if let Err(why) = pair.close() {
            eprintln!("rank {}: closing CUDA IPC: {why}", world.rank());
        }
    }
    if world.rank() == 0 {
        println!(
            "{p} rank(s); measured links: alpha {:.2} µs, beta {:.2} GB/s, 1/gamma {:.2} GB/s, \
             copy {:.2} µs + {:.2} GB/s ({})",
            m.alpha * 1e6,
            m.beta / 1e9,
            1e-9 / m.gamma,
            m.copy_alpha * 1e6,
            m.copy_beta / 1e9,
            if dev == Device::Cpu {
                "a host memcpy: no GPU"
            } else {
                "device to host"
            }
        );
        let cores = toolkit::report::host_cores();
        if on_node > cores {
            println!(
                "note: {on_node} ranks share this node's {cores} core(s): the figures below \
                 measure oversubscription (ranks taking turns on a core), not the link; run \
                 with NP={cores} or fewer to measure the link"
            );
        }
        let csv = toolkit::report::print_and_save(&rows, "ch05-gpu.csv").expect("write csv");
        println!(
            "(times are the slowest rank's; CSV: {} under target/workbook/)",
            csv.file_name().unwrap_or_default().to_string_lossy()
        );
    }
}
