//! Lab: the elastic supervisor (`ch15::supervisor`, with your ex 15.3). It launches a
//! trainer with `--checkpoint`, and when a rank dies it launches it again on the ranks
//! still there, from the last checkpoint (the trainer reshards it), until the training
//! ends or ex 15.3 gives up. With `--verify`, the last launch is compared with a launch
//! from a copy of the same checkpoint that runs without a failure: the same losses and
//! parameters, bit for bit.
//!
//! Run: `make run CH=15 BIN=supervise SOLUTION=1` (the lab's own run: chapter 8's trainer
//! on NP ranks, default 4, its last rank killed at step 12, checked with `--verify`), or
//! any trainer: `make run CH=08 SOLUTION=1 ELASTIC=1 ARGS='--model mlp --checkpoint
//! target/workbook/elastic'`, or `supervise [--np N] [--restarts R] [--verify] -- PROGRAM
//! FLAGS...`. With `--zero` (and no PROGRAM), the program is this one, which runs as
//! chapter 8's `zero` (`ch08::zero_lab`) in its children: the lab needs no second binary.
//! A planted failure (`CH08_KILL_RANK=3 CH08_KILL_AT_STEP=12` for chapter 8's trainer)
//! strikes once.

use ch15::supervisor::{supervise, Plan};

/// In a child's environment: this program is chapter 8's `zero` trainer.
const AS_ZERO: &str = "CH15_SUPERVISE_AS_ZERO";

fn main() {
    if std::env::var_os(AS_ZERO).is_some() {
        ch08::zero_lab::main()
    }
    // A stub stops the lab with its one line, before any launch.
    toolkit::gate::stop_if_todo("supervise", || ch15::elastic::restart_size(2, 4));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (own, mut job) = match args.iter().position(|a| a == "--") {
        Some(split) => (args[..split].to_vec(), args[split + 1..].to_vec()),
        None if args.is_empty() => (vec!["--verify".into(), "--zero".into()], demo()),
        None => {
            eprintln!("supervise: usage: supervise [--np N] [--restarts R] [--verify] [--zero] -- [PROGRAM] FLAGS...");
            std::process::exit(2);
        }
    };
    let value = |name: &str, default: &str| {
        let i = own.iter().position(|a| a == name);
        i.and_then(|i| own.get(i + 1))
            .map_or(default.to_string(), String::clone)
    };
    let np = std::env::var("NP").unwrap_or_else(|_| "4".into());
    let (Ok(ranks), Ok(restarts)) = (value("--np", &np).parse(), value("--restarts", "3").parse())
    else {
        eprintln!("supervise: --np and --restarts take a number");
        std::process::exit(2);
    };
    if own.iter().any(|a| a == "--zero") {
        // The trainer is this program, run as chapter 8's `zero` by its children.
        std::env::set_var(AS_ZERO, "1");
        let me = std::env::current_exe().expect("own path");
        job.insert(0, me.display().to_string());
    }
    let Some((program, flags)) = job.split_first() else {
        eprintln!("supervise: no program after --");
        std::process::exit(2);
    };
    let verify = own.iter().any(|a| a == "--verify");
    let plan = Plan {
        program: program.clone(),
        args: flags.to_vec(),
        ranks,
        restarts,
        verify,
    };
    match supervise(&plan) {
        Ok(launches) => match launches.len() {
            1 => println!("supervise: done after 1 launch"),
            n => println!("supervise: done after {n} launches"),
        },
        Err(why) => {
            eprintln!("supervise: {why}");
            std::process::exit(1);
        }
    }
}

/// With no flags, the lab's own run: chapter 8's trainer (this program, `--zero`) at a
/// global batch of 48 for 20 steps, a checkpoint every 5, the last rank of the first launch
/// killed at step 12 (unless `CH08_KILL_RANK` and `CH08_KILL_AT_STEP` say otherwise),
/// checked with `--verify`.
fn demo() -> Vec<String> {
    let np: usize = std::env::var("NP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    // The last rank of the first launch: on the most ranks that split the batch of 48.
    let first = ch15::elastic::restart_size(np, 48).unwrap_or(np);
    if std::env::var("CH08_KILL_RANK").is_err() && first > 1 {
        std::env::set_var("CH08_KILL_RANK", (first - 1).to_string());
        std::env::set_var("CH08_KILL_AT_STEP", "12");
    }
    let dir = toolkit::report::out_dir().join("ch15-elastic");
    let _ = std::fs::remove_dir_all(&dir);
    let flags =
        "--model mlp --batch 48 --max-steps 20 --every 5 --collectives mpi --quiet --losses";
    let mut job: Vec<String> = flags.split(' ').map(String::from).collect();
    job.extend(["--checkpoint".to_string(), dir.display().to_string()]);
    job
}
