//! Lab: local SGD on the `compress` lab's least-squares problem. Each rank takes `H`
//! plain SGD steps on its own rows, then the ranks average their parameters (ex 12.5);
//! per `H` in `--every` (1, 2, 4, 8): the averages, the bytes per step, the time per step,
//! the loss after the run, and the steps and the time to a target loss; first with every
//! rank at full speed, then with one straggler late to each collective (chapter 10's
//! `WORKBOOK_STRAGGLER`; when the setting is unset the lab slows the last rank by 2 ms
//! itself, and says so), then with the same rank slower by the same delay in every
//! step's compute (a sleep), which local SGD cannot hide.
//!
//! Run: `make run CH=12 BIN=local_sgd` (4 ranks; `SOLUTION=1` for the answers; `NP=3` for
//! another job; `ARGS='--every 1,16 --steps 960'`, `ARGS=--help` for the flags). A bad
//! flag (`--every 0`) is refused in one line before MPI starts. It needs ex 12.5; until
//! it is written it says so.

use ch12::local_flags::{help, parse, LocalFlags};
use ch12::local_run::{train_local_slowed, LocalRun};
use mpi::traits::*;
use toolkit::gate::unless_todo;
use toolkit::stragglers::{self, rules, SETTING};

/// The lab's own straggler when the setting is unset: the last rank, 2 ms per collective.
fn lab_rule(p: i32) -> String {
    match p {
        ..=1 => String::new(),
        _ => format!("{}:delay=2ms", p - 1),
    }
}

/// The straggler column's width.
const WHO: usize = 12;

/// One row of the table.
fn row(h: usize, who: &str, run: &LocalRun, f: &LocalFlags) -> String {
    let (steps, ms) = match run.reaches(f.target) {
        Some(at) => (at.step.to_string(), format!("{:.1}", at.secs * 1e3)),
        None => ("not reached".into(), "-".into()),
    };
    format!(
        "{h:>3}  {who:<WHO$}{:>6}{:>12}{:>10.1}{:>12.3e}{:>13}{:>11}",
        run.syncs,
        run.bytes_per_step,
        run.secs_per_step * 1e6,
        run.last_loss(),
        steps,
        ms
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{}", help());
    }
    let f = parse(&args).unwrap_or_else(|why| {
        eprintln!("local_sgd: {why}");
        std::process::exit(2);
    });
    stragglers::default_rule(lab_rule);
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let problem = f.problem.problem(rank, p);
    say(&format!(
        "local_sgd: {p} rank(s), least squares, {} rows of {} features (seed {}), {} steps, \
         lr {}, target loss {:.1e}",
        f.problem.rows, f.problem.dim, f.problem.seed, f.steps, f.problem.lr, f.target
    ));
    let text = std::env::var(SETTING).unwrap_or_else(|_| lab_rule(p as i32));
    let source = match stragglers::from_setting() {
        true => format!("from {SETTING}"),
        false => format!("the lab's own; set {SETTING} to choose another"),
    };
    let slow = rules();
    match slow.is_empty() {
        true => say("straggler: none (1 rank, or an empty rule)"),
        false => say(&format!(
            "straggler: {text:?} ({source}); rows \"collective\": late to each collective, \
             rows \"every step\": the same delay in each step's compute (a sleep)"
        )),
    }
    say(&toolkit::report::oversubscription_note(p));
    say(&format!(
        "{:>3}  {:<WHO$}{:>6}{:>12}{:>10}{:>12}{:>13}{:>11}",
        "H",
        "straggler",
        "syncs",
        "bytes/step",
        "µs/step",
        format!("loss@{}", f.steps),
        "steps to tgt",
        "ms to tgt"
    ));
    // The same rank and delay, per step instead of per collective.
    let per_step = slow.first().map(|r| (r.rank as usize, r.delay));
    let cases = [
        ("none", vec![], None),
        ("collective", slow.clone(), None),
        ("every step", vec![], per_step),
    ];
    for (who, rules, per_step) in cases
        .iter()
        .filter(|(who, _, _)| *who == "none" || !slow.is_empty())
    {
        for &h in &f.every {
            stragglers::set(rules.clone());
            let run = unless_todo(&world, || {
                train_local_slowed(&world, &problem, h, f.steps, f.problem.lr, *per_step)
            });
            stragglers::set(vec![]);
            match run {
                Err(task) => toolkit::gate::stop_unfinished(&world, "local_sgd", &task),
                Ok(Err(why)) => return say(&format!("local_sgd: {why}")),
                Ok(Ok(run)) => say(&row(h, who, &run, &f)),
            }
        }
    }
    say("bytes: what one rank contributes per step (the parameters, once per H steps)");
    say("loss and time to target: read at the averages (the slowest rank's clock)");
}
