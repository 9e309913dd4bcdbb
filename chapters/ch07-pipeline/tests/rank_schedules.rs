//! Checks of ex 7.7 (interleaved 1F1B) and 7.8 (ZB-H1), without MPI: every p in 1..=8,
//! m in 1..=16 (and v in 1..=4) through the given checker (`ch07::rank_check`).
//!
//! Run: `make check CH=07` (your code) or `cargo test -p ch07-pipeline --features solution
//! --test main rank_schedules::`.

use ch07::greedy;
use ch07::plan::{by_rank, Pass, ScheduleKind};
use ch07::rank_check::{
    check_ranks, interleaved_bubble_over_useful, zero_bubble_h1_makespan, PassCosts,
};
use ch07::rank_schedules::{interleaved, zero_bubble_h1};

/// Runs `holds` for every case, the first failure named.
fn every(
    name: &str,
    cases: Vec<(usize, usize, usize)>,
    holds: impl Fn(usize, usize, usize) -> Result<(), String>,
) {
    for (p, v, m) in cases {
        if let Err(why) = holds(p, v, m) {
            toolkit::testing::fail(&format!(
                "property `{name}` FAILED\n  first failing case: p = {p}, v = {v}, m = {m}\n  {why}"
            ));
        }
    }
}

fn grid(vs: std::ops::RangeInclusive<usize>) -> Vec<(usize, usize, usize)> {
    let mut cases = vec![];
    for p in 1..=8 {
        for v in vs.clone() {
            cases.extend((1..=16).map(|m| (p, v, m)));
        }
    }
    cases
}

#[test]
fn ex7_7_interleaved_is_correct_and_its_bubble_is_p_minus_1_over_v_m() {
    let name = "interleaved 1F1B runs; bubble/useful (p-1)/(v*m) when p divides m, never \
                more idle than 1F1B; at most v*p - r chunks in flight on rank r";
    every(name, grid(1..=4), |p, v, m| {
        let plan = interleaved(p, v, m);
        if plan.len() != p {
            return Err(format!("{} task lists for {p} ranks", plan.len()));
        }
        let report = check_ranks(&plan, v, m, PassCosts::UNIT)?;
        let (got, want) = (
            report.bubble_over_useful(),
            interleaved_bubble_over_useful(p, v, m),
        );
        if m.is_multiple_of(p) && (got - want).abs() > 1e-12 {
            return Err(format!(
                "idle / busy = {got:.4} (step {} units), but (p-1)/(v*m) = {want:.4}",
                report.makespan
            ));
        }
        for (r, rank) in report.ranks.iter().enumerate() {
            // 1F1B on the same ranks waits 2(p-1) stage-units = 2v(p-1) chunk-units.
            if rank.idle > (2 * v * (p - 1)) as u64 {
                return Err(format!(
                    "rank {r} waits {} units, more than 1F1B's 2v(p-1) = {}",
                    rank.idle,
                    2 * v * (p - 1)
                ));
            }
            if rank.peak_in_flight > v * p - r {
                return Err(format!(
                    "rank {r} holds {} chunks' activations at once, more than its warm-up \
                     + 1 = v*p - r = {}",
                    rank.peak_in_flight,
                    v * p - r
                ));
            }
        }
        Ok(())
    });
}

#[test]
fn ex7_8_zero_bubble_h1_has_a_third_of_the_1f1b_bubble_and_its_memory() {
    let name = "ZB-H1 runs, splits every backward, holds at most p - r activations for B \
                and p in all on rank r, steps in 3m + p - 1 (m >= p) with F = B = W";
    let cases = grid(1..=1);
    every(name, cases, |p, _, m| {
        let plan = zero_bubble_h1(p, m);
        if plan.len() != p {
            return Err(format!("{} task lists for {p} ranks", plan.len()));
        }
        if let Some(t) = plan.iter().flatten().find(|t| t.pass == Pass::Backward) {
            return Err(format!("{t:?}: ZB-H1 splits every backward into B and W"));
        }
        let zb = check_ranks(&plan, 1, m, PassCosts::SPLIT_UNIT)?;
        let one_f_one_b = by_rank(&greedy::schedule(ScheduleKind::OneFOneB, p, m));
        let base = check_ranks(&one_f_one_b, 1, m, PassCosts::SPLIT_UNIT)?;
        for (r, rank) in zb.ranks.iter().enumerate() {
            if rank.peak_in_flight > p - r || rank.peak_held > p {
                return Err(format!(
                    "rank {r} holds {} activations before B and {} before W, 1F1B's bound is \
                     p - r = {} and p = {p}",
                    rank.peak_in_flight,
                    rank.peak_held,
                    p - r
                ));
            }
        }
        let idle = |r: &ch07::rank_check::PlanReport| r.ranks.iter().map(|k| k.idle).sum::<u64>();
        if zb.makespan > base.makespan {
            return Err(format!(
                "the step takes {} units, 1F1B's {}",
                zb.makespan, base.makespan
            ));
        }
        if m >= p && (zb.makespan != zero_bubble_h1_makespan(p, m) || 3 * idle(&zb) != idle(&base))
        {
            return Err(format!(
                "the step takes {} units with {} idle, where 3m + p - 1 = {} and a third \
                 of 1F1B's idle time ({}) are due",
                zb.makespan,
                idle(&zb),
                zero_bubble_h1_makespan(p, m),
                idle(&base)
            ));
        }
        Ok(())
    });
}
