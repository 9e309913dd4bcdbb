//! Exercise 7.1: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=07 SOLUTION=1`, `cargo test -p ch07-pipeline --features solution`).

use std::ops::Range;

// ANCHOR: split_stages
/// Cuts layers with the measured `costs` into `p` contiguous stages whose largest stage
/// cost is the smallest possible: dynamic programming over (stages, layers).
pub fn split_stages(costs: &[f64], p: usize) -> Result<Vec<Range<usize>>, String> {
    let n = costs.len();
    if p == 0 {
        return Err("0 stages: a pipeline needs at least one stage (p >= 1)".into());
    }
    if p > n {
        return Err(format!(
            "{p} stages for {n} layers: a stage needs at least one layer (p <= {n})"
        ));
    }
    if let Some(i) = costs.iter().position(|c| !c.is_finite() || *c < 0.0) {
        return Err(format!(
            "layer {i} costs {}: a cost is a time, finite and >= 0",
            costs[i]
        ));
    }
    let mut prefix = vec![0.0; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + costs[i];
    }
    // best[k][j]: the smallest bottleneck of layers 0..j in k stages; cut[k][j]: where
    // the last of those k stages starts.
    let mut best = vec![vec![f64::INFINITY; n + 1]; p + 1];
    let mut cut = vec![vec![0usize; n + 1]; p + 1];
    best[0][0] = 0.0;
    for k in 1..=p {
        for j in k..=n {
            for i in k - 1..j {
                let b = best[k - 1][i].max(prefix[j] - prefix[i]);
                if b < best[k][j] {
                    best[k][j] = b;
                    cut[k][j] = i;
                }
            }
        }
    }
    let mut ranges = vec![0..0; p];
    let mut end = n;
    for k in (1..=p).rev() {
        let start = cut[k][end];
        ranges[k - 1] = start..end;
        end = start;
    }
    Ok(ranges)
}
// ANCHOR_END: split_stages
