//! Lab: the MoE layer trained over the ranks (router and experts, Adam), once per value of
//! α, the balancing loss's weight, from the same start; the load per expert as it trains.
//!
//! Run: `make run CH=11 BIN=moe_train` (4 ranks; `SOLUTION=1` for the answers; `NP=3` for
//! another job; `ARGS='--alpha 0,0.1 --k 2'` for other settings, `ARGS=--help` for the
//! list). Expect per α, every `--every` steps: the squared-error loss, the balancing loss
//! `E·Σ f·P` (1 when even), the (token, choice) pairs each expert was chosen for (summed
//! over the ranks), the pairs dropped, and the busiest expert's share of the pairs. With
//! α = 0 the router is free to pile tokens on a few experts; with α > 0 the shares stay
//! near 1/E. After each run: its steps' wall time on rank 0 (from a barrier to the step's
//! end; making the batches is not counted) and tokens per second (all ranks').
//! `--plot FILE` writes the shares as an SVG. `--device cuda` keeps the router, the
//! experts, Adam's state and the tokens on each rank's GPU (the exchanges still go through
//! host memory). It needs ex 11.1 to 11.4; until they are written it says which is missing.

use ch11::train::{batch, held, step_on, Model};
use ch11::train_flags::{parse, TrainFlags, USAGE};
use mpi::traits::*;
use std::time::{Duration, Instant};
use toolkit::gate::unless_todo;
use toolkit::plot::{linear_svg, Series};
use toolkit::report::rank_count;
use trainer_kit::place::place;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{USAGE}");
    }
    let TrainFlags {
        mut runs,
        steps,
        every,
        plot,
        device,
    } = parse(&args).unwrap_or_else(|why| {
        eprintln!("moe_train: {why}");
        std::process::exit(2);
    });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let device = place(&world, device, None).device;
    for s in &mut runs {
        s.device = device;
    }
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let mut series = vec![];
    for s in &runs {
        let e = s.cfg.experts;
        say(&format!(
            "\nmoe_train: α = {}, {}, {e} experts, k = {}, capacity factor {}, {} tokens per \
             rank, hidden {}, Adam lr {}, skew {}, router scale {}, on {:?}",
            s.alpha,
            rank_count(p),
            s.cfg.k,
            s.cfg.capacity_factor,
            s.tokens,
            s.hidden,
            s.lr,
            s.skew,
            s.router_scale,
            device
        ));
        say("  step      loss  balance  chosen per expert (all ranks)           dropped  busiest");
        let mut model = Model::new(s, held(s, p, rank));
        let mut points = vec![];
        let mut busy = Duration::ZERO;
        for n in 0..steps {
            let (x, y) = batch(s, n, rank);
            world.barrier();
            let start = Instant::now();
            let r = match unless_todo(&world, || step_on(&world, s, &mut model, &x, &y)) {
                Ok(Ok(r)) => {
                    busy += start.elapsed();
                    r
                }
                Ok(Err(why)) => return say(&format!("moe_train: {why}")),
                Err(task) => toolkit::gate::stop_unfinished(&world, "moe_train", &task),
            };
            let pairs: u64 = r.chosen.iter().sum();
            let share = *r.chosen.iter().max().unwrap_or(&0) as f64 / pairs.max(1) as f64;
            points.push((n as f64, share));
            if n % every == 0 || n + 1 == steps {
                let w = r
                    .chosen
                    .iter()
                    .max()
                    .map_or(0, |m| m.to_string().len())
                    .max(3)
                    + 1;
                let chosen: Vec<String> = r.chosen.iter().map(|c| format!("{c:>w$}")).collect();
                say(&format!(
                    "  {n:>4}  {:>8.4}  {:>7.3}  {:<40}  {:>6}  {:>6.1}%",
                    r.loss,
                    r.balance,
                    chosen.join(""),
                    r.dropped.iter().sum::<u64>(),
                    100.0 * share
                ));
            }
        }
        let secs = busy.as_secs_f64();
        say(&format!(
            "  {steps} steps in {secs:.2} s (the batches made outside): {:.0} tokens/s (all ranks)",
            (steps * s.tokens * p) as f64 / secs
        ));
        series.push(Series {
            name: format!("α = {}", s.alpha),
            points,
        });
    }
    if let (Some(file), 0) = (plot, rank) {
        let even = 1.0 / runs[0].cfg.experts as f64;
        series.push(Series {
            name: format!("even: 1/E = {even:.3}"),
            points: vec![(0.0, even), (steps.saturating_sub(1) as f64, even)],
        });
        let svg = linear_svg(
            "The busiest expert's share of the (token, choice) pairs",
            "step",
            "share of the pairs",
            &series,
        );
        std::fs::write(&file, svg).unwrap_or_else(|e| panic!("cannot write {file}: {e}"));
        println!("\nmoe_train: wrote {file}");
    }
}
