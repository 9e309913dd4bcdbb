//! plan_bench's second part: what each pass costs on this machine, and 1F1B and ZB-H1 on
//! paper with those costs (`make bench CH=07`; see main.rs).

use super::{shape, BATCH, DEPTH, SEED};
use ch07::greedy;
use ch07::pass_costs::Passes;
use ch07::plan::{by_rank, ScheduleKind};
use ch07::rank_check::{check_ranks, PassCosts};
use ch07::rank_schedules::zero_bubble_h1;
use ch07::stage_model::StageModel;
use tabled::Tabled;
use tch::Device;

/// The median cost of each pass through a middle stage (half the blocks) on a micro-batch
/// of `BATCH / 8` rows, over 50 repetitions, on one LibTorch thread.
pub fn pass_costs() -> Passes {
    tch::set_num_threads(1);
    let shape = shape();
    let stage = StageModel::new(shape, 0..DEPTH / 2, false, false, SEED, Device::Cpu);
    let reps = toolkit::bench::sized(50, 1);
    ch07::pass_costs::measure(&stage, (BATCH / 8) as i64, reps)
}

/// 1F1B and ZB-H1 on paper with the measured pass costs (in units of 10 us).
pub fn zero_bubble_with(c: Passes) {
    let unit = |ms: f64| ((ms * 100.0).round() as u64).max(1);
    let costs = PassCosts {
        forward: unit(c.forward),
        backward: unit(c.whole),
        input_grad: unit(c.input),
        weight_grad: unit(c.weight),
    };
    #[derive(Tabled)]
    struct PassRow {
        #[tabled(rename = "F")]
        forward: String,
        #[tabled(rename = "whole backward")]
        whole: String,
        #[tabled(rename = "B (input only, graph kept)")]
        input: String,
        #[tabled(rename = "W (after B)")]
        weight: String,
        #[tabled(rename = "B + W / whole")]
        ratio: String,
    }
    let ms = |v: f64| format!("{v:.3}");
    let row = PassRow {
        forward: ms(c.forward),
        whole: ms(c.whole),
        input: ms(c.input),
        weight: ms(c.weight),
        ratio: format!("{:.2}", (c.input + c.weight) / c.whole),
    };
    println!(
        "pass costs, CPU ms per micro-batch of {} rows through {} blocks (one thread, median of 50):",
        BATCH / 8,
        DEPTH / 2
    );
    println!("{}", toolkit::report::table([row]));
    #[derive(Tabled)]
    struct OnPaper {
        p: usize,
        m: usize,
        #[tabled(rename = "1F1B step (ms)")]
        base: String,
        #[tabled(rename = "ZB-H1 step (ms)")]
        zb: String,
        #[tabled(rename = "ZB-H1 / 1F1B")]
        ratio: String,
        #[tabled(rename = "the same if W cost whole - B")]
        ideal: String,
    }
    let ideal_costs = PassCosts {
        weight_grad: unit((c.whole - c.input).max(0.0)),
        ..costs
    };
    let mut rows = vec![];
    for (p, m) in [(2, 8), (4, 8), (4, 16)] {
        let base = by_rank(&greedy::schedule(ScheduleKind::OneFOneB, p, m));
        let base = check_ranks(&base, 1, m, costs).expect("1F1B").makespan;
        let zb = check_ranks(&zero_bubble_h1(p, m), 1, m, costs)
            .expect("ZB-H1")
            .makespan;
        let ideal = check_ranks(&zero_bubble_h1(p, m), 1, m, ideal_costs).expect("ZB-H1");
        rows.push(OnPaper {
            p,
            m,
            base: format!("{:.2}", base as f64 / 100.0),
            zb: format!("{:.2}", zb as f64 / 100.0),
            ratio: format!("{:.2}", zb as f64 / base as f64),
            ideal: format!("{:.2}", ideal.makespan as f64 / base as f64),
        });
    }
    println!(
        "the step on paper with these costs (messages free):\n{}",
        toolkit::report::table(rows)
    );
}
