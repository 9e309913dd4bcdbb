//! Given: `--max-mem BYTES`, a memory budget per rank, enforced before any communication
//! with the trainer's own accounting: what each stage holds at N ranks (crate::memory's
//! formulas, which the lab's measured bytes equal; tests/zero_lab.rs, tests/zero3.rs). A
//! run that does not fit is refused in one line that names the smallest stage that would.

use crate::memory::{formula, gathered_formula, Stage};
use ch06::model::ModelKind;

/// The stages, smallest sharding first.
pub const STAGES: [Stage; 4] = [Stage::Replicated, Stage::Zero1, Stage::Zero2, Stage::Zero3];

/// Bytes per rank that `stage` holds at its peak for a model whose layers have `layers`
/// parameters each, over `n` ranks (the padding included, as the trainer allocates it).
pub fn needs(stage: Stage, layers: &[usize], n: usize, prefetch: bool) -> usize {
    let p: usize = layers.iter().sum();
    match stage {
        Stage::Replicated => 16 * p,
        Stage::Zero1 | Stage::Zero2 => formula(stage, p.div_ceil(n) * n, n) as usize,
        Stage::Zero3 => {
            let padded: Vec<usize> = layers.iter().map(|l| l.div_ceil(n) * n).collect();
            16 * padded.iter().sum::<usize>() / n + gathered_formula(&padded, prefetch)
        }
    }
}

/// Refuses `stage` at `n` ranks when it needs more than `max` bytes per rank, naming the
/// smallest stage that fits at `n`, or else the fewest ranks at which stage 3 fits.
pub fn check(
    kind: ModelKind,
    stage: Stage,
    n: usize,
    prefetch: bool,
    max: usize,
) -> Result<(), String> {
    let layers = crate::layers::layer_params(kind, (8, 8));
    let need = needs(stage, &layers, n, prefetch);
    if need <= max {
        return Ok(());
    }
    let head = format!(
        "--max-mem {max}: model {} needs {need} B per rank at stage {} (N = {n})",
        kind.name(),
        stage.number()
    );
    if let Some(s) = STAGES
        .iter()
        .find(|s| needs(**s, &layers, n, prefetch) <= max)
    {
        let fits = needs(*s, &layers, n, prefetch);
        let s = s.number();
        return Err(format!(
            "{head}; stage {s} fits ({fits} B) in {max} B at N = {n}: add --stage {s}"
        ));
    }
    let p: usize = layers.iter().sum();
    match (n + 1..=p.min(1024)).find(|&m| needs(Stage::Zero3, &layers, m, prefetch) <= max) {
        Some(m) => Err(format!(
            "{head}; no stage fits at N = {n}; stage 3 fits from N = {m} ranks: run NP={m} with --stage 3"
        )),
        None => Err(format!("{head}; no stage fits in {max} B at up to 1024 ranks")),
    }
}
