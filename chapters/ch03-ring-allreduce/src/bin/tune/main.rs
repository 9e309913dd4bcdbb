//! Benchmark: a tuner for MPI_Allreduce, the way a library is tuned. For each rank count
//! it times MPI_Allreduce under the library's own choice (algorithm 0) and forced to each
//! of its algorithms (Open MPI: 1-6 by `coll_tuned_allreduce_algorithm`; MPICH: 1-4 by
//! `MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM`), one launch each, at every size from 8 B; picks
//! the fastest per size; writes the choice as the library's decision table (Open MPI's
//! rules file `target/workbook/ch03-allreduce-rules.txt`, [`ch03::rules`]; MPICH's
//! selection file `ch03-allreduce-mpich.json`, [`ch03::mpich_rules`]); then, in as many
//! rounds again, runs MPI_Allreduce with that file (our algorithms beside it in the same
//! launch) and forced to each algorithm once more, and prints those side by side: the
//! table is judged on other launches than the ones it was chosen from. Each figure is the
//! best of `--rounds` launches (each the median of its runs of the slowest rank).
//!
//! Run: `make bench CH=03` (with the sweep), or `cargo run --release -p
//! ch03-ring-allreduce --features solution --bin tune -- [--ranks 2,4] [--max-bytes N]
//! [--rounds N]` (defaults: 2 and 4 ranks, 8 MiB, 3 rounds; under MPICH only the rank
//! counts that fit in the cores: its waiting ranks spin); `... --bin tune -- --check FILE`
//! reads a table (`.json`: MPICH's) and prints it, or says in one line why it cannot.
//! Under MPICH: `MPICC=mpicc.mpich MPIRUN=mpirun.mpich CARGO_TARGET_DIR=target/mpich` in
//! front. About four minutes with the defaults.

mod library;
mod table;

use ch03::cost::median_of_runs;
use ch03::ops::Op;
use ch03::{doubling, rabenseifner, reference};
use library::Library;
use mpi::traits::*;
use std::collections::BTreeMap;
use toolkit::bench::{arg, sized};
use toolkit::launch::{flavor, Job};

/// One launch's times: (label, bytes) -> seconds.
type Times = BTreeMap<(String, u64), f64>;

/// The previous size's choice stays while it is within this factor of the fastest.
const KEEP: f64 = 1.05;

/// Our algorithms timed beside MPI_Allreduce with the rules file.
const OURS: [&str; 3] = ["ring", "Raben.", "rec.dbl"];

/// Under mpirun: times MPI_Allreduce (f32 sum) at 8 B, 32 B, ... up to `--max-bytes`,
/// and ours too with `--ours`; rank 0 prints `t <label> <bytes> <seconds>` lines.
fn worker() {
    let universe = toolkit::init();
    let w = universe.world();
    let max: u64 = arg("--max-bytes", "0").parse().expect("--max-bytes N");
    let ours = std::env::args().any(|a| a == "--ours");
    let mut bytes = 8;
    while bytes <= max {
        let xs: Vec<f32> = (0..bytes / 4).map(|i| (i % 97) as f32).collect();
        let reps = sized(((64 << 20) / bytes as usize).clamp(9, 200), 2);
        let time = |label: &str, run: &dyn Fn() -> Vec<f32>| {
            run(); // warm-up
            let t = median_of_runs(&w, reps, || drop(run()));
            if w.rank() == 0 {
                println!("t {label} {bytes} {t:e}");
            }
        };
        time("mpi", &|| reference::allreduce(&w, &xs, Op::Sum));
        if ours {
            time(OURS[0], &|| ch03::allreduce_ring(&w, &xs, Op::Sum));
            time(OURS[1], &|| {
                rabenseifner::allreduce_rabenseifner(&w, &xs, Op::Sum)
            });
            time(OURS[2], &|| {
                doubling::allreduce_recursive_doubling(&w, &xs, Op::Sum)
            });
        }
        bytes *= 4;
    }
}

/// One launch of the worker at `p` ranks with `env`; its times.
fn launch(p: u32, env: &[(&str, String)], max: u64, ours: bool) -> Times {
    let exe = std::env::current_exe().expect("own path");
    let mut job = Job::new(exe.to_string_lossy()).ranks(p);
    job = job.args(["--worker", "--max-bytes", &max.to_string()]);
    if ours {
        job = job.args(["--ours"]);
    }
    for (k, v) in env {
        job = job.env(k, v.clone());
    }
    let out = job
        .run()
        .unwrap_or_else(|e| panic!("tune: cannot launch: {e}"));
    assert!(
        out.success(),
        "tune: a launch at {p} ranks failed:\n{}",
        out.text()
    );
    let mut times = Times::new();
    for line in out.rank_lines(0) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let ["t", label, bytes, secs] = f[..] {
            times.insert(
                (label.into(), bytes.parse().unwrap()),
                secs.parse().unwrap(),
            );
        }
    }
    times
}

/// An environment for a launch: (variable, value) pairs.
type Env = Vec<(&'static str, String)>;

/// `rounds` rounds at `p` ranks: per round one launch per algorithm (forced; 0 is the
/// library's own choice), then with `table` (the environment that reads a decision
/// table) one launch with it, ours timed beside it. The forced launches per algorithm, and
/// the table's.
fn rounds_of(
    lib: &Library,
    p: u32,
    rounds: usize,
    max: u64,
    table: Option<&Env>,
) -> (BTreeMap<usize, Vec<Times>>, Vec<Times>) {
    let (mut forced, mut tuned) = (BTreeMap::<usize, Vec<Times>>::new(), Vec::new());
    for _ in 0..rounds {
        for k in 0..lib.algorithms.len() {
            let t = launch(p, &lib.forced(k), max, false);
            forced.entry(k).or_default().push(t);
        }
        if let Some(env) = table {
            tuned.push(launch(p, env, max, true));
        }
    }
    (forced, tuned)
}

/// The best (smallest) of each figure over `runs`.
fn best_of(runs: Vec<Times>) -> Times {
    let mut best = Times::new();
    for (key, t) in runs.into_iter().flatten() {
        let e = best.entry(key).or_insert(t);
        *e = e.min(t);
    }
    best
}

/// The algorithm (1 on) per size: the fastest, unless the previous size's choice is within
/// [`KEEP`] of it there. A tie decided by the noise would flip the table back and forth
/// between sizes; keeping the choice makes fewer rules, each measured over more sizes.
fn choose(per_k: &BTreeMap<usize, Times>, sizes: &[u64]) -> Vec<(u64, u64)> {
    let mut previous: Option<usize> = None;
    sizes
        .iter()
        .map(|&b| {
            let t = |k: usize| per_k[&k][&("mpi".to_string(), b)];
            let fastest = (1..per_k.len())
                .min_by(|&x, &y| t(x).total_cmp(&t(y)))
                .unwrap();
            let k = previous
                .filter(|&k| t(k) <= KEEP * t(fastest))
                .unwrap_or(fastest);
            previous = Some(k);
            (b, k as u64)
        })
        .collect()
}

/// Per algorithm and size, the slowest of its rounds over the fastest: how much one launch
/// of the same algorithm differs from the next.
fn spread_of(runs: &BTreeMap<usize, Vec<Times>>) -> BTreeMap<(usize, u64), f64> {
    let mut spread = BTreeMap::new();
    for (&k, rounds) in runs {
        for ((label, b), _) in rounds[0].iter().filter(|(key, _)| key.0 == "mpi") {
            let t = rounds.iter().map(|r| r[&(label.clone(), *b)]);
            let (lo, hi) = t.fold((f64::MAX, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
            spread.insert((k, *b), hi / lo);
        }
    }
    spread
}

fn main() {
    if toolkit::launch::under_mpirun() {
        return worker();
    }
    if let Some(file) = std::env::args().skip_while(|a| a != "--check").nth(1) {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let lib = Library::of_file(&file);
        match lib.parse(&text) {
            Ok(rules) => return print!("{}", lib.write(&rules)),
            Err(why) => {
                eprintln!("tune: {file}: {why}");
                std::process::exit(2);
            }
        }
    }
    let Some(lib) = flavor().ok().and_then(Library::of) else {
        println!("tune: tunes Open MPI or MPICH through their own mpirun; this launcher is neither (set MPIRUN)");
        return;
    };
    toolkit::bench::unbind_ranks();
    let ranks: Vec<u32> = arg("--ranks", sized("2,4", "2"))
        .split(',')
        .map(|r| r.parse().expect("--ranks 2,4"))
        .collect();
    let cores = toolkit::cores::machine_cores() as u32;
    let ranks: Vec<u32> = if lib.name == "MPICH" && !std::env::args().any(|a| a == "--ranks") {
        let (fit, left): (Vec<u32>, Vec<u32>) = ranks.into_iter().partition(|&p| p <= cores);
        if !left.is_empty() {
            println!("# MPICH: {left:?} ranks left out: more ranks than the {cores} cores, and MPICH's waiting ranks spin, so the times would be the scheduler's (--ranks to run them anyway)");
        }
        fit
    } else {
        ranks
    };
    let max: u64 = arg("--max-bytes", &sized(8u64 << 20, 32 << 10).to_string())
        .parse()
        .expect("--max-bytes N");
    let rounds: usize = arg("--rounds", sized("3", "1"))
        .parse()
        .expect("--rounds N");
    // Choose on one set of rounds; check the table on another, forced beside it.
    let mut rules = ch03::rules::AllreduceRules::default();
    for &p in &ranks {
        let (runs, _) = rounds_of(&lib, p, rounds, max, None);
        let per_k: BTreeMap<usize, Times> =
            runs.into_iter().map(|(k, r)| (k, best_of(r))).collect();
        let sizes: Vec<u64> = per_k[&0].keys().map(|(_, b)| *b).collect();
        rules.add(u64::from(p), &choose(&per_k, &sizes));
    }
    let path = toolkit::report::write_file(lib.file, &lib.write(&rules)).expect("write the rules");
    // What the library will read, read back the way the tuner's --check reads it.
    let rules = lib
        .parse(&std::fs::read_to_string(&path).unwrap())
        .expect("the rules just written");
    println!(
        "# the {} table, {}:\n{}",
        lib.name,
        path.display(),
        lib.write(&rules).trim_end()
    );
    let env = lib.with_file(&path.display().to_string());
    for &p in &ranks {
        let (runs, tuned) = rounds_of(&lib, p, rounds, max, Some(&env));
        let spread = spread_of(&runs);
        let per_k: BTreeMap<usize, Times> =
            runs.into_iter().map(|(k, r)| (k, best_of(r))).collect();
        let sizes: Vec<u64> = per_k[&0].keys().map(|(_, b)| *b).collect();
        table::print(&lib, p, &per_k, &spread, &sizes, &best_of(tuned), &rules);
    }
    if toolkit::bench::smoke() {
        every_algorithm_in_a_table(&lib, ranks[0], max);
    }
}

/// The smoke run's guard: the library runs with a table that names each algorithm alone
/// (a table the tuner may write on another machine; MPICH's `nb` needs MPI_Iallreduce in
/// its file, for one). A launch that fails ends the run with its output.
fn every_algorithm_in_a_table(lib: &Library, p: u32, max: u64) {
    for k in 1..lib.algorithms.len() {
        let mut one = ch03::rules::AllreduceRules::default();
        one.add(u64::from(p), &[(8, k as u64)]);
        let path =
            toolkit::report::write_file(lib.file, &lib.write(&one)).expect("write the rules");
        launch(p, &lib.with_file(&path.display().to_string()), max, false);
    }
    println!(
        "# {}: ran with a table naming each of its algorithms 1-{} alone",
        lib.name,
        lib.algorithms.len() - 1
    );
}
