//! What the schedules half's tests share (and its planted mistakes reuse): the stage
//! split property against a brute force, and the properties of GPipe and 1F1B, run
//! through the given checker for every p in 1..=8 and m in 1..=16.
#![allow(dead_code)] // each test file uses a part

use ch07::plan::Schedule;
use ch07::schedule_check::{bubble_formula, check, UNIT};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRng, TestRunner};
use std::ops::Range;

/// The signature of ex 7.1.
pub type SplitFn = fn(&[f64], usize) -> Result<Vec<Range<usize>>, String>;
/// The signature of ex 7.3 and 7.4.
pub type Generator = fn(usize, usize) -> Schedule;

/// Stage counts and micro-batch counts the schedule tests cover, all of them.
pub const PS: Range<usize> = 1..9;
pub const MS: Range<usize> = 1..17;

/// The largest stage cost of `ranges`, each stage summed left to right.
pub fn bottleneck(costs: &[f64], ranges: &[Range<usize>]) -> f64 {
    let stage = |r: &Range<usize>| costs[r.clone()].iter().sum::<f64>();
    ranges.iter().map(stage).fold(0.0, f64::max)
}

/// The brute force: the smallest bottleneck over every way to put `p - 1` cuts between
/// the layers (a different road from the exercise's: it tries them all).
pub fn brute_force(costs: &[f64], p: usize) -> f64 {
    fn go(costs: &[f64], from: usize, left: usize, cuts: &mut Vec<usize>, best: &mut f64) {
        let n = costs.len();
        if left == 1 {
            let mut bounds = vec![0];
            bounds.extend(cuts.iter().copied());
            bounds.push(n);
            let ranges: Vec<_> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
            *best = best.min(bottleneck(costs, &ranges));
            return;
        }
        for cut in from + 1..=n - (left - 1) {
            cuts.push(cut);
            go(costs, cut, left - 1, cuts, best);
            cuts.pop();
        }
    }
    let mut best = f64::INFINITY;
    go(costs, 0, p, &mut vec![], &mut best);
    best
}

/// `split(costs, p)` is p contiguous non-empty ranges covering the layers in order, with
/// the smallest bottleneck.
pub fn split_holds(split: SplitFn, costs: &[f64], p: usize) -> Result<(), String> {
    let n = costs.len();
    let ranges = split(costs, p).map_err(|why| format!("refused a valid split: {why}"))?;
    if ranges.len() != p {
        return Err(format!("{} ranges for {p} stages", ranges.len()));
    }
    let mut at = 0;
    for (s, r) in ranges.iter().enumerate() {
        if r.start != at {
            return Err(format!(
                "stage {s} is {r:?} but should start at layer {at}: stages are contiguous \
                 and in order, {ranges:?}"
            ));
        }
        if r.is_empty() {
            return Err(format!("stage {s} is empty ({r:?}) in {ranges:?}"));
        }
        at = r.end;
    }
    if at != n {
        return Err(format!("{ranges:?} ends at layer {at}, not at {n}"));
    }
    let (got, best) = (bottleneck(costs, &ranges), brute_force(costs, p));
    if got != best {
        return Err(format!(
            "{ranges:?} has a slowest stage of cost {got}, but a split with a slowest \
             stage of {best} exists"
        ));
    }
    Ok(())
}

/// Layer costs (1 to 10 layers of 0 to 50 units, whole numbers so that every sum is
/// exact) and a stage count from 1 to 10, cut to the layers (each shrinks on its own).
pub fn cases() -> impl Strategy<Value = (Vec<f64>, usize)> {
    let costs = prop::collection::vec(0u32..=50, 1..=10);
    (costs, 1usize..=10).prop_map(|(c, p)| {
        let p = p.min(c.len());
        (c.into_iter().map(f64::from).collect(), p)
    })
}

/// Runs [`split_holds`] over `count` random cases; the error names the minimal case.
pub fn split_property(split: SplitFn, count: u32, rng: Option<TestRng>) -> Result<(), String> {
    let config = Config {
        cases: count,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = match rng {
        Some(rng) => TestRunner::new_with_rng(config, rng),
        None => TestRunner::new(config),
    };
    let result = runner.run(&cases(), |(costs, p)| {
        split_holds(split, &costs, p).map_err(TestCaseError::fail)
    });
    match result {
        Ok(()) => Ok(()),
        Err(TestError::Fail(why, (costs, p))) => Err(format!(
            "property `the split is contiguous and optimal` FAILED\n  minimal failing \
             case: costs {costs:?}, p = {p}\n  {why}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// `p` lists, and the checker passes `schedule` (with unit costs); the bubble with unit costs is `(p - 1) / (m + p - 1)`. Returns the peak
/// activations per stage.
fn common(schedule: &Schedule, p: usize, m: usize) -> Result<Vec<usize>, String> {
    if schedule.len() != p {
        return Err(format!("{} stage lists for {p} stages", schedule.len()));
    }
    let report = check(schedule, m, UNIT)?;
    let (got, want) = (report.bubble(), bubble_formula(p, m));
    if got != want {
        return Err(format!(
            "bubble {got:.4} (the step takes {} units with forward = backward = 1), but \
             (p-1)/(m+p-1) = {want:.4} (it takes {}): the stages wait more than they must",
            report.makespan,
            2 * (m + p - 1)
        ));
    }
    Ok(report.stages.iter().map(|s| s.peak_in_flight).collect())
}

/// GPipe: correct, the formula's bubble, and all `m` activations held on every stage.
pub fn gpipe_holds(gpipe: Generator, p: usize, m: usize) -> Result<(), String> {
    let schedule = gpipe(p, m);
    let peaks = common(&schedule, p, m)?;
    if let Some(s) = peaks.iter().position(|&k| k != m) {
        return Err(format!(
            "stage {s} holds at most {} activations, but GPipe runs all {m} forwards \
             before any backward: {:?}",
            peaks[s], schedule[s]
        ));
    }
    Ok(())
}

/// 1F1B: correct, the formula's bubble, and at most `p - s` activations on stage `s`.
pub fn one_f_one_b_holds(one_f_one_b: Generator, p: usize, m: usize) -> Result<(), String> {
    let schedule = one_f_one_b(p, m);
    let peaks = common(&schedule, p, m)?;
    for (s, &k) in peaks.iter().enumerate() {
        if k > p - s {
            return Err(format!(
                "stage {s} holds {k} activations at once, more than p - s = {}: {:?}",
                p - s,
                schedule[s]
            ));
        }
    }
    Ok(())
}

/// Runs `holds` for every p in [`PS`] and m in [`MS`], smallest p first; the error names
/// the first case that fails.
pub fn every_case(
    name: &str,
    holds: impl Fn(usize, usize) -> Result<(), String>,
) -> Result<(), String> {
    for p in PS {
        for m in MS {
            if let Err(why) = holds(p, m) {
                return Err(format!(
                    "property `{name}` FAILED\n  first failing case: p = {p}, m = {m}\n  {why}"
                ));
            }
        }
    }
    Ok(())
}
