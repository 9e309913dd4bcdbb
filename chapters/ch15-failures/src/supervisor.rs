//! Given: the elastic supervisor. It launches a trainer (any of the course's, with
//! `--checkpoint` and `--resume`), and when a launch fails it asks ex 15.3's
//! [`crate::elastic::next_launch`] what to do: launch again on the ranks still there,
//! from the last checkpoint, or give up. The trainer reshards the checkpoint itself
//! (chapter 8's `--resume` loads one saved at any number of ranks).
//!
//! Which ranks are still there. With `HOSTFILE` (a cluster), the hosts that answer its
//! remote shell (`OMPI_MCA_plm_rsh_agent`, else `ssh`) within 5 s, with their slots; the
//! next launches get a hostfile of those alone. On one machine nothing is really lost, so
//! each failed launch takes one slot out: the stand-in for the GPU the dead rank ran on.
//! A planted failure (`*_KILL_RANK`, `*_KILL_AT_STEP` in the environment) strikes once:
//! the supervisor removes it after the first failed launch.
//!
//! With `verify`, the checkpoint each relaunch starts from is copied first; at the end
//! the last launch's losses and parameters' fingerprints are compared with a launch that
//! starts from that copy on as many ranks and runs without a failure.

use crate::elastic::next_launch;
use crate::slots::Pool;
use crate::trainer_text::{batch_of, flag, trajectory};
use std::path::{Path, PathBuf};
use toolkit::launch::Job;

/// One launch: its ranks, and whether it resumes from the checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub ranks: usize,
    pub resume: bool,
}

/// How a launch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    Finished,
    Failed,
}

/// What the supervisor knows after a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// Ranks (slots) still available.
    pub alive: usize,
    /// The trainer's global batch.
    pub batch: usize,
    /// Restarts still allowed.
    pub restarts_left: u32,
    /// A checkpoint is on disk.
    pub saved: bool,
}

/// What to do after a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Done,
    Relaunch(Launch),
    GiveUp(String),
}

/// What to supervise.
pub struct Plan {
    /// The trainer's program and its flags (with `--checkpoint`).
    pub program: String,
    pub args: Vec<String>,
    /// Ranks of the first launch, and the most restarts.
    pub ranks: usize,
    pub restarts: u32,
    pub verify: bool,
}

/// Runs `plan` to its end; the launches made, or the one-line reason it gave up.
pub fn supervise(plan: &Plan) -> Result<Vec<Launch>, String> {
    let checkpoint = flag(&plan.args, "--checkpoint")
        .map(PathBuf::from)
        .ok_or("the job needs --checkpoint PATH: the supervisor restarts it from there")?;
    let batch = batch_of(&plan.program, &plan.args)?;
    let args: Vec<String> = plan
        .args
        .iter()
        .filter(|a| *a != "--resume")
        .cloned()
        .collect();
    let mut pool = Pool::new(plan.ranks)?;
    // The first launch too takes the most ranks that split the batch (ex 15.3).
    let ranks = crate::elastic::restart_size(plan.ranks, batch)
        .ok_or(format!("no rank to start on (--np {})", plan.ranks))?;
    if ranks != plan.ranks {
        let asked = toolkit::report::counted(plan.ranks, "rank");
        say(&format!(
            "{asked} do not split the global batch {batch}: starting on {ranks}"
        ));
    }
    let resume = plan.args.iter().any(|a| a == "--resume");
    let first = Launch { ranks, resume };
    let (mut launch, mut done, mut copy) = (first, vec![], None);
    let mut last; // the last launch's trajectory
    loop {
        let n = done.len() + 1;
        let how = if launch.resume {
            ", resumed from the checkpoint"
        } else {
            ""
        };
        let per = batch / launch.ranks;
        let ranks = toolkit::report::counted(launch.ranks, "rank");
        say(&format!(
            "launch {n}: {ranks}{how} (batch {batch}: {per} per rank)"
        ));
        let out = run(&plan.program, &args, launch, None)?;
        last = trajectory(&out.rank_lines(0));
        done.push(launch);
        if out.status.and_then(|s| s.code()) == Some(toolkit::gate::UNFINISHED) {
            let why = "the trainer stopped at an exercise not done yet (its line above)";
            return Err(format!("{why}: nothing to restart"));
        }
        let ended = if out.success() {
            Ended::Finished
        } else {
            Ended::Failed
        };
        if ended == Ended::Failed {
            say(&format!("launch {n} failed ({})", status(&out)));
            strike_once();
            pool.after_failure();
        } else {
            say(&format!("launch {n} finished"));
        }
        let restarts_left = plan.restarts.saturating_sub(done.len() as u32 - 1);
        let saved = saved(&checkpoint);
        let now = Now {
            alive: pool.alive(),
            batch,
            restarts_left,
            saved,
        };
        match next_launch(&launch, ended, &now) {
            Decision::Done => break,
            Decision::GiveUp(why) => return Err(format!("gave up after {n} launches: {why}")),
            Decision::Relaunch(next) => {
                say(&format!(
                    "{}; restarting on {} of them",
                    pool.describe(),
                    next.ranks
                ));
                if plan.verify && next.resume {
                    copy = Some((copy_of(&checkpoint)?, next.ranks));
                }
                launch = next;
            }
        }
    }
    if let (true, Some((copy, ranks)), true) = (plan.verify, copy, done.len() > 1) {
        verify(plan, &args, &last, &copy, ranks)?;
    }
    Ok(done)
}

/// What makes a line of rank 0's worth showing.
const SHOWN: [&str; 4] = ["resumed", "loss", "fingerprint", "error"];

/// Launches `program` with `args` (its `--checkpoint` moved to `at`, if given), prints
/// rank 0's lines and the launcher's, and returns the outcome.
fn run(
    program: &str,
    args: &[String],
    launch: Launch,
    at: Option<&Path>,
) -> Result<toolkit::outcome::Outcome, String> {
    let mut args = args.to_vec();
    if let (Some(at), Some(i)) = (at, args.iter().position(|a| a == "--checkpoint")) {
        args[i + 1] = at.display().to_string();
    }
    if launch.resume {
        args.push("--resume".into());
    }
    // Each launch under the course's deadline (WORKBOOK_JOB_TIMEOUT): past it, it failed.
    let out = Job::new(program)
        .ranks(launch.ranks as u32)
        .args(args)
        .run()?;
    // Of rank 0's lines, the first and those that say where training is; the launcher's.
    let mut first = true;
    for l in out
        .lines
        .iter()
        .filter(|l| !l.is_libtest_noise() && !l.text.trim().is_empty())
    {
        let shown = match l.rank {
            None => true,
            Some(0) => std::mem::take(&mut first) || SHOWN.iter().any(|w| l.text.contains(w)),
            Some(_) => l.text.starts_with("rank "),
        };
        if shown {
            println!("  | {}", l.text);
        }
    }
    Ok(out)
}

/// The last launch's losses and fingerprints against a launch from the copied checkpoint.
fn verify(
    plan: &Plan,
    args: &[String],
    last: &[String],
    copy: &Path,
    ranks: usize,
) -> Result<(), String> {
    say(&format!(
        "verify: {ranks} ranks from a copy of the same checkpoint, without a failure"
    ));
    let out = run(
        &plan.program,
        args,
        Launch {
            ranks,
            resume: true,
        },
        Some(copy),
    )?;
    let again = trajectory(&out.rank_lines(0));
    let _ = std::fs::remove_dir_all(copy).or_else(|_| std::fs::remove_file(copy));
    if again.is_empty() || !out.success() {
        return Err("verify: the uninterrupted launch printed no losses".into());
    }
    if last != again {
        return Err(format!("verify: NOT the same: {last:?} against {again:?}"));
    }
    let n = toolkit::report::counted(again.len(), "line");
    let ends = format!("{} ... {}", again[0], again[again.len() - 1]);
    say(&format!("verify: the same, bit for bit ({n}: {ends})"));
    Ok(())
}

/// How a failed launch ended, in a few words.
fn status(out: &toolkit::outcome::Outcome) -> String {
    match (out.timed_out, out.status.and_then(|s| s.code())) {
        (true, _) => "past its deadline".into(),
        (_, Some(code)) => format!("exit status {code}"),
        _ => "ended by a signal".into(),
    }
}

/// A planted failure strikes once: its variables go after the first failed launch.
fn strike_once() {
    let planted: Vec<String> = std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.ends_with("_KILL_RANK") || k.ends_with("_KILL_AT_STEP"))
        .collect();
    for k in &planted {
        std::env::remove_var(k);
    }
}

/// Whether a checkpoint is on disk: a file, or a folder with a file in it (a folder made
/// before the first save is not one).
fn saved(checkpoint: &Path) -> bool {
    match std::fs::read_dir(checkpoint) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => checkpoint.is_file(),
    }
}

/// A copy of the checkpoint (a folder or a file) beside it: `<path>.restart`.
fn copy_of(checkpoint: &Path) -> Result<PathBuf, String> {
    let copy = PathBuf::from(format!("{}.restart", checkpoint.display()));
    let _ = std::fs::remove_dir_all(&copy);
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(checkpoint)
        .arg(&copy)
        .status();
    match status {
        Ok(s) if s.success() => Ok(copy),
        _ => Err(format!(
            "cannot copy {} for the check",
            checkpoint.display()
        )),
    }
}

/// One line of the supervisor's own.
fn say(line: &str) {
    println!("supervise: {line}");
}
