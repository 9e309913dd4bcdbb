//! Given: the cores, where this rank may run, and how many threads each rank gets.
//!
//! mpirun decides where each rank may run (its *binding*); the kernel keeps that as the
//! rank's CPU affinity, which [`allowed_cpus`] reads (`sched_getaffinity`). Threads a
//! rank starts inherit it: two threads of a rank bound to one core share that core.
//! Reading the affinity and the node's cores is the trainer kit's (`trainer_kit::place`,
//! which the trainers of chapters 6 and 7 use too); the thread plan is this chapter's.

use mpi::topology::SimpleCommunicator;

pub use trainer_kit::place::allowed_cpus;

/// CPUs as Linux lists them: `0-3,6`.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = vec![];
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// This rank's place on its node: `(local rank, ranks on this node)`, from the
/// communicator of the ranks that share memory with it (`MPI_Comm_split_type`).
pub fn node_local(world: &SimpleCommunicator) -> (i32, i32) {
    let (rank, size) = trainer_kit::place::node_local(world);
    (rank as i32, size as i32)
}

/// The threads-per-rank settings of a lab: `--threads N` and `--oversubscribe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ThreadArgs {
    /// `--threads N` (or `THREADS=N` in the environment), if given.
    pub threads: Option<usize>,
    /// `--oversubscribe`: allow threads x local ranks > cores.
    pub oversubscribe: bool,
}

/// Reads `--threads N`, `--threads=N`, `--oversubscribe` from `args` (the `THREADS`
/// environment variable if no flag). Refuses anything else in one line.
pub fn parse_thread_args(args: &[String], env_threads: Option<&str>) -> Result<ThreadArgs, String> {
    let number = |v: &str| {
        v.trim().parse::<usize>().map_err(|_| {
            format!("--threads {v:?} is not a number of threads: use --threads 1 or more")
        })
    };
    let mut out = ThreadArgs::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--oversubscribe" {
            out.oversubscribe = true;
        } else if a == "--threads" {
            let v = it
                .next()
                .ok_or("--threads needs a number, e.g. --threads 2")?;
            out.threads = Some(number(v)?);
        } else if let Some(v) = a.strip_prefix("--threads=") {
            out.threads = Some(number(v)?);
        } else {
            return Err(format!(
                "unknown argument {a:?}: this lab takes --threads N and --oversubscribe"
            ));
        }
    }
    if out.threads.is_none() {
        if let Some(v) = env_threads {
            out.threads = Some(number(v)?);
        }
    }
    Ok(out)
}

// ANCHOR: plan
/// Threads per rank: `--threads` if given, else the node's cores shared by its ranks
/// (`cores / local ranks`, at least 1). Refuses 0 threads, and more threads on the node
/// than cores (`threads x local ranks > cores`) unless `oversubscribe`: every refusal is
/// one line that names the fix.
pub fn plan_threads(args: ThreadArgs, local_ranks: usize, cores: usize) -> Result<usize, String> {
    let threads = args.threads.unwrap_or((cores / local_ranks.max(1)).max(1));
    if threads == 0 {
        return Err(
            "--threads 0: a rank needs at least one thread; use --threads 1 or more".into(),
        );
    }
    if args.threads.is_some() && threads * local_ranks > cores && !args.oversubscribe {
        return Err(format!(
            "{threads} threads x {local_ranks} ranks on this node = {} > {cores} cores: the \
             threads would take turns on the cores. Fix: --threads {} (or fewer ranks), or \
             add --oversubscribe to measure it anyway",
            threads * local_ranks,
            (cores / local_ranks.max(1)).max(1)
        ));
    }
    Ok(threads)
}
// ANCHOR_END: plan

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_join_runs() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(cpu_list(&[1]), "1");
        assert_eq!(cpu_list(&[]), "");
    }

    #[test]
    fn plans_refuse_nonsense_in_one_line() {
        let args = |t: Option<usize>, o: bool| ThreadArgs {
            threads: t,
            oversubscribe: o,
        };
        assert_eq!(plan_threads(args(None, false), 1, 2), Ok(2));
        assert_eq!(plan_threads(args(None, false), 4, 2), Ok(1));
        assert!(plan_threads(args(Some(0), false), 1, 2).is_err());
        let e = plan_threads(args(Some(2), false), 2, 2).unwrap_err();
        assert!(e.contains("Fix: --threads 1") && !e.contains('\n'), "{e}");
        assert_eq!(plan_threads(args(Some(2), true), 2, 2), Ok(2));
        let to = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_thread_args(&to(&["--threads", "3"]), None),
            Ok(args(Some(3), false))
        );
        assert_eq!(
            parse_thread_args(&to(&[]), Some("2")),
            Ok(args(Some(2), false))
        );
        assert!(parse_thread_args(&to(&["--threads", "x"]), None).is_err());
        assert!(parse_thread_args(&to(&["-t"]), None).is_err());
    }
}
