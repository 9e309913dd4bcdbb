//! Benchmark: whole-buffer staging against double-buffered staging in chunks (ex 5.6),
//! at 16 and 64 MiB, at 2 and 4 ranks, with the staging model's predictions (ex 5.7).
//!
//! Run: `make bench CH=05` (release build, the solutions). Started without mpirun this
//! program is the driver: it runs itself under mpirun at NP = 2 and 4 (`toolkit::bench`)
//! and collects one row per (NP, size, chunk).
//! Times are medians over the repetitions (robust to a shared machine's preemptions).
//! Each chunked row also times, in turns with the pipeline, its three stages alone (one
//! chunk's copy to the host, allreduce, copy back) and reads them from the pipeline's
//! own timeline, and prices the pipeline from the stages alone as the code runs them
//! (`overlap_check::Overlap`: on the CPU `fill + (chunks - 1) · max(copy, allreduce +
//! back) + drain`, the copy back on the rank thread beside the copy thread; on a GPU
//! `max(copy, allreduce) + back` per turn, both copies on one stream). It gives measured
//! / that model, and measured / the same model fed the stages as timed inside the
//! pipeline: where the first misses and the second does not, the stages slowed each
//! other down when run together. Its last column is the time per run that allreduces
//! took beyond 3 times their median: a rank that lost its core stalls every rank.
//! One run per NP (16 MiB, 1 MiB chunks) is recorded on rank 0 and written as a Perfetto
//! timeline, `target/workbook/ch05-staging-trace-np{NP}.json`, with the time the copies
//! overlapped the rank thread's work.
//! Without a GPU the tensors are CPU tensors and the copies are memcpys on the stream's
//! copy thread: the table says that the GPU figure is not measured here.
//! `target/workbook/ch05-staging.csv`.

use ch05::gpu_node::visible_gpus;
use ch05::measure::{measure_links, reps_for, staged_by};
use ch05::overlap_check::{overlap_check, traced, Stages};
use ch05::staging_model::{best_chunk, pipelined, whole};
use ch05::staging_trace;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tabled::Tabled;
use tch::Device;
use toolkit::bench::{self, at_rank_counts, print_row};
use toolkit::perfetto::Span;
use toolkit::report::{print_and_save, write_file};

const SIZES_MIB: [usize; 2] = [16, 64];
const NPS: [u32; 2] = [2, 4];

/// The sizes (MiB), the rank counts and the fewest rounds of a row: the constants, or
/// one small size at 2 ranks, once, in a smoke run (`toolkit::bench::smoke`).
fn sizes() -> (&'static [usize], &'static [u32], usize) {
    bench::sized((&SIZES_MIB[..], &NPS[..], 5), (&[4][..], &[2][..], 1))
}
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
    #[tabled(rename = "model (ex 5.7)")]
    model: String,
    #[tabled(rename = "copy | allreduce | back, alone")]
    alone: String,
    #[tabled(rename = "same, in the pipeline")]
    inside: String,
    #[tabled(rename = "overlap model")]
    overlap_model: String,
    #[tabled(rename = "measured / model")]
    ratio: String,
    #[tabled(rename = "measured / model (stages in the pipeline)")]
    ratio_inside: String,
    #[tabled(rename = "allreduce stalls per run")]
    stalls: String,
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
    /// The overlap model from the stages measured alone (0 for the whole buffer).
    overlap_seconds: f64,
    /// The same model from the stages as the pipeline's timeline recorded them.
    inside_seconds: f64,
    /// One chunk's copy, allreduce and copy back, each measured alone (s).
    alone: Option<(f64, f64, f64)>,
    /// The same, inside the pipeline (s).
    inside: Option<(f64, f64, f64)>,
    /// Allreduce time beyond 3x its median, per run of the pipeline (s).
    stalls: Option<f64>,
    /// The host slots MPI read were page-locked (pinned): true on a GPU.
    pinned: bool,
}

/// Stages as they travel in a `ROW` line: (copy, allreduce, copy back).
fn triple(s: Stages) -> (f64, f64, f64) {
    (s.copy, s.allreduce, s.back)
}

/// Stages as a table cell, in ms.
fn stages(s: Option<(f64, f64, f64)>) -> String {
    match s {
        None => "-".into(),
        Some((c, a, b)) => format!("{:.3} | {:.3} | {:.3} ms", c * 1e3, a * 1e3, b * 1e3),
    }
}

/// measured / model as a cell ("-" without a model), noting whether it is within 25%.
fn ratio(measured: f64, model: f64, within: &mut Vec<bool>) -> String {
    if model == 0.0 {
        return "-".into();
    }
    within.push((measured / model - 1.0).abs() <= 0.25);
    format!("{:.2}", measured / model)
}

/// What rank 0's recorded run shows (`TRACE {json}` is not needed: one line of text).
fn trace_line(np: usize, spans: &[Span]) -> String {
    let (copying, hidden, total) = staging_trace::copies_hidden(spans);
    let name = format!("ch05-staging-trace-np{np}.json");
    let title = format!("staged allreduce, 16 MiB in 1 MiB chunks, rank 0 of {np}");
    let path = write_file(&name, &staging_trace::to_json(&title, spans)).expect("write the trace");
    format!(
        "NP={np}: timeline {} ({} spans, {:.2} ms): the copies to the host took {:.2} ms, of \
         which {:.2} ms ({:.0}%) ran while the rank thread ran MPI or copied back",
        path.file_name().unwrap_or_default().to_string_lossy(),
        spans.len(),
        total * 1e3,
        copying * 1e3,
        hidden * 1e3,
        100.0 * hidden / copying.max(1e-12)
    )
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
    let spans = traced(&world, (16 << 20) / 4, (1 << 20) / 4, dev);
    if world.rank() == 0 {
        println!("TRACE {}", trace_line(world.size() as usize, &spans));
        for line in staging_trace::to_text(&spans, 96).lines() {
            println!("TRACE {line}");
        }
    }
    let p = world.size() as usize;
    let (sizes_mib, _, fewest) = sizes();
    for &mib in sizes_mib {
        let bytes = mib << 20;
        let (best, _) = best_chunk(&m, p, bytes);
        let mut chunks = vec![bytes, FIXED_CHUNK, best];
        chunks.dedup();
        for (i, &chunk) in chunks.iter().enumerate() {
            let case = (bytes / 4, (chunk / 4).max(1), dev);
            let rounds = bench::sized(reps_for(bytes), 1).max(fewest);
            let (secs, parts) = if chunk == bytes {
                (staged_by(&world, case, true), None)
            } else {
                let (secs, o) = overlap_check(&world, case, rounds);
                (secs, Some(o))
            };
            let model = if chunk == bytes {
                whole(&m, p, bytes)
            } else {
                pipelined(&m, p, bytes, chunk)
            };
            let (overlap_seconds, inside_seconds) = match parts {
                None => (0.0, 0.0),
                Some(o) => (o.model(), o.model_of(o.inside)),
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
                    overlap_seconds,
                    inside_seconds,
                    alone: parts.map(|o| triple(o.alone)),
                    inside: parts.map(|o| triple(o.inside)),
                    stalls: parts.map(|o| o.stalls),
                    pinned: ch05::stream::HostBuf::<f32>::new(1, dev).is_pinned(),
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
    let (mut on_gpu, mut pinned) = (false, false);
    let mut traces = vec![];
    let (mut within, mut within_inside) = (vec![], vec![]);
    for (np, lines) in at_rank_counts(sizes().1, Duration::from_secs(300)) {
        let measured =
            bench::rows::<Measured>(&lines).unwrap_or_else(|e| panic!("staging_bench: {e}"));
        on_gpu |= measured.iter().any(|r| r.on_gpu);
        pinned |= measured.iter().any(|r| r.pinned);
        if measured.is_empty() {
            panic!(
                "staging_bench: the {np}-rank run printed no ROW lines:\n{}",
                lines.join("\n")
            );
        }
        traces.extend(
            lines
                .iter()
                .filter_map(|l| l.strip_prefix("TRACE "))
                .map(String::from),
        );
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
                alone: stages(r.alone),
                inside: stages(r.inside),
                stalls: r
                    .stalls
                    .map_or("-".into(), |s| format!("{:.2} ms", s * 1e3)),
                overlap_model: match r.overlap_seconds {
                    0.0 => "-".into(),
                    o => format!("{:.2} ms", o * 1e3),
                },
                ratio: ratio(secs, r.overlap_seconds, &mut within),
                ratio_inside: ratio(secs, r.inside_seconds, &mut within_inside),
            });
        }
    }
    print_and_save(&rows, "ch05-staging.csv").expect("write the CSV");
    println!(
        "load average at the end: {:.1} on {} cores",
        bench::load_average(),
        toolkit::report::host_cores()
    );
    let count = |w: &[bool]| w.iter().filter(|&&w| w).count();
    println!(
        "overlap model: {} of {} chunked rows within 25% of the measured time from the stages \
         alone; {} of {} from the stages as timed inside the pipeline",
        count(&within),
        within.len(),
        count(&within_inside),
        within_inside.len()
    );
    for t in &traces {
        println!("{t}");
    }
    if on_gpu {
        println!(
            "GPU tensors: copies issued non-blocking into page-locked memory; host slots \
             pinned: {pinned}"
        );
    } else {
        println!(
            "no GPU here: these are CPU tensors staged through the same code (the copies are \
             memcpys on the stream's copy thread); the pinned, non-blocking GPU path is \
             skipped (no CUDA device). The GPU figure (target: chunked faster than whole \
             from 16 MiB) is not measured here."
        );
    }
}
