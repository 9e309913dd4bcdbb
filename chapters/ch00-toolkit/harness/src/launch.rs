//! Starting a program under `mpirun` with N ranks, and making sure it ends.
//!
//! Works with Open MPI and MPICH (`MPIRUN=mpirun.mpich`). As root, and with more ranks
//! than cores, Open MPI needs permission; we give it through its environment variables,
//! which MPICH ignores. A job that outlives its deadline is killed whole: `mpirun` runs in
//! a session of its own, and on timeout every process of that session gets SIGKILL
//! (killing mpirun alone would leave the ranks running: each rank is its own process
//! group inside mpirun's session, so a kill of mpirun's process group misses them).

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

/// True when this process was started by an MPI launcher (Open MPI or MPICH).
pub fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// The launcher command: `$MPIRUN`, else `mpirun`.
pub fn mpirun_command() -> String {
    std::env::var("MPIRUN").unwrap_or_else(|_| "mpirun".to_string())
}

/// Which MPI implementation the launcher belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Open MPI (`mpirun (Open MPI) 4.1.4`).
    OpenMpi,
    /// MPICH's Hydra launcher.
    Mpich,
}

/// Asks `$MPIRUN --version` which implementation it is.
pub fn flavor() -> Result<Flavor, String> {
    let cmd = mpirun_command();
    let out = Command::new(&cmd).arg("--version").output().map_err(|e| {
        format!("cannot run `{cmd}` ({e}): install MPI with `make setup`, or set MPIRUN")
    })?;
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    Ok(if text.contains("open mpi") || text.contains("open-mpi") {
        Flavor::OpenMpi
    } else {
        Flavor::Mpich
    })
}

/// Which stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One line of output, with the rank that printed it when the launcher said so.
#[derive(Clone, Debug)]
pub struct Line {
    pub rank: Option<u32>,
    pub stream: Stream,
    pub text: String,
}

impl Line {
    /// A blank line, or libtest's `running 1 test` / `test NAME ... ` printed by a rank.
    pub fn is_libtest_noise(&self) -> bool {
        let t = self.text.trim();
        t.is_empty()
            || t == "running 1 test"
            || (t.starts_with("test ") && (t.contains(" ... ") || t.ends_with(" ...")))
    }
}

/// What a finished (or killed) job left behind.
#[derive(Debug)]
pub struct Outcome {
    /// Exit status of mpirun; `None` when the job was killed at its deadline.
    pub status: Option<ExitStatus>,
    /// True when the job ran past its deadline and was killed.
    pub timed_out: bool,
    /// Every line printed by the launcher and the ranks, in arrival order per stream.
    pub lines: Vec<Line>,
    /// Wall time of the whole job.
    pub wall: Duration,
}

impl Outcome {
    /// True when mpirun exited with status 0.
    pub fn success(&self) -> bool {
        self.status.map(|s| s.success()).unwrap_or(false)
    }

    /// All output as `rank R | text` lines, for messages and assertions, without blank
    /// lines and the lines libtest prints when a test binary runs as a rank.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in self.lines.iter().filter(|l| !l.is_libtest_noise()) {
            match l.rank {
                Some(r) => out.push_str(&format!("rank {r} | {}\n", l.text)),
                None => out.push_str(&format!("{}\n", l.text)),
            }
        }
        out
    }

    /// Lines printed by one rank.
    pub fn rank_lines(&self, rank: u32) -> Vec<&str> {
        let mine = self.lines.iter().filter(|l| l.rank == Some(rank));
        mine.map(|l| l.text.as_str()).collect()
    }
}

/// A job to start: a program, its arguments, the number of ranks, a deadline.
#[derive(Clone, Debug)]
pub struct Job {
    program: String,
    args: Vec<String>,
    ranks: u32,
    timeout: Duration,
    envs: Vec<(String, String)>,
}

/// Jobs in one process run one at a time: two jobs on a 2-core laptop would each time out.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

impl Job {
    /// `program` under mpirun with 4 ranks and the `WORKBOOK_JOB_TIMEOUT` deadline.
    pub fn new(program: impl Into<String>) -> Self {
        let timeout = crate::settings::job_timeout();
        let program = program.into();
        Job {
            program,
            args: vec![],
            ranks: 4,
            timeout,
            envs: vec![],
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

    /// An environment variable for the ranks.
    pub fn env(mut self, key: &str, value: impl Into<String>) -> Self {
        self.envs.push((key.to_string(), value.into()));
        self
    }

    fn command(&self, flavor: Flavor, tag_output: bool) -> Command {
        let mut cmd = Command::new(mpirun_command());
        cmd.arg("-n").arg(self.ranks.to_string());
        if tag_output {
            cmd.arg(if flavor == Flavor::OpenMpi {
                "--tag-output"
            } else {
                "-prepend-rank"
            });
        }
        cmd.arg(&self.program).args(&self.args);
        // Open MPI: allow root and more ranks than cores (MPICH ignores these).
        for (k, v) in [
            ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
            ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
            ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
            ("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe"),
        ] {
            cmd.env(k, v);
        }
        cmd.envs(self.envs.iter().map(|(k, v)| (k, v)));
        // A session of its own, so that a timeout can find and kill every rank.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        cmd
    }

    /// Runs the job with output captured line by line (tests use this).
    pub fn run(&self) -> Result<Outcome, String> {
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let flavor = flavor()?;
        let mut cmd = self.command(flavor, true);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let out = collect(child.stdout.take().expect("piped"), Stream::Stdout, flavor);
        let err = collect(child.stderr.take().expect("piped"), Stream::Stderr, flavor);
        let (status, timed_out) = crate::session::wait_or_kill(&mut child, self.timeout);
        let mut lines = out.join().unwrap_or_default();
        lines.extend(err.join().unwrap_or_default());
        Ok(Outcome {
            status,
            timed_out,
            lines,
            wall: start.elapsed(),
        })
    }

    /// Runs the job with the terminal as its output (labs use this); returns the exit code.
    /// The launcher's own reports of a rank that ended badly (which the rank has already
    /// explained) are left out of stderr; any other launcher message gets through.
    pub fn run_inherit(&self) -> Result<i32, String> {
        let flavor = flavor()?;
        let mut cmd = self.command(flavor, false);
        cmd.stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
        let stderr = child.stderr.take().expect("piped");
        let forward = thread::spawn(move || {
            crate::launcher_output::forward_without_noise(stderr, &mut std::io::stderr())
        });
        let result = crate::session::wait_or_kill(&mut child, self.timeout);
        let (omitted, reports) = forward.join().unwrap_or_default();
        let reports: Vec<&str> = reports.iter().map(String::as_str).collect();
        if let Some(hint) = crate::diagnose::deadlock_hint(&reports) {
            eprintln!("{hint}");
        }
        match result {
            (Some(status), _) => {
                let code = status.code().unwrap_or(1);
                if omitted && code != 0 {
                    eprintln!("[workbook] the job ended with exit status {code}");
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

/// Reads a stream into lines on a thread, splitting off the launcher's rank prefix.
fn collect(
    stream: impl Read + Send + 'static,
    kind: Stream,
    flavor: Flavor,
) -> thread::JoinHandle<Vec<Line>> {
    thread::spawn(move || {
        let reader = BufReader::new(stream);
        let lines = reader.split(b'\n').map_while(Result::ok);
        let text = lines.map(|l| String::from_utf8_lossy(&l).into_owned());
        text.map(|t| split_rank(&t, kind, flavor)).collect()
    })
}

/// `[1,2]<stdout>:hello` (Open MPI) or `[2] hello` (MPICH) -> rank 2, `hello`.
fn split_rank(line: &str, stream: Stream, flavor: Flavor) -> Line {
    let parsed = match flavor {
        Flavor::OpenMpi => line.strip_prefix('[').and_then(|rest| {
            let (ids, rest) = rest.split_once(']')?;
            let rank = ids.split(',').nth(1)?.parse().ok()?;
            let text = rest.split_once(">:").map(|(_, t)| t).unwrap_or(rest);
            // Open MPI 5 puts a space after the tag (`[1,2]<stdout>: hello`), 4 does not.
            let text = text.strip_prefix(' ').unwrap_or(text);
            Some((rank, text))
        }),
        Flavor::Mpich => line.strip_prefix('[').and_then(|rest| {
            let (id, text) = rest.split_once("] ")?;
            Some((id.parse().ok()?, text))
        }),
    };
    match parsed {
        Some((rank, text)) => Line {
            rank: Some(rank),
            stream,
            text: text.to_string(),
        },
        None => Line {
            rank: None,
            stream,
            text: line.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_prefixes_are_split() {
        let l = split_rank("[1,2]<stdout>:hello: x", Stream::Stdout, Flavor::OpenMpi);
        assert_eq!((l.rank, l.text.as_str()), (Some(2), "hello: x"));
        let l = split_rank("[1,2]<stdout>: hello", Stream::Stdout, Flavor::OpenMpi);
        assert_eq!((l.rank, l.text.as_str()), (Some(2), "hello"));
        let l = split_rank("[3] hi [x]", Stream::Stderr, Flavor::Mpich);
        assert_eq!((l.rank, l.text.as_str()), (Some(3), "hi [x]"));
        let l = split_rank("mpirun noticed", Stream::Stderr, Flavor::OpenMpi);
        assert_eq!(l.rank, None);
    }
}
