//! pipe_bench's last lines: how many micro-batches? The step model of `ch07::micro_model`,
//! `T(m) = (m + p - 1)(K + L/m)`, fitted on the measured 1F1B rows at p = 2, and the m it
//! predicts at each p next to the measured best; then the same model with `K` and `L`
//! measured apart (`apart.rs`: compute timed alone, the link ping-ponged), a prediction
//! made from other data than the rows it is checked against.

use crate::apart::Apart;
use ch07::micro_model::{fit_line, StepModel};

/// One measured row: p, the schedule's name, m, samples/s.
pub type Rate = (u32, String, usize, f64);

/// The lines to print under the table: the fitted model (when p = 2 has two 1F1B rows or
/// more), then the one measured apart.
pub fn lines(rows: &[Rate], apart: &[Apart], batch: usize, candidates: &[usize]) -> Vec<String> {
    // Seconds per step of each 1F1B row at `p`, by m.
    let steps = |p: u32| -> Vec<(usize, f64)> {
        let of_p = rows.iter().filter(|r| r.0 == p && r.1 == "OneFOneB");
        of_p.map(|r| (r.2, batch as f64 / r.3)).collect()
    };
    // T(m) / (m + p - 1) = K + L·(1/m): a line in 1/m.
    let points: Vec<(f64, f64)> = steps(2)
        .iter()
        .map(|&(m, t)| (1.0 / m as f64, t / (m + 1) as f64))
        .collect();
    let best = |p: u32| {
        let measured = steps(p).into_iter().min_by(|a, b| a.1.total_cmp(&b.1));
        measured.map_or("-".to_string(), |(m, _)| m.to_string())
    };
    let mut out = vec![];
    if points.len() >= 2 {
        out.extend(fitted(&points, candidates, &best));
    }
    if !apart.is_empty() {
        out.push(
            "the same model, K and L measured apart (compute timed alone on rank 0, the link \
             ping-ponged between the two ranks, before any pipeline ran):"
                .into(),
        );
    }
    for a in apart {
        let head = format!(
            "  p = {}: compute {:.3} ms + {:.4} ms/row, link {:.1} us + {:.3} ns/B -> K = {:.3} ms, \
             L = {:.3} ms;",
            a.p, a.compute_ms.0, a.compute_ms.1, a.link.0, a.link.1, a.k_ms, a.l_ms
        );
        out.push(match a.m_star {
            Some(m_star) if a.k_ms > 0.0 && a.l_ms > 0.0 => format!(
                "{head} best m predicted {} (m* = {m_star:.1}), measured {}",
                a.best_m,
                best(a.p as u32)
            ),
            _ => format!("{head} K or L is not positive: the timings were noise (rerun)"),
        });
    }
    out
}

/// The model fitted on the 1F1B rows at p = 2 (`points`: 1/m against T(m)/(m + 1)), and
/// its choice at p = 2 and 4.
fn fitted(
    points: &[(f64, f64)],
    candidates: &[usize],
    best: &dyn Fn(u32) -> String,
) -> Vec<String> {
    let line = fit_line(points);
    let (k, l) = (line.fixed, line.per_unit);
    let mut out = vec![format!(
        "how many micro-batches (ch07::micro_model): T(m) = (m + p - 1)(K + L/m) fitted on the \
         1F1B rows at p = 2: K = {:.3} ms per micro-batch, L = {:.3} ms per batch",
        1e3 * k,
        1e3 * l
    )];
    if k <= 0.0 || l <= 0.0 {
        out.push("  K or L is not positive: these rows do not follow the model (rerun)".into());
        return out;
    }
    for p in [2_u32, 4] {
        // A stage at p holds 2/p of the blocks of a stage at p = 2: K and L scale alike.
        let scale = 2.0 / p as f64;
        let model = StepModel {
            per_micro_batch: k * scale,
            per_batch: l * scale,
        };
        out.push(format!(
            "  p = {p}: best m predicted {} (m* = sqrt((p-1)L/K) = {:.1}), measured {}",
            model.best_m(p as usize, candidates),
            model.best_real_m(p as usize),
            best(p)
        ));
    }
    out
}
