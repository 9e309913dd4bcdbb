//! Given code: a timeline of the staged allreduce on this thread, for the `staging_bench`
//! trace (Perfetto JSON through [`toolkit::perfetto`]).
//!
//! While recording is on ([`start`]), the copy stream notes each copy to the host (on
//! the copy thread's track), the wait for it in `synchronize` and, from the moment
//! chunk k landed to the start of its copy back, "allreduce k" (the rank's MPI time);
//! [`crate::stream::to_device`] notes "copy back k". Off (the default), a note costs one
//! thread-local check.

use std::cell::RefCell;
use std::time::Instant;
use toolkit::perfetto::{overlap, trace_json, Span};

/// The timeline's tracks, in order: [`COPIER`], [`RANK`].
pub const TRACKS: [&str; 2] = ["copy stream (to host)", "rank thread (MPI, copy back)"];
/// The copy thread's track (on a GPU: from issuing a copy to seeing it land).
pub const COPIER: usize = 0;
/// The rank thread's track: allreduces, copies back, waits.
pub const RANK: usize = 1;

struct Recorder {
    origin: Instant,
    spans: Vec<Span>,
    copies: usize,
    backs: usize,
    landed_at: Option<Instant>,
}

thread_local! {
    static REC: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Starts recording on this thread (times from now).
pub fn start() {
    REC.with(|r| {
        *r.borrow_mut() = Some(Recorder {
            origin: Instant::now(),
            spans: vec![],
            copies: 0,
            backs: 0,
            landed_at: None,
        })
    });
}

/// Stops recording; the spans noted since [`start`].
pub fn stop() -> Vec<Span> {
    REC.with(|r| r.borrow_mut().take().map(|r| r.spans).unwrap_or_default())
}

fn with(f: impl FnOnce(&mut Recorder)) {
    REC.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            f(rec)
        }
    });
}

fn span(rec: &Recorder, track: usize, name: String, a: Instant, b: Instant) -> Span {
    let at = |t: Instant| t.saturating_duration_since(rec.origin).as_secs_f64();
    Span::new(track, name, at(a), at(b))
}

/// A copy to the host ran from `a` to `b` (the stream numbers them in order).
pub(crate) fn copied(a: Instant, b: Instant) {
    with(|rec| {
        let s = span(rec, COPIER, format!("copy {}", rec.copies), a, b);
        rec.spans.push(s);
        rec.copies += 1;
    });
}

/// `synchronize` waited from `a` to `b`; what was in flight has landed at `b`.
pub(crate) fn synchronized(a: Instant, b: Instant) {
    with(|rec| {
        if b.duration_since(a).as_secs_f64() > 1e-6 {
            let s = span(rec, RANK, "wait for copy".into(), a, b);
            rec.spans.push(s);
        }
        rec.landed_at = Some(b);
    });
}

/// A copy back ran from `a` to `b`; since the last landing, the rank ran MPI.
pub(crate) fn copied_back(a: Instant, b: Instant) {
    with(|rec| {
        let k = rec.backs;
        if let Some(l) = rec.landed_at.take() {
            let s = span(rec, RANK, format!("allreduce {k}"), l, a);
            rec.spans.push(s);
        }
        let s = span(rec, RANK, format!("copy back {k}"), a, b);
        rec.spans.push(s);
        rec.backs += 1;
    });
}

/// The spans as Perfetto JSON (open it at ui.perfetto.dev), titled `title`.
pub fn to_json(title: &str, spans: &[Span]) -> String {
    trace_json(title, &TRACKS, spans)
}

/// The timeline as text, `width` columns wide: one row per track; a column shows what
/// ran at its middle moment (`c` copy to host, `A` allreduce, `b` copy back, `w` wait
/// for a copy, `.` nothing), so copies under allreduces are overlap.
pub fn to_text(spans: &[Span], width: usize) -> String {
    let end = spans.iter().map(|s| s.end).fold(0.0, f64::max);
    let mut out = String::new();
    for (track, name) in TRACKS.iter().enumerate() {
        let row: String = (0..width)
            .map(|i| {
                let t = end * (i as f64 + 0.5) / width as f64;
                let here = spans
                    .iter()
                    .find(|s| s.track == track && s.start <= t && t < s.end);
                match here.map(|s| s.name.as_str()) {
                    Some(n) if n.starts_with("copy back") => 'b',
                    Some(n) if n.starts_with("copy") => 'c',
                    Some(n) if n.starts_with("allreduce") => 'A',
                    Some(_) => 'w',
                    None => '.',
                }
            })
            .collect();
        out += &format!("{name:>30} |{row}|\n");
    }
    out + &format!("{:>30}  0 .. {:.2} ms\n", "", end * 1e3)
}

/// What a recorded run shows, in seconds: how long the copies to the host took, how much
/// of that ran while the rank thread worked (MPI or a copy back, its waits left out), and
/// the timeline's length.
pub fn copies_hidden(spans: &[Span]) -> (f64, f64, f64) {
    let work: Vec<Span> = spans
        .iter()
        .filter(|s| s.track == COPIER || !s.name.starts_with("wait"))
        .cloned()
        .collect();
    let copying: f64 = work
        .iter()
        .filter(|s| s.track == COPIER)
        .map(|s| s.end - s.start)
        .sum();
    let hidden = overlap(&work, COPIER, RANK);
    let total = spans.iter().map(|s| s.end).fold(0.0, f64::max);
    (copying, hidden, total)
}
