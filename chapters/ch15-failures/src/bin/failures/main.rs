//! Lab: how often to save (ex 15.2), measured through real failures. A driver (this
//! program, started without mpirun) trains chapter 15's model to the same number of steps
//! at five save intervals around Young's (a quarter to four times), `sqrt(2 save mtbf)`. Each launch of the job has
//! a time to failure drawn from an exponential of mean `--mtbf` seconds (seeded: the same
//! draws at every interval): then a rank kills its own process, the job ends, and the
//! driver launches it again, from the last checkpoint. Per interval: the launches, the
//! time in saves and the work done again, as a share of the work, next to ex 15.2's
//! waste; and the wall time. The run at Young's interval ends by checking its state
//! against the same model trained without a failure, bit for bit.
//!
//! Run: `make run CH=15 BIN=failures SOLUTION=1` (2 ranks), or `NP=3 cargo run --release
//! -p ch15-failures --features solution --bin failures -- [--mtbf 3] [--work 4] [--seed 1]
//! [--params 2000000]`: `--work` is seconds of training per interval (without saves or
//! failures). About a minute. Checkpoints in `target/workbook/ch15-failures/`.
//! `-- --in-job` says instead, in one line, whether this MPI could recover inside the job
//! (ULFM, `ch15::ulfm`).

mod worker;

use ch15::files::empty_folder;
use ch15::interval::{waste, young_interval};
use std::path::Path;
use std::time::Instant;
use toolkit::bench::arg;
use toolkit::launch::{under_mpirun, Job};
use trainer_kit::rng::SplitMix64;

/// What rank 0 printed in one launch: the steps done, the saves and their seconds.
#[derive(Default)]
struct Printed {
    last_step: u64,
    last_saved: u64,
    save_s: f64,
    saves: u64,
    trained_s: f64,
    same: Option<bool>,
}

/// One launch of the job at `n` ranks; whether it ended whole, and what rank 0 printed.
fn launch(
    n: u32,
    p: usize,
    steps: u64,
    every: u64,
    die_at: f64,
    dir: &Path,
    verify: bool,
) -> (bool, Printed) {
    let exe = std::env::current_exe().expect("own path");
    let mut args = vec![
        "--worker".to_string(),
        "--params".into(),
        p.to_string(),
        "--steps".into(),
        steps.to_string(),
    ];
    args.extend([
        "--every".into(),
        every.to_string(),
        "--die-at".into(),
        format!("{die_at}"),
    ]);
    args.extend([
        "--die-rank".into(),
        (n - 1).to_string(),
        "--dir".into(),
        dir.display().to_string(),
    ]);
    if verify {
        args.push("--verify".into());
    }
    let job = Job::new(exe.to_string_lossy())
        .ranks(n)
        .args(args)
        .timeout(std::time::Duration::from_secs(300));
    let out = job
        .run()
        .unwrap_or_else(|e| panic!("failures: cannot launch: {e}"));
    let mut seen = Printed::default();
    for line in out.rank_lines(0) {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[..] {
            ["step", s] => seen.last_step = s.parse().unwrap_or(0),
            ["saved", s, t] => {
                seen.last_saved = s.parse().unwrap_or(0);
                seen.save_s += t.parse::<f64>().unwrap_or(0.0);
                seen.saves += 1;
            }
            ["trained", t] => seen.trained_s = t.parse().unwrap_or(0.0),
            ["same", "as", "never", "failed:", v] => seen.same = Some(v == "yes"),
            _ => {}
        }
    }
    if !out.success() && die_at <= 0.0 {
        panic!(
            "failures: a launch without a planned failure failed:\n{}",
            out.text()
        );
    }
    (out.success(), seen)
}

/// The launches an interval gets before the lab gives up on it.
const MAX_LAUNCHES: u32 = 12;

fn main() {
    if std::env::args().any(|a| a == "--worker") {
        return worker::run();
    }
    if std::env::args().any(|a| a == "--in-job") {
        return println!("{}", ch15::ulfm::in_job_recovery());
    }
    if under_mpirun() {
        return println!(
            "failures launches its own jobs: run it without mpirun (make run CH=15 BIN=failures)"
        );
    }
    // A stub stops the lab with its one line, before any launch.
    toolkit::gate::stop_if_todo("failures", || {
        (young_interval(1.0, 2.0), waste(1.0, 1.0, 2.0))
    });
    let n: u32 = std::env::var("NP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let mtbf: f64 = arg("--mtbf", "3").parse().expect("--mtbf SECONDS");
    let work: f64 = arg("--work", "4").parse().expect("--work SECONDS");
    let seed: u64 = arg("--seed", "1").parse().expect("--seed N");
    let p: usize = arg("--params", "2000000").parse().expect("--params N");
    let dir = toolkit::report::out_dir().join("ch15-failures");
    // The step and the save, measured: 30 steps, a save every 10, no failure.
    empty_folder(&dir);
    let (_, cal) = launch(n, p, 30, 10, 0.0, &dir, false);
    let save = cal.save_s / cal.saves as f64;
    let step = cal.trained_s / 30.0;
    let best = young_interval(save, mtbf);
    let steps = (work / step).round() as u64;
    println!("# {n} ranks, {p} parameters; a step {:.1} ms, a save {:.1} ms; failures every {mtbf} s on average (seed {seed}); {steps} steps (about {work} s of training)", step * 1e3, save * 1e3);
    println!("# Young's interval sqrt(2 save mtbf) = {best:.3} s; the model's waste = save/interval + interval/(2 mtbf)");
    println!("# waste = (saves s + redone s) / the work; restarts s: the rest of the wall time (launches, start-up, loading)");
    println!(
        "{:>9} {:>9} {:>8} {:>6} {:>8} {:>9} {:>7} {:>7} {:>10} {:>7}",
        "interval",
        "every",
        "launches",
        "saves",
        "saves s",
        "redone s",
        "waste",
        "model",
        "restarts s",
        "wall s"
    );
    for factor in [0.25, 0.5, 1.0, 2.0, 4.0] {
        let every = ((best * factor / step).round() as u64).max(1);
        let interval = every as f64 * step;
        empty_folder(&dir);
        let mut rng = SplitMix64(seed);
        let mut same = None;
        let mut gave_up = false;
        let mut wall = 0.0;
        let (mut launches, mut saves, mut save_s, mut redone) = (0, 0, 0.0, 0u64);
        let t = Instant::now();
        loop {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let die_at = -mtbf * (1.0 - u).ln();
            launches += 1;
            let (whole, seen) = launch(n, p, steps, every, die_at, &dir, false);
            saves += seen.saves;
            save_s += seen.save_s;
            if whole {
                wall = t.elapsed().as_secs_f64();
                if factor == 1.0 {
                    // Untimed: the finished run's checkpoint, loaded and checked.
                    let (_, check) = launch(n, p, steps, every, 0.0, &dir, true);
                    same = check.same.map(|s| (s, launches));
                }
                break;
            }
            redone += seen.last_step.saturating_sub(seen.last_saved);
            if launches == MAX_LAUNCHES {
                gave_up = true;
                break;
            }
        }
        if gave_up {
            wall = t.elapsed().as_secs_f64();
        }
        let (redone_s, model) = (redone as f64 * step, waste(interval, save, mtbf));
        let measured = (save_s + redone_s) / (steps as f64 * step);
        let restart_s = wall - (steps + redone) as f64 * step - save_s;
        println!("{interval:>9.3} {every:>9} {launches:>8} {saves:>6} {save_s:>8.2} {redone_s:>9.2} {measured:>7.3} {model:>7.3} {restart_s:>10.2} {wall:>7.1}");
        if gave_up {
            println!("# gave up after {MAX_LAUNCHES} launches: a job rarely lives long enough to reach its first save");
        }
        if let Some((same, launches)) = same {
            let says = if same {
                "the same, bit for bit"
            } else {
                "DIFFERENT"
            };
            println!("# the last run's state after {launches} launches, against the same model trained without a failure: {says}");
        }
    }
}
