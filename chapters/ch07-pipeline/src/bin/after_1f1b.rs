//! Lab: the schedules after 1F1B on paper, interleaved 1F1B and ZB-H1. No tensors: the
//! given checker (`rank_check`) runs your ex 7.7 and 7.8 plans by the chapter's rule.
//!
//! Run: `make run CH=07 BIN=after_1f1b SOLUTION=1` (without `SOLUTION=1`: your ex 7.7 and
//! 7.8). It starts under mpirun like every lab, but only rank 0 works and prints.
//! Expect: 1F1B and interleaved 1F1B (v = 2) on 4 ranks, 8 micro-batches, in chunk time
//! units (a stage of 1F1B is 2 chunks: 2 units per pass); a table of the bubble over useful
//! time, simulated against (p-1)/m and (p-1)/(v*m), with the activations held; then 1F1B
//! and ZB-H1 with F = B = W = 1 as timelines, and a table of step length, idle time and
//! memory against the zero-bubble paper's: 3m + p - 1 for m >= p, a third of 1F1B's idle
//! time, at most p micro-batches held.

use ch07::greedy;
use ch07::plan::{by_rank, RankPlan, ScheduleKind};
use ch07::rank_check::{
    check_ranks, interleaved_bubble_over_useful, zero_bubble_h1_makespan, PassCosts, PlanReport,
};
use ch07::rank_schedules::{interleaved, zero_bubble_h1};
use ch07::timeline::draw_ranks;
use mpi::traits::*;
use tabled::Tabled;
use toolkit::report::table;

#[derive(Tabled)]
struct Interleaved {
    p: usize,
    v: usize,
    m: usize,
    #[tabled(rename = "1F1B (p-1)/m")]
    base_formula: String,
    #[tabled(rename = "1F1B simulated")]
    base: String,
    #[tabled(rename = "interleaved (p-1)/(v*m)")]
    formula: String,
    #[tabled(rename = "interleaved simulated")]
    simulated: String,
    #[tabled(rename = "held, rank 0 (stages' worth)")]
    held: String,
}

#[derive(Tabled)]
struct ZeroBubble {
    p: usize,
    m: usize,
    #[tabled(rename = "1F1B step")]
    base_step: u64,
    #[tabled(rename = "ZB-H1 step")]
    step: u64,
    #[tabled(rename = "3m+p-1")]
    formula: String,
    #[tabled(rename = "idle ZB-H1 / 1F1B")]
    idle: String,
    #[tabled(rename = "held before B (1F1B, ZB-H1)")]
    before_b: String,
    #[tabled(rename = "held before W, ZB-H1")]
    before_w: usize,
}

fn run(plan: &RankPlan, v: usize, m: usize, costs: PassCosts) -> PlanReport {
    check_ranks(plan, v, m, costs).unwrap_or_else(|why| panic!("{why}"))
}

fn one_f_one_b(p: usize, m: usize) -> RankPlan {
    by_rank(&greedy::schedule(ScheduleKind::OneFOneB, p, m))
}

fn main() {
    let universe = toolkit::init();
    if universe.world().rank() != 0 {
        return;
    }
    // A stage of 1F1B holds v chunks: each of its passes takes v chunk units.
    let whole_stage = |v: u64| PassCosts {
        forward: v,
        backward: v,
        ..PassCosts::UNIT
    };
    let (p, v, m) = (4, 2, 8);
    let base = run(&one_f_one_b(p, m), 1, m, whole_stage(v as u64));
    println!(
        "1F1B, p = {p}, m = {m}, a stage = {v} chunks: {} units",
        base.makespan
    );
    println!("{}", draw_ranks(&base, whole_stage(v as u64), 3));
    let inter = run(&interleaved(p, v, m), v, m, PassCosts::UNIT);
    println!(
        "interleaved 1F1B, p = {p}, v = {v}, m = {m} (lower case: chunk 1): {} units",
        inter.makespan
    );
    println!("{}", draw_ranks(&inter, PassCosts::UNIT, 3));

    let mut rows = vec![];
    for (p, v, m) in [
        (2, 2, 4),
        (4, 2, 4),
        (4, 2, 8),
        (4, 4, 8),
        (4, 2, 6),
        (8, 2, 16),
    ] {
        let base = run(&one_f_one_b(p, m), 1, m, whole_stage(v as u64));
        let r = run(&interleaved(p, v, m), v, m, PassCosts::UNIT);
        rows.push(Interleaved {
            p,
            v,
            m,
            base_formula: format!("{:.3}", (p - 1) as f64 / m as f64),
            base: format!("{:.3}", base.bubble_over_useful()),
            formula: match m % p {
                0 => format!("{:.3}", interleaved_bubble_over_useful(p, v, m)),
                _ => "(p does not divide m)".into(),
            },
            simulated: format!("{:.3}", r.bubble_over_useful()),
            held: format!("{:.1}", r.ranks[0].peak_in_flight as f64 / v as f64),
        });
    }
    println!(
        "bubble over useful time (idle / busy), simulated; a chunk's F = B = 1:\n{}\n",
        table(rows)
    );

    let (p, m) = (4, 8);
    let base = run(&one_f_one_b(p, m), 1, m, PassCosts::SPLIT_UNIT);
    println!(
        "1F1B, p = {p}, m = {m}, F = 1, B + W = 2: {} units",
        base.makespan
    );
    println!("{}", draw_ranks(&base, PassCosts::SPLIT_UNIT, 3));
    let zb = run(&zero_bubble_h1(p, m), 1, m, PassCosts::SPLIT_UNIT);
    println!(
        "ZB-H1, p = {p}, m = {m}, F = B = W = 1: {} units",
        zb.makespan
    );
    println!("{}", draw_ranks(&zb, PassCosts::SPLIT_UNIT, 3));

    let mut rows = vec![];
    for (p, m) in [(2, 4), (4, 4), (4, 8), (4, 16), (8, 8), (8, 32), (4, 2)] {
        let base = run(&one_f_one_b(p, m), 1, m, PassCosts::SPLIT_UNIT);
        let zb = run(&zero_bubble_h1(p, m), 1, m, PassCosts::SPLIT_UNIT);
        let idle = |r: &PlanReport| r.ranks.iter().map(|k| k.idle).sum::<u64>();
        let most = |r: &PlanReport, f: fn(&ch07::rank_check::RankReport) -> usize| {
            r.ranks.iter().map(f).max().unwrap_or(0)
        };
        rows.push(ZeroBubble {
            p,
            m,
            base_step: base.makespan,
            step: zb.makespan,
            formula: match m >= p {
                true => zero_bubble_h1_makespan(p, m).to_string(),
                false => "(m < p)".into(),
            },
            idle: format!("{} / {}", idle(&zb), idle(&base)),
            before_b: format!(
                "{}, {}",
                most(&base, |k| k.peak_in_flight),
                most(&zb, |k| k.peak_in_flight)
            ),
            before_w: most(&zb, |k| k.peak_held),
        });
    }
    println!(
        "ZB-H1 against 1F1B, F = B = W = 1 (all ranks' idle units; most held on a rank):\n{}",
        table(rows)
    );
}
