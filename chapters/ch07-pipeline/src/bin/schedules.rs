//! Lab: pipeline schedules on paper. No tensors: the given checker runs your schedules
//! by the chapter's communication rule, one time unit per forward and per backward.
//!
//! Run: `make run CH=07 BIN=schedules SOLUTION=1` (`make run CH=07 BIN=schedules` runs
//! your ex 7.1, 7.3 and 7.4). It starts under mpirun like every lab, but only rank 0
//! works and prints.
//! Expect: one micro-batch at a time through 4 stages, then GPipe and 1F1B for p = 4 stages and m = 8 micro-batches as timelines (`F3`:
//! micro-batch 3's forward, `.`: the stage waits); the activations each stage holds at
//! most (GPipe m on every stage, 1F1B p - s on stage s); the bubble table, simulated
//! against (p-1)/(m+p-1), the same for both schedules; and a model of 12 blocks with
//! uneven costs cut into 4 stages by layer count and by your ex 7.1.

use ch07::plan::{Action, ScheduleKind};
use ch07::schedule_check::{bubble_formula, check, Costs, Report, UNIT};
use ch07::schedules::build;
use ch07::stages::split_stages;
use ch07::timeline::draw;
use mpi::traits::*;
use std::ops::Range;
use tabled::Tabled;
use toolkit::report::table;

#[derive(Tabled)]
struct Bubble {
    p: usize,
    m: usize,
    #[tabled(rename = "(p-1)/(m+p-1)")]
    formula: String,
    #[tabled(rename = "GPipe")]
    gpipe: String,
    #[tabled(rename = "1F1B")]
    one_f_one_b: String,
    #[tabled(rename = "1F1B, backward = 2 forward")]
    heavy: String,
}

#[derive(Tabled)]
struct Held {
    stage: usize,
    #[tabled(rename = "GPipe")]
    gpipe: usize,
    #[tabled(rename = "1F1B")]
    one_f_one_b: usize,
    #[tabled(rename = "p - s")]
    bound: usize,
}

#[derive(Tabled)]
struct Split {
    split: &'static str,
    stages: String,
    #[tabled(rename = "stage costs")]
    costs: String,
    bottleneck: f64,
}

fn run(kind: ScheduleKind, p: usize, m: usize, costs: Costs) -> Report {
    check(&build(kind, p, m), m, costs).unwrap_or_else(|why| panic!("{kind:?}: {why}"))
}

fn main() {
    let universe = toolkit::init();
    if universe.world().rank() != 0 {
        return;
    }
    // One micro-batch at a time through the whole pipeline, for comparison.
    let naive: Vec<Vec<Action>> = vec![
        (0..2)
            .flat_map(|mb| [Action::Forward(mb), Action::Backward(mb)])
            .collect();
        4
    ];
    let r = check(&naive, 2, UNIT).unwrap_or_else(|why| panic!("naive: {why}"));
    println!(
        "one micro-batch at a time, p = 4, m = 2: {} time units",
        r.makespan
    );
    println!("{}", draw(&r, UNIT, 4));
    let (p, m) = (4, 8);
    let reports = [ScheduleKind::GPipe, ScheduleKind::OneFOneB].map(|kind| run(kind, p, m, UNIT));
    for (kind, r) in [ScheduleKind::GPipe, ScheduleKind::OneFOneB]
        .iter()
        .zip(&reports)
    {
        println!("{kind:?}, p = {p}, m = {m}: {} time units", r.makespan);
        println!("{}", draw(r, UNIT, 4));
    }
    let held = (0..p).map(|s| Held {
        stage: s,
        gpipe: reports[0].stages[s].peak_in_flight,
        one_f_one_b: reports[1].stages[s].peak_in_flight,
        bound: p - s,
    });
    println!(
        "activations held at most, p = {p}, m = {m}:\n{}\n",
        table(held)
    );

    let heavy = Costs {
        forward: 1,
        backward: 2,
    };
    let mut rows = vec![];
    for (p, m) in [
        (2, 1),
        (2, 8),
        (4, 1),
        (4, 4),
        (4, 8),
        (4, 32),
        (8, 8),
        (8, 64),
    ] {
        let sim = |kind, costs| format!("{:.3}", run(kind, p, m, costs).bubble());
        rows.push(Bubble {
            p,
            m,
            formula: format!("{:.3}", bubble_formula(p, m)),
            gpipe: sim(ScheduleKind::GPipe, UNIT),
            one_f_one_b: sim(ScheduleKind::OneFOneB, UNIT),
            heavy: sim(ScheduleKind::OneFOneB, heavy),
        });
    }
    println!(
        "bubble (idle fraction of the step), simulated:\n{}\n",
        table(rows)
    );

    // ANCHOR: uneven
    // 12 blocks; the first carries the embedding, the last the head and the loss.
    let costs = [3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0];
    let stages = 4;
    let by_count: Vec<Range<usize>> = (0..stages)
        .map(|s| toolkit::split::block_range(costs.len(), stages, s))
        .collect();
    let balanced = split_stages(&costs, stages).unwrap_or_else(|why| panic!("{why}"));
    // ANCHOR_END: uneven
    let row = |split, ranges: Vec<Range<usize>>| {
        let sums: Vec<f64> = ranges
            .iter()
            .map(|r| costs[r.clone()].iter().sum())
            .collect();
        Split {
            split,
            stages: format!("{ranges:?}"),
            costs: format!("{sums:?}"),
            bottleneck: sums.iter().copied().fold(0.0, f64::max),
        }
    };
    println!("layer costs {costs:?} in {stages} stages:");
    let splits = [
        row("3 layers each", by_count),
        row("split_stages", balanced),
    ];
    println!("{}", table(splits));
}
