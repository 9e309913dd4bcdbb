//! Timelines as Chrome trace-event JSON, the format Perfetto (ui.perfetto.dev) and
//! chrome://tracing open: named tracks, and spans on them.
//!
//! A lab records [`Span`]s (seconds from a common origin) on numbered tracks and writes
//! them with [`trace_json`]; each track becomes one row of the timeline, each span one
//! complete event ("X"). Gaps between a track's spans are that track's idle time.
//!
//! ```
//! use toolkit::perfetto::{trace_json, Span};
//! let spans = [Span::new(0, "copy 0", 0.0, 1e-3), Span::new(1, "allreduce 0", 1e-3, 3e-3)];
//! let json = trace_json("rank 0", &["copier", "MPI"], &spans);
//! assert!(json.contains(r#""name":"allreduce 0""#));
//! ```
//!
//! Test: `cargo test -p toolkit --lib perfetto`.

use serde_json::{json, Value};

/// One piece of work on one track: its name and when it ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Which track (row) it belongs to: an index into the track names.
    pub track: usize,
    /// What ran, as the timeline labels it (`"copy 3"`).
    pub name: String,
    /// Start, in seconds from the timeline's origin.
    pub start: f64,
    /// End, in seconds from the timeline's origin (not before `start`).
    pub end: f64,
}

impl Span {
    /// A span named `name` on track `track`, from `start` to `end` seconds.
    pub fn new(track: usize, name: impl Into<String>, start: f64, end: f64) -> Self {
        Span {
            track,
            name: name.into(),
            start,
            end,
        }
    }
}

/// Chrome trace-event JSON for one process named `title`: a thread (`tid`) per entry of
/// `tracks`, named after it, and a complete event per span (times in microseconds; the
/// event's category is the span's name up to its first space: `"copy 3"` is a `copy`).
///
/// # Panics
/// If a span names a track that `tracks` does not have, or ends before it starts.
pub fn trace_json(title: &str, tracks: &[&str], spans: &[Span]) -> String {
    let mut events =
        vec![json!({"name": "process_name", "ph": "M", "pid": 0, "args": {"name": title}})];
    for (tid, name) in tracks.iter().enumerate() {
        events.push(
            json!({"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}),
        );
        events.push(json!({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": tid, "args": {"sort_index": tid}}));
    }
    for s in spans {
        assert!(
            s.track < tracks.len(),
            "span {:?} is on track {} of {}",
            s.name,
            s.track,
            tracks.len()
        );
        assert!(s.end >= s.start, "span {:?} ends before it starts", s.name);
        let category = s.name.split(' ').next().unwrap_or_default();
        events.push(json!({
            "name": s.name, "cat": category, "ph": "X", "pid": 0, "tid": s.track,
            "ts": micros(s.start), "dur": micros(s.end - s.start),
        }));
    }
    let lines: Vec<String> = events.iter().map(Value::to_string).collect();
    format!("{{\"traceEvents\":[\n{}\n]}}\n", lines.join(",\n"))
}

/// Seconds as microseconds, to 0.1 us.
fn micros(seconds: f64) -> f64 {
    (seconds * 1e7).round() / 10.0
}

/// The time during which spans of both `a` and `b` run at once (the overlap of two
/// tracks), in seconds: what a timeline shows when two kinds of work hide each other.
pub fn overlap(spans: &[Span], a: usize, b: usize) -> f64 {
    let on = |t: usize| spans.iter().filter(move |s| s.track == t);
    on(a)
        .flat_map(|x| on(b).map(move |y| (x.end.min(y.end) - x.start.max(y.start)).max(0.0)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_and_spans_become_trace_events() {
        let spans = [
            Span::new(0, "copy 0", 0.0, 1.5e-6),
            Span::new(1, "allreduce 0", 1e-6, 4e-6),
        ];
        let text = trace_json("rank \"0\"", &["copier", "MPI"], &spans);
        let v: Value = serde_json::from_str(&text).expect("valid JSON");
        let ev = v["traceEvents"].as_array().unwrap();
        assert_eq!(ev[0]["args"]["name"], "rank \"0\"");
        let named: Vec<&Value> = ev.iter().filter(|e| e["name"] == "thread_name").collect();
        assert_eq!(named.len(), 2);
        assert_eq!(named[1]["args"]["name"], "MPI");
        let x: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), 2);
        assert_eq!(
            (x[1]["tid"].as_u64(), x[1]["cat"].as_str()),
            (Some(1), Some("allreduce"))
        );
        assert_eq!(
            (x[0]["ts"].as_f64(), x[0]["dur"].as_f64()),
            (Some(0.0), Some(1.5))
        );
        assert_eq!(
            (x[1]["ts"].as_f64(), x[1]["dur"].as_f64()),
            (Some(1.0), Some(3.0))
        );
    }

    #[test]
    #[should_panic(expected = "on track 2 of 2")]
    fn a_span_on_a_missing_track_is_refused() {
        trace_json("t", &["a", "b"], &[Span::new(2, "x", 0.0, 1.0)]);
    }

    #[test]
    fn overlap_counts_only_time_both_tracks_are_busy() {
        let spans = [
            Span::new(0, "copy 1", 1.0, 3.0),
            Span::new(1, "allreduce 0", 0.0, 2.0),
            Span::new(1, "allreduce 1", 2.5, 4.0),
            Span::new(0, "copy 2", 5.0, 6.0),
        ];
        assert!((overlap(&spans, 0, 1) - 1.5).abs() < 1e-12);
        assert_eq!(overlap(&spans, 0, 0), 3.0, "a track overlaps itself fully");
    }
}
