//! Which launcher `$MPIRUN` is, and the command line each kind wants.
//!
//! The launcher is recognised by what it says it is (`$MPIRUN --version`, asked once per
//! process), never by its name: `mpirun` may be Open MPI's, MPICH's or a site's wrapper,
//! and `mpiexec` may be either. Three kinds are known:
//!
//! | kind | `--version` says | ranks | rank tags | hosts |
//! |---|---|---|---|---|
//! | Open MPI | `mpirun (Open MPI) 4.1.4` | `-n N` | `--tag-output` | `--hostfile F` |
//! | MPICH / Hydra | `HYDRA build details` | `-n N` | `-prepend-rank` | `-f F` |
//! | Slurm | `slurm 23.02.7` (Debian: `slurm-wlm`) | `-n N` | `--label` | the allocation (no file) |
//!
//! Settings: `MPIRUN` (the launcher), `HOSTFILE` (a host list for mpirun/mpiexec) and
//! `MPIRUN_ARGS` (extra launcher options, split on spaces), all listed in
//! [`workbook_settings::settings`].

use std::collections::HashMap;
use std::process::Command;
use std::sync::Mutex;

/// The launcher command: `$MPIRUN`, else `mpirun`.
pub fn mpirun_command() -> String {
    std::env::var("MPIRUN").unwrap_or_else(|_| "mpirun".to_string())
}

/// What kind of launcher `$MPIRUN` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// Open MPI's `mpirun`/`mpiexec` (`mpirun (Open MPI) 4.1.4`).
    OpenMpi,
    /// MPICH's Hydra launcher (`mpirun.mpich`, `mpiexec.hydra`; also Intel MPI's).
    Mpich,
    /// Slurm's `srun`: the ranks are the tasks of a job step.
    Slurm,
}

impl Flavor {
    /// The kind's name, as a learner would say it.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::OpenMpi => "Open MPI mpirun",
            Flavor::Mpich => "MPICH/Hydra mpiexec",
            Flavor::Slurm => "Slurm srun",
        }
    }
}

/// Reads what a launcher printed for `--version`; `None` when it is none we know.
pub fn recognise(version_text: &str) -> Option<Flavor> {
    let t = version_text.to_lowercase();
    if t.contains("open mpi") || t.contains("open-mpi") || t.contains("openrte") {
        Some(Flavor::OpenMpi)
    } else if t.contains("hydra") || t.contains("mpich") || t.contains("intel(r) mpi") {
        Some(Flavor::Mpich)
    } else if t
        .split_whitespace()
        .next()
        .is_some_and(|w| w.starts_with("slurm"))
    {
        Some(Flavor::Slurm)
    } else {
        None
    }
}

/// Answers already given, per launcher command (asking costs a process start).
static KNOWN: Mutex<Option<HashMap<String, Result<Flavor, String>>>> = Mutex::new(None);

/// Asks `$MPIRUN --version` (once per process) what kind of launcher it is.
pub fn flavor() -> Result<Flavor, String> {
    let cmd = mpirun_command();
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    let known = known.get_or_insert_with(HashMap::new);
    known
        .entry(cmd.clone())
        .or_insert_with(|| ask(&cmd))
        .clone()
}

fn ask(cmd: &str) -> Result<Flavor, String> {
    let out = Command::new(cmd).arg("--version").output().map_err(|e| {
        format!("cannot run MPIRUN=`{cmd}` ({e}): install MPI with `make setup`, or set MPIRUN")
    })?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    recognise(&text).ok_or_else(|| {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        format!(
            "MPIRUN=`{cmd}` says {first:?} for --version: not Open MPI's mpirun, MPICH's \
             mpiexec (Hydra) or Slurm's srun; set MPIRUN to one of those"
        )
    })
}

/// `HOSTFILE`, when set: the hosts mpirun/mpiexec may start ranks on.
pub fn hostfile() -> Option<String> {
    std::env::var("HOSTFILE")
        .ok()
        .filter(|h| !h.trim().is_empty())
}

/// `MPIRUN_ARGS`, split on whitespace: extra launcher options (e.g. `--mca btl tcp,self`,
/// `--gpus-per-task=1`).
pub fn extra_args() -> Vec<String> {
    let v = std::env::var("MPIRUN_ARGS").unwrap_or_default();
    v.split_whitespace().map(str::to_string).collect()
}

/// The launcher options before the program: rank count, rank tags, hosts, extras.
pub fn options(
    flavor: Flavor,
    ranks: u32,
    tag_output: bool,
    hostfile: Option<&str>,
) -> Result<Vec<String>, String> {
    let mut args = vec!["-n".to_string(), ranks.to_string()];
    let (tag, host_flag) = match flavor {
        Flavor::OpenMpi => ("--tag-output", "--hostfile"),
        Flavor::Mpich => ("-prepend-rank", "-f"),
        // PMIx is how Open MPI (and MPICH) ranks learn their rank from slurmstepd; a
        // bad exit of one task ends the step, as mpirun ends the job.
        Flavor::Slurm => ("--label", ""),
    };
    if flavor == Flavor::Slurm {
        args.extend(["--mpi=pmix", "--kill-on-bad-exit=1"].map(String::from));
    }
    if tag_output {
        args.push(tag.to_string());
    }
    match (hostfile, flavor) {
        (Some(h), Flavor::Slurm) => {
            return Err(format!(
                "HOSTFILE={h} is for mpirun/mpiexec: under srun the Slurm allocation names \
                 the nodes (unset HOSTFILE, or ask for nodes with salloc/sbatch -N)"
            ))
        }
        (Some(h), _) if !std::path::Path::new(h).is_file() => {
            return Err(format!(
                "HOSTFILE={h}: no such file (one host per line, e.g. `node1 slots=4`)"
            ))
        }
        (Some(h), _) => args.extend([host_flag.to_string(), h.to_string()]),
        (None, _) => {}
    }
    args.extend(extra_args());
    Ok(args)
}

/// Environment for the launcher. Open MPI as root and with more ranks than cores needs
/// permission, given through variables that MPICH and Slurm ignore. And Open MPI 4.1's
/// default collective-I/O component, `fcoll/vulcan`, wrote wrong files here for some
/// block layouts of a subarray file view (chapter 16's MPI-IO check found it; a C program
/// reproduces it, e.g. a 7 x 1 grid over 3 ranks): it is left out, unless the user chose
/// a component (`OMPI_MCA_fcoll`).
pub fn environment() -> Vec<(&'static str, &'static str)> {
    let mut env = vec![
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe"),
    ];
    if std::env::var_os("OMPI_MCA_fcoll").is_none() {
        env.push(("OMPI_MCA_fcoll", "^vulcan"));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers_are_told_apart_by_what_they_say() {
        let ompi = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/";
        let hydra = "HYDRA build details:\n    Version:                                 4.0.2";
        assert_eq!(recognise(ompi), Some(Flavor::OpenMpi));
        assert_eq!(recognise(hydra), Some(Flavor::Mpich));
        assert_eq!(recognise("slurm 22.05.8\n"), Some(Flavor::Slurm));
        assert_eq!(recognise("slurm-wlm 22.05.8\n"), Some(Flavor::Slurm));
        assert_eq!(
            recognise("prterun (Open MPI) 5.0.11"),
            Some(Flavor::OpenMpi)
        );
        assert_eq!(recognise("bash: mpirun: command not found"), None);
    }

    #[test]
    fn each_launcher_gets_its_own_flags() {
        let o = options(Flavor::OpenMpi, 3, true, None).unwrap();
        assert_eq!(o[..3], ["-n", "3", "--tag-output"]);
        let m = options(Flavor::Mpich, 2, true, None).unwrap();
        assert!(m.contains(&"-prepend-rank".to_string()), "{m:?}");
        let s = options(Flavor::Slurm, 4, true, None).unwrap();
        for f in ["--mpi=pmix", "--label", "--kill-on-bad-exit=1"] {
            assert!(s.contains(&f.to_string()), "{s:?}");
        }
        let hosts = std::env::temp_dir().join("workbook-launcher-test-hosts");
        std::fs::write(&hosts, "localhost slots=2\n").unwrap();
        let h = hosts.to_str().unwrap();
        let o = options(Flavor::OpenMpi, 2, false, Some(h)).unwrap();
        assert_eq!(o[2..4], ["--hostfile", h]);
        let m = options(Flavor::Mpich, 2, false, Some(h)).unwrap();
        assert_eq!(m[2..4], ["-f", h]);
        let err = options(Flavor::Slurm, 2, false, Some(h)).unwrap_err();
        assert!(err.contains("unset HOSTFILE"), "{err}");
        let err = options(Flavor::OpenMpi, 2, false, Some("/no/such/hosts")).unwrap_err();
        assert!(err.contains("no such file"), "{err}");
    }
}
