//! Exercises 7.7 and 7.8: solutions. Compiled instead of the stubs by `--features
//! solution`.

use crate::plan::{Pass, RankPlan, Task};

// ANCHOR: interleaved
/// Interleaved 1F1B: 1F1B over each rank's forward order and backward order, with a
/// longer warm-up (a micro-batch comes back to a rank `v - 1` more times before its
/// first backward can start).
pub fn interleaved(p: usize, v: usize, m: usize) -> RankPlan {
    let groups: Vec<Vec<usize>> = (0..m)
        .step_by(p)
        .map(|g| (g..(g + p).min(m)).collect())
        .collect();
    (0..p)
        .map(|r| {
            let order = |pass: Pass, chunks: Vec<usize>| -> Vec<Task> {
                let mut tasks = vec![];
                for group in &groups {
                    for &c in &chunks {
                        tasks.extend(group.iter().map(|&mb| Task {
                            stage: c * p + r,
                            mb,
                            pass,
                        }));
                    }
                }
                tasks
            };
            let forwards = order(Pass::Forward, (0..v).collect());
            let backwards = order(Pass::Backward, (0..v).rev().collect());
            let n = forwards.len();
            let warmup = ((p - r - 1) + (v - 1) * p).min(n);
            let mut tasks = forwards[..warmup].to_vec();
            for i in 0..n - warmup {
                tasks.push(forwards[warmup + i]);
                tasks.push(backwards[i]);
            }
            tasks.extend_from_slice(&backwards[n - warmup..]);
            tasks
        })
        .collect()
}
// ANCHOR_END: interleaved

// ANCHOR: zero_bubble_h1
/// ZB-H1: 1F1B with each backward split, rank `r`'s weight gradients `r` input
/// gradients behind, so that the last ranks send their input gradients sooner and do
/// their weight gradients when they would otherwise wait.
pub fn zero_bubble_h1(p: usize, m: usize) -> RankPlan {
    let task = |stage: usize, mb: usize, pass: Pass| Task { stage, mb, pass };
    (0..p)
        .map(|r| {
            let warmup = (p - r - 1).min(m);
            let mut tasks: Vec<Task> = (0..warmup).map(|mb| task(r, mb, Pass::Forward)).collect();
            let mut weights = 0;
            for i in 0..m - warmup {
                tasks.push(task(r, warmup + i, Pass::Forward));
                tasks.push(task(r, i, Pass::InputGrad));
                if i >= r {
                    tasks.push(task(r, weights, Pass::WeightGrad));
                    weights += 1;
                }
            }
            for mb in m - warmup..m {
                tasks.push(task(r, mb, Pass::InputGrad));
                tasks.push(task(r, weights, Pass::WeightGrad));
                weights += 1;
            }
            tasks.extend((weights..m).map(|mb| task(r, mb, Pass::WeightGrad)));
            tasks
        })
        .collect()
}
// ANCHOR_END: zero_bubble_h1
