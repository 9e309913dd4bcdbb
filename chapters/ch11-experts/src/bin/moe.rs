//! Lab: a Mixture-of-Experts layer whose experts are split over the ranks, a few forwards
//! on a generated task, with the load, the drops and the bytes of each exchange.
//!
//! Run: `make run CH=11` (4 ranks; `SOLUTION=1` for the answers; `NP=3` for another job;
//! `ARGS='--experts 5 --k 1'` for other settings, `ARGS=--help` for the list). The tokens
//! are drawn around as many clusters as experts, each best served by one expert; step `s`
//! draws cluster `i` with a weight `1/(i+1)^s`, so step 0 is balanced and each later step
//! piles more tokens on the first experts. Expect per step: the tokens each expert kept
//! and dropped (summed over the ranks), the rows and bytes each rank sent to the other
//! ranks in the dispatch (counted from its send counts) next to the balanced formula
//! `T·k·hidden·4·(P-1)/P`, and the largest difference from the same layer in one process.
//! It needs ex 11.1 and 11.2; until they are written it says which is missing.

use ch11::config::Layout;
use ch11::experts::Experts;
use ch11::flags::{parse, Flags, USAGE};
use ch11::layer::{forward, one_process, Forward};
use ch11::task::Task;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::gate::unless_todo;
use toolkit::report::rank_count;

/// `mine` summed over the ranks, on every rank.
fn summed(world: &SimpleCommunicator, mine: &[usize]) -> Vec<u64> {
    let mine: Vec<u64> = mine.iter().map(|&n| n as u64).collect();
    let mut all = vec![0u64; mine.len()];
    world.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    all
}

/// One number per rank, on every rank.
fn per_rank(world: &SimpleCommunicator, mine: u64) -> Vec<u64> {
    let mut all = vec![0u64; world.size() as usize];
    world.all_gather_into(&mine, &mut all[..]);
    all
}

fn row(name: &str, values: &[u64]) -> String {
    let cells: Vec<String> = values.iter().map(|v| format!("{v:>6}")).collect();
    format!("  {name:<9}{}", cells.join(""))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{USAGE}");
    }
    let Flags {
        tokens,
        cfg,
        hidden,
        steps,
        seed,
    } = parse(&args).unwrap_or_else(|why| {
        eprintln!("moe: {why}");
        std::process::exit(2);
    });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let layout = Layout {
        experts: cfg.experts,
        ranks: p,
    };
    let held: Vec<String> = (0..p).map(|r| format!("{:?}", layout.local(r))).collect();
    say(&format!(
        "moe: {}, {} experts held as {}, k = {}, capacity factor {}, {tokens} tokens per \
         rank, hidden {hidden}",
        rank_count(p),
        cfg.experts,
        held.join(" "),
        cfg.k,
        cfg.capacity_factor
    ));
    let task = Task::new(cfg.experts, hidden, seed);
    let experts = Experts::linear(cfg.experts, hidden, seed + 1);
    let row_bytes = (hidden * 4) as u64;
    let formula = (tokens * cfg.k) as f64 * row_bytes as f64 * (p - 1) as f64 / p as f64;
    for step in 0..steps {
        let batch = task.batch(
            tokens,
            step as f64,
            seed ^ ((step * 1000 + rank) as u64) << 8,
        );
        let run = || forward(&world, &cfg, &experts, &batch.logits, &batch.x);
        let Forward {
            out,
            routing,
            dispatched: d,
        } = match unless_todo(&world, run) {
            Ok(Ok(fwd)) => fwd,
            Ok(Err(why)) => return say(&format!("moe: {why}")),
            Err(task) => toolkit::gate::stop_unfinished(&world, "moe", &task),
        };
        let reference = one_process(&cfg, &experts, &batch.logits, &batch.x).expect("checked");
        let diff = out
            .iter()
            .zip(&reference)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs() as f64));
        let mut worst = 0.0f64;
        world.all_reduce_into(&diff, &mut worst, SystemOperation::max());
        let rows_out = (d.send_counts.iter().sum::<usize>() - d.send_counts[rank]) as u64;
        let rows_back = (d.recv_counts.iter().sum::<usize>() - d.recv_counts[rank]) as u64;
        let (sent, back) = (per_rank(&world, rows_out), per_rank(&world, rows_back));
        let kept_mine = per_rank(&world, d.send_counts.iter().sum::<usize>() as u64);
        let even: Vec<u64> = kept_mine
            .iter()
            .map(|n| n * row_bytes * (p as u64 - 1) / p as u64)
            .collect();
        let (load, dropped) = (
            summed(&world, &routing.load),
            summed(&world, &routing.dropped),
        );
        say(&format!(
            "\nstep {step}: cluster i drawn with weight 1/(i+1)^{step}; C = {} per expert per rank",
            routing.capacity
        ));
        say(&row("expert", &(0..cfg.experts as u64).collect::<Vec<_>>()));
        say(&row("kept", &load));
        say(&row("dropped", &dropped));
        let kept_all: u64 = load.iter().sum();
        let asked = (tokens * cfg.k * p) as u64;
        say(&format!(
            "  {kept_all} of {asked} (token, choice) pairs kept, {} dropped",
            asked - kept_all
        ));
        say("  dispatch: what each rank sent to the other ranks (its own rows stay)");
        say(&row("rank", &(0..p as u64).collect::<Vec<_>>()));
        say(&row("rows", &sent));
        let bytes: Vec<u64> = sent.iter().map(|r| r * row_bytes).collect();
        say(&row("bytes", &bytes));
        say(&row("if even", &even));
        say(&format!(
            "  if even: the rank's kept rows spread evenly, kept·hidden·4·(P-1)/P; balanced, \
             nothing dropped: T·k·hidden·4·(P-1)/P = {tokens}·{}·{hidden}·4·{}/{p} = {formula:.0}",
            cfg.k,
            p - 1
        ));
        say(&format!(
            "  combine: the rows go back the way they came: {back:?} rows"
        ));
        say(&format!(
            "  counts first: {} bytes per rank (P · {} counts of 8 bytes)",
            p * layout.max_local() * 8,
            layout.max_local()
        ));
        say(&format!("  largest difference from one process: {worst}"));
    }
}
