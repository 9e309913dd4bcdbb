//! Starting a program under a launcher with N ranks, and making sure it ends.
//!
//! The launcher is `$MPIRUN` (default `mpirun`): Open MPI's mpirun, MPICH's mpiexec
//! (Hydra) or Slurm's srun, recognised by what it is ([`crate::launcher`]), each given
//! its own flags; `HOSTFILE` spreads the ranks over the hosts it lists. Output is captured
//! per rank ([`crate::outcome`]); when a job fails, the rank that ended first is named
//! ([`crate::rank_exits`]), whatever the launcher says. A job that outlives its deadline,
//! or the process that started it, is stopped the way its launcher stops every rank on
//! every node, and then killed whole on this machine ([`crate::session`]).

use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

pub use crate::launcher::{flavor, mpirun_command, Flavor};
pub use crate::outcome::{Line, Outcome, Stream};

/// True when this process was started by an MPI launcher as one rank of a job: Open MPI
/// (`OMPI_COMM_WORLD_SIZE`, `PMIX_RANK`), MPICH's Hydra (`PMI_RANK`), or `srun --mpi=pmix`
/// (`PMIX_RANK`). A Slurm batch script alone is not a job of ranks: `SLURM_PROCID` does
/// not count.
pub fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// A job to start: a program, its arguments, the number of ranks, a deadline.
#[derive(Clone, Debug)]
pub struct Job {
    program: String,
    args: Vec<String>,
    ranks: u32,
    timeout: Duration,
    envs: Vec<(String, String)>,
    /// The rank counts this launch runs, for the launch log (default: `ranks`).
    sizes: Option<String>,
}

/// Jobs in one process run one at a time: two jobs on a 2-core laptop would each time out.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

impl Job {
    /// `program` under mpirun with 4 ranks and the `WORKBOOK_JOB_TIMEOUT` deadline.
    pub fn new(program: impl Into<String>) -> Self {
        let timeout = workbook_settings::settings::job_timeout();
        let program = program.into();
        Job {
            program,
            args: vec![],
            ranks: 4,
            timeout,
            envs: vec![],
            sizes: None,
        }
    }

    /// Number of ranks (`mpirun -n`).
    pub fn ranks(mut self, n: u32) -> Self {
        self.ranks = n;
        self
    }

    /// Arguments passed to every rank.
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Deadline for the whole job, after which every process of it is killed.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// The rank counts the launch runs on sub-communicators ([`crate::sizes`]), as the
    /// launch log (`workbook_settings::launches`) shows them.
    pub fn sizes(mut self, sizes: &[u32]) -> Self {
        let text: Vec<String> = sizes.iter().map(u32::to_string).collect();
        self.sizes = Some(text.join(" "));
        self
    }

    /// The row this job adds to the launch log.
    fn log(&self, wall: Duration, outcome: &str) {
        let sizes = self.sizes.clone().unwrap_or_else(|| self.ranks.to_string());
        workbook_settings::launches::append(&self.program, self.ranks, &sizes, wall, outcome);
    }

    /// An environment variable for the ranks.
    pub fn env(mut self, key: &str, value: impl Into<String>) -> Self {
        self.envs.push((key.to_string(), value.into()));
        self
    }

    fn command(&self, flavor: Flavor, tag_output: bool) -> Result<Command, String> {
        let hosts = crate::launcher::hostfile();
        let options = crate::launcher::options(flavor, self.ranks, tag_output, hosts.as_deref())?;
        let mut cmd = Command::new(mpirun_command());
        cmd.args(options).arg(&self.program).args(&self.args);
        cmd.envs(crate::launcher::environment());
        cmd.envs(self.envs.iter().map(|(k, v)| (k, v)));
        // A session of its own, so that its reaper can find and kill every rank
        // ([`crate::session`]). Being in its own session, the launcher does not get the
        // terminal's Ctrl-C; its reaper asks it to stop, once: a second SIGTERM makes
        // Open MPI's mpirun exit at once, leaving its session folder in /tmp behind.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        Ok(cmd)
    }

    /// Runs the job with output captured line by line (tests use this).
    pub fn run(&self) -> Result<Outcome, String> {
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let flavor = flavor()?;
        let mut cmd = self.command(flavor, true)?;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let out =
            crate::outcome::collect(child.stdout.take().expect("piped"), Stream::Stdout, flavor);
        let err =
            crate::outcome::collect(child.stderr.take().expect("piped"), Stream::Stderr, flavor);
        let reaper = crate::session::Reaper::start(&mut child, flavor)?;
        let watch = crate::rank_exits::watch(child.id(), self.ranks);
        let (status, timed_out) = crate::session::wait_or_kill(&mut child, reaper, self.timeout);
        let first = watch.first_to_end();
        let mut lines = out.join().unwrap_or_default();
        lines.extend(err.join().unwrap_or_default());
        // Which rank ended first, in the harness's words: not every launcher names it.
        let failed = !timed_out && !status.is_some_and(|s| s.success());
        if let Some(text) = first.filter(|_| failed) {
            lines.push(Line {
                rank: None,
                stream: Stream::Stderr,
                text,
            });
        }
        let outcome = Outcome {
            status,
            timed_out,
            lines,
            wall: start.elapsed(),
        };
        self.log(outcome.wall, &outcome_word(status, timed_out));
        Ok(outcome)
    }

    /// Runs the job with the terminal as its output (labs use this); returns the exit code.
    /// The launcher's own reports of a rank that ended badly (which the rank has already
    /// explained) are left out of stderr; any other launcher message gets through.
    pub fn run_inherit(&self) -> Result<i32, String> {
        let flavor = flavor()?;
        let mut cmd = self.command(flavor, false)?;
        // A machine another job keeps busy: ranks that give the cores back (labs only).
        cmd.envs(crate::sharing::guest_environment(self.ranks, flavor));
        cmd.stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let reaper = crate::session::Reaper::start(&mut child, flavor)?;
        let stderr = child.stderr.take().expect("piped");
        let forward = thread::spawn(move || {
            crate::launcher_output::forward_without_noise(stderr, &mut std::io::stderr())
        });
        let watch = crate::rank_exits::watch(child.id(), self.ranks);
        let start = Instant::now();
        let result = crate::session::wait_or_kill(&mut child, reaper, self.timeout);
        self.log(start.elapsed(), &outcome_word(result.0, result.1));
        let first = watch.first_to_end();
        let forwarded = forward.join().unwrap_or_default();
        let reports: Vec<&str> = forwarded.passed.iter().map(String::as_str).collect();
        if let Some(hint) = crate::diagnose::deadlock_hint_among(&reports, self.ranks) {
            eprintln!("{hint}");
        }
        match result {
            (Some(status), _) => {
                let code = status.code().unwrap_or(1);
                // A lab stopped by an unfinished exercise has said so on rank 0; a refusal
                // that every rank printed alike has come through once: nothing to add.
                let said = code == crate::gate::UNFINISHED
                    || (self.ranks > 1 && forwarded.most_repeats >= self.ranks as usize);
                if forwarded.omitted && code != 0 && !said {
                    eprintln!("[workbook] the job ended with exit status {code}");
                }
                if let Some(line) = first.filter(|_| code != 0 && !said) {
                    eprintln!("{line}");
                }
                Ok(code)
            }
            (None, _) => Err(format!(
                "the job ran past its {} s deadline and was killed (set WORKBOOK_JOB_TIMEOUT \
                 to allow longer)",
                self.timeout.as_secs()
            )),
        }
    }
}

/// The launch log's word for how a job ended: `ok`, `exit N`, `signal`, `timed out`.
fn outcome_word(status: Option<std::process::ExitStatus>, timed_out: bool) -> String {
    match (status, timed_out) {
        (_, true) | (None, _) => "timed out".into(),
        (Some(s), _) if s.success() => "ok".into(),
        (Some(s), _) => s.code().map_or("signal".into(), |c| format!("exit {c}")),
    }
}
