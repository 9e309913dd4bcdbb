//! Given: a trace of one training step on every rank of the grid, one track per kind of
//! communication (TP, DP, PP, the embedding group), as Perfetto JSON.
//!
//! While recording is on ([`start`]), each collective of a [`crate::tp::Tp`] notes a span
//! on its group's [`Axis`], and each point-to-point message of [`crate::pipe::Pipe`] one
//! on PP (a receive inside the send it completes: nested spans). Off (the default), a note
//! costs one thread-local check. [`gather`] brings every rank's spans to world rank 0,
//! which writes them with `toolkit::perfetto` as four tracks per rank: the gaps between
//! a rank's spans are its computation. The origin of every rank's clock is the end of a
//! barrier just before the step, so the ranks' tracks line up to within the barrier's
//! skew (microseconds on one node). Written by the lab, `gpt --trace FILE` (FILE.json:
//! open it at ui.perfetto.dev or chrome://tracing).

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::cell::RefCell;
use std::time::Instant;
use toolkit::perfetto::{trace_json, Span};

/// Which group a span's communication is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The tensor-parallel group's allreduces (the layers' f and g, the cross-entropy's).
    Tp = 0,
    /// The data-parallel group's allreduce of the gradients.
    Dp = 1,
    /// The messages between pipeline stages.
    Pp = 2,
    /// The embedding group's sum of the tied table's two copies.
    Embedding = 3,
}

/// The axes' names, in [`Axis`] order.
pub const AXES: [&str; 4] = ["TP", "DP", "PP", "embedding"];

thread_local! {
    static ORIGIN: RefCell<Option<Instant>> = const { RefCell::new(None) };
    static SPANS: RefCell<Vec<[f64; 3]>> = const { RefCell::new(Vec::new()) };
}

/// Starts recording on this rank, after a barrier of `world` (the common origin).
pub fn start(world: &SimpleCommunicator) {
    world.barrier();
    SPANS.with(|s| s.borrow_mut().clear());
    ORIGIN.with(|o| *o.borrow_mut() = Some(Instant::now()));
}

/// Stops recording; this rank's spans as `[axis, start s, end s]`.
pub fn stop() -> Vec<[f64; 3]> {
    ORIGIN.with(|o| *o.borrow_mut() = None);
    SPANS.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// Notes a span on `axis` from `since` to now, while recording.
pub fn note(axis: Axis, since: Instant) {
    ORIGIN.with(|o| {
        if let Some(origin) = *o.borrow() {
            let (a, b) = (since - origin, origin.elapsed());
            let span = [axis as usize as f64, a.as_secs_f64(), b.as_secs_f64()];
            SPANS.with(|s| s.borrow_mut().push(span));
        }
    });
}

/// Every rank's `spans` on world rank 0 (collective over `world`): `Some` of the spans
/// of each rank, in rank order, there; `None` elsewhere.
pub fn gather(world: &SimpleCommunicator, spans: &[[f64; 3]]) -> Option<Vec<Vec<[f64; 3]>>> {
    let mine = [spans.len() as u64];
    let mut most = [0u64];
    world.all_reduce_into(
        &mine[..],
        &mut most[..],
        mpi::collective::SystemOperation::max(),
    );
    let width = 1 + 3 * most[0] as usize; // the count, then the spans, padded
    let mut flat = vec![0.0; width];
    flat[0] = spans.len() as f64;
    for (i, s) in spans.iter().enumerate() {
        flat[1 + 3 * i..4 + 3 * i].copy_from_slice(s);
    }
    let n = world.size() as usize;
    let root = world.process_at_rank(0);
    if world.rank() != 0 {
        root.gather_into(&flat[..]);
        return None;
    }
    let mut all = vec![0.0; width * n];
    root.gather_into_root(&flat[..], &mut all[..]);
    let each = all.chunks(width).map(|c| {
        let k = c[0] as usize;
        (0..k)
            .map(|i| [c[1 + 3 * i], c[2 + 3 * i], c[3 + 3 * i]])
            .collect()
    });
    Some(each.collect())
}

/// The Perfetto JSON of every rank's spans: track `4r + axis` is rank r's `axis`, named
/// with `label(r)` (e.g. the rank's coordinates).
pub fn to_json(title: &str, ranks: &[Vec<[f64; 3]>], label: impl Fn(usize) -> String) -> String {
    let names: Vec<String> = (0..ranks.len())
        .flat_map(|r| AXES.iter().map(move |a| (r, a)))
        .map(|(r, a)| format!("{}: {a}", label(r)))
        .collect();
    let tracks: Vec<&str> = names.iter().map(String::as_str).collect();
    let spans: Vec<Span> = ranks
        .iter()
        .enumerate()
        .flat_map(|(r, spans)| {
            spans.iter().map(move |&[axis, start, end]| {
                let axis = axis as usize;
                Span::new(4 * r + axis, AXES[axis], start, end)
            })
        })
        .collect();
    trace_json(title, &tracks, &spans)
}

/// Seconds a rank's spans on each axis cover (nested spans counted once: the outermost).
pub fn busy(spans: &[[f64; 3]]) -> [f64; 4] {
    let mut out = [0.0; 4];
    for (axis, total) in out.iter_mut().enumerate() {
        let mut mine: Vec<(f64, f64)> = spans
            .iter()
            .filter(|s| s[0] as usize == axis)
            .map(|s| (s[1], s[2]))
            .collect();
        mine.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut reach = f64::NEG_INFINITY;
        for (a, b) in mine {
            let from = a.max(reach);
            if b > from {
                *total += b - from;
            }
            reach = reach.max(b);
        }
    }
    out
}

/// Step `step` of `tr` (its batch drawn from `seed`) traced on every rank (collective over
/// `world`): world rank 0 writes the trace to `file` with the extension `.json` and
/// prints, per rank, the time the step spent in each group's communication.
pub fn traced(
    world: &SimpleCommunicator,
    tr: &mut impl crate::gpt_lab::LabTrainer,
    corpus: &crate::corpus::Corpus,
    (seed, step): (u64, u64),
    file: &std::path::Path,
) -> Result<crate::train::StepStats, String> {
    start(world);
    let stats = tr.step(corpus, seed, step);
    let took = ORIGIN.with(|o| o.borrow().map(|o| o.elapsed().as_secs_f64()));
    let spans = stop();
    let Some(ranks) = gather(world, &spans) else {
        return Ok(stats);
    };
    let layout = tr.layout();
    let label = |r: usize| {
        let c = layout.coords(r);
        format!("rank {r} (dp {}, tp {}, pp {})", c.dp, c.tp, c.pp)
    };
    let title = format!(
        "gpt, step {step}: dp {} x tp {} x pp {}",
        layout.dp, layout.tp, layout.pp
    );
    // Written whole or not at all: into a temporary file, then renamed.
    let (path, tmp) = (file.with_extension("json"), file.with_extension("json.tmp"));
    std::fs::write(&tmp, to_json(&title, &ranks, label))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("--trace: {}: {e}", path.display()))?;
    println!(
        "trace of step {step} ({:.1} ms on rank 0), {}: time in each group's communication, ms",
        1e3 * took.unwrap_or(0.0),
        path.display()
    );
    for (r, spans) in ranks.iter().enumerate() {
        let b = busy(spans).map(|s| format!("{:7.2}", 1e3 * s));
        println!(
            "  {:<28} TP {}  DP {}  PP {}  embedding {}",
            label(r),
            b[0],
            b[1],
            b[2],
            b[3]
        );
    }
    Ok(stats)
}
