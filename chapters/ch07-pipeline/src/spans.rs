//! Given: what each stage did when, for the measured bubble and the traces.
//!
//! The executor records a span per phase (forward, backward, send, receive), and the
//! trainer one for the data-parallel allreduce after them; the time a stage spends in none
//! of them, or waiting in a receive, is its share of the bubble.
//! [`write_trace`] writes Chrome/Perfetto trace-event JSON (open it at ui.perfetto.dev
//! or chrome://tracing) and [`timeline_svg`] a picture, one track per stage.

use std::time::Instant;

/// What a span of a stage's time was spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Forward,
    Backward,
    /// Posting a non-blocking send (and, at the end of the step, completing them).
    Send,
    /// Waiting for, and copying in, an activation or a gradient.
    Receive,
    /// The allreduce of the stage's gradients over its data-parallel replicas (DP x PP).
    Sync,
}

impl Phase {
    /// Its name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Forward => "forward",
            Phase::Backward => "backward",
            Phase::Send => "send",
            Phase::Receive => "receive",
            Phase::Sync => "dp allreduce",
        }
    }
    fn code(self) -> f64 {
        self as u8 as f64
    }
    fn from_code(c: f64) -> Phase {
        let all = [
            Phase::Forward,
            Phase::Backward,
            Phase::Send,
            Phase::Receive,
            Phase::Sync,
        ];
        all[c as usize % all.len()]
    }
}

/// One span: `micro`'s `phase`, from `start` to `end` seconds after the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub phase: Phase,
    pub micro: usize,
    pub start: f64,
    pub end: f64,
}

/// A stage's spans since its origin (set at a barrier, so stages roughly agree).
pub struct Timeline {
    origin: Instant,
    pub spans: Vec<Span>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}

// ANCHOR: record
impl Timeline {
    /// An empty timeline starting now.
    pub fn new() -> Timeline {
        Timeline {
            origin: Instant::now(),
            spans: vec![],
        }
    }
    /// Forgets the spans and starts the clock again (call it right after a barrier).
    pub fn restart(&mut self) {
        self.origin = Instant::now();
        self.spans.clear();
    }
    /// Records that `phase` of micro-batch `micro` ran from `since` until now.
    pub fn record(&mut self, phase: Phase, micro: usize, since: Instant) {
        let start = since.duration_since(self.origin).as_secs_f64();
        let end = self.origin.elapsed().as_secs_f64();
        self.spans.push(Span {
            phase,
            micro,
            start,
            end,
        });
    }
    // ANCHOR_END: record

    /// Seconds spent computing (forward and backward).
    pub fn busy(&self) -> f64 {
        self.spans
            .iter()
            .filter(|s| matches!(s.phase, Phase::Forward | Phase::Backward))
            .map(|s| s.end - s.start)
            .sum()
    }

    /// Seconds since the origin.
    pub fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// The spans as 4 numbers each (phase, micro, start, end), for a gather.
    pub fn flat(&self) -> Vec<f64> {
        let one = |s: &Span| [s.phase.code(), s.micro as f64, s.start, s.end];
        self.spans.iter().flat_map(one).collect()
    }

    /// The spans back from [`Timeline::flat`].
    pub fn from_flat(v: &[f64]) -> Vec<Span> {
        v.chunks_exact(4)
            .map(|c| Span {
                phase: Phase::from_code(c[0]),
                micro: c[1] as usize,
                start: c[2],
                end: c[3],
            })
            .collect()
    }
}

// ANCHOR: trace_json
/// Chrome trace-event JSON: one track (`tid`) per stage, a complete event ("X") per span,
/// times in microseconds. Gaps between spans are the stage's idle time.
pub fn trace_json(title: &str, stages: &[Vec<Span>]) -> String {
    let mut ev = vec![format!(
        r#"{{"name":"process_name","ph":"M","pid":0,"args":{{"name":{}}}}}"#,
        serde_json::Value::from(title)
    )];
    for (s, spans) in stages.iter().enumerate() {
        ev.push(format!(
            r#"{{"name":"thread_name","ph":"M","pid":0,"tid":{s},"args":{{"name":"stage {s}"}}}}"#
        ));
        for sp in spans {
            ev.push(format!(
                r#"{{"name":"{} {}","cat":"{}","ph":"X","pid":0,"tid":{s},"ts":{:.1},"dur":{:.1}}}"#,
                sp.phase.name(),
                sp.micro,
                sp.phase.name(),
                sp.start * 1e6,
                (sp.end - sp.start) * 1e6
            ));
        }
    }
    format!("{{\"traceEvents\":[\n{}\n]}}\n", ev.join(",\n"))
}
// ANCHOR_END: trace_json

/// For a traced DP x PP step, one line per stage: when its last backward ended and when
/// its data-parallel allreduce ([`Phase::Sync`]) ran, in ms of that stage's clock (each
/// stage starts it at the same barrier). Empty when the trace has no allreduce.
pub fn sync_lines(stages: &[Vec<Span>]) -> Vec<String> {
    let last = |spans: &[Span], phase: Phase| spans.iter().rfind(|s| s.phase == phase).copied();
    let mut out = vec![];
    for (s, spans) in stages.iter().enumerate() {
        if let (Some(b), Some(sync)) = (last(spans, Phase::Backward), last(spans, Phase::Sync)) {
            out.push(format!(
                "stage {s}: last backward ended at {:.2} ms; dp allreduce from {:.2} to {:.2} ms",
                1e3 * b.end,
                1e3 * sync.start,
                1e3 * sync.end
            ));
        }
    }
    out
}

/// An SVG timeline: one row per stage, forwards blue, backwards green, sends orange,
/// receives grey, data-parallel allreduces purple, idle white; each compute box labelled with its micro-batch.
pub fn timeline_svg(title: &str, stages: &[Vec<Span>]) -> String {
    let end = stages.iter().flatten().map(|s| s.end).fold(1e-9, f64::max);
    let (left, width, row, top) = (70.0, 860.0, 34.0, 40.0);
    let h = top + row * stages.len() as f64 + 40.0;
    let x = |t: f64| left + width * t / end;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">
<rect width="{w}" height="{h}" fill="white"/>
<text x="{left}" y="20" font-size="14">{t}</text>
"#,
        w = left + width + 20.0,
        t = toolkit::xml::xml_escape(title)
    );
    for (s, spans) in stages.iter().enumerate() {
        let y = top + row * s as f64;
        svg += &format!(
            r##"<text x="8" y="{:.1}">stage {s}</text><rect x="{left}" y="{y:.1}" width="{width}" height="{:.1}" fill="none" stroke="#ccc"/>
"##,
            y + row / 2.0 + 4.0,
            row - 6.0
        );
        for sp in spans {
            let colour = match sp.phase {
                Phase::Forward => "#4e79a7",
                Phase::Backward => "#59a14f",
                Phase::Send => "#f28e2b",
                Phase::Receive => "#bab0ac",
                Phase::Sync => "#b07aa1",
            };
            let (x0, x1) = (x(sp.start), x(sp.end).max(x(sp.start) + 0.5));
            svg += &format!(
                r##"<rect x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>
"##,
                x1 - x0,
                row - 6.0
            );
            if matches!(sp.phase, Phase::Forward | Phase::Backward) && x1 - x0 > 12.0 {
                let l = if sp.phase == Phase::Forward { "F" } else { "B" };
                svg += &format!(
                    r#"<text x="{:.1}" y="{:.1}" fill="white">{l}{}</text>
"#,
                    x0 + 2.0,
                    y + row / 2.0 + 2.0,
                    sp.micro
                );
            }
        }
    }
    let y = top + row * stages.len() as f64 + 20.0;
    svg += &format!(
        r#"<text x="{left}" y="{y:.1}">0 ms</text><text x="{:.1}" y="{y:.1}" text-anchor="end">{:.1} ms   (blue forward, green backward, orange send, grey receive, purple dp allreduce, white idle)</text>
</svg>
"#,
        left + width,
        end * 1e3
    );
    svg
}
