//! Given: does this MPI recover inside a job? ULFM (User-Level Failure Mitigation, the MPI
//! Forum's fault-tolerance proposal) lets the ranks that survive a failure go on in the
//! same job: `MPIX_Comm_revoke` interrupts every call on a communicator, `MPIX_Comm_agree`
//! agrees on a value despite failures, `MPIX_Comm_shrink` makes a communicator of the
//! ranks still alive. Open MPI 5 has it as its MPI extension `ftmpi` (built with
//! `--with-ft=ulfm`, run with `mpirun --with-ft ulfm`); `ompi_info --parsable` lists the
//! extensions a build has. MPICH exports the `MPIX_Comm_*` calls, and keeps a job alive
//! after a rank's death only with `MPIR_CVAR_ENABLE_FT=1` and `mpiexec
//! -disable-auto-cleanup`, where its device supports it.
//!
//! [`in_job_recovery`] says in one line what this machine's MPI offers (`failures
//! --in-job` prints it); the course's labs restart the job instead (`failures`), and the page
//! "When a collective never finishes" teaches the in-job way.

use toolkit::launcher::Flavor;

/// One line: whether the MPI that `$MPIRUN` launches offers in-job recovery, and why not.
pub fn in_job_recovery() -> String {
    let head = "in-job recovery (ULFM)";
    match toolkit::launcher::flavor() {
        Ok(Flavor::OpenMpi) => {
            let info = std::process::Command::new("ompi_info")
                .arg("--parsable")
                .output();
            let text = info.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
            match text.ok().and_then(|t| extensions(&t)) {
                Some(ext) => open_mpi_line(head, &ext),
                None => format!("{head}: unknown: `ompi_info --parsable` lists no MPI extensions"),
            }
        }
        Ok(Flavor::Mpich) if has_symbol(c"MPIX_Comm_shrink") => format!(
            "{head}: MPICH exports MPIX_Comm_shrink, MPIX_Comm_revoke and MPIX_Comm_agree, but \
             keeps a job alive after a rank dies only with MPIR_CVAR_ENABLE_FT=1 and mpiexec \
             -disable-auto-cleanup, where its device supports it: the labs restart instead"
        ),
        Ok(Flavor::Mpich) => format!("{head}: not in this MPICH (no MPIX_Comm_shrink)"),
        Ok(Flavor::Slurm) => {
            format!("{head}: under srun, it depends on the MPI behind it: the labs restart instead")
        }
        Err(e) => format!("{head}: unknown: {e}"),
    }
}

/// The line for an Open MPI whose MPI extensions are `ext`.
fn open_mpi_line(head: &str, ext: &[String]) -> String {
    let list = ext.join(", ");
    if ext.iter().any(|e| e == "ftmpi") {
        format!(
            "{head}: this Open MPI has it (MPI extensions: {list}); run with mpirun --with-ft \
             ulfm; the labs restart instead"
        )
    } else {
        format!(
            "{head}: not in this Open MPI (MPI extensions: {list}; ULFM is `ftmpi`, in Open \
             MPI 5 built with --with-ft=ulfm): taught on the page only"
        )
    }
}

/// The MPI extensions in `ompi_info --parsable`'s output (`options:mpi_ext:affinity, cuda`).
fn extensions(ompi_info: &str) -> Option<Vec<String>> {
    let line = ompi_info
        .lines()
        .find_map(|l| l.strip_prefix("options:mpi_ext:"))?;
    let names = line.split(',').map(|e| e.trim().to_string());
    Some(names.filter(|e| !e.is_empty()).collect())
}

/// Whether the program can reach the C function `name` (the MPI library is linked in).
fn has_symbol(name: &std::ffi::CStr) -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT only looks the name up; nothing is called.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_are_read_from_ompi_info() {
        let text = "options:ft_support:\"no\"\noptions:mpi_ext:affinity, cuda, pcollreq\n";
        let ext = extensions(text).unwrap();
        assert_eq!(ext, ["affinity", "cuda", "pcollreq"]);
        let line = open_mpi_line("x", &ext);
        assert!(line.contains("not in this Open MPI (MPI extensions: affinity, cuda, pcollreq"));
        let ulfm = open_mpi_line("x", &["affinity".into(), "ftmpi".into()]);
        assert!(ulfm.contains("this Open MPI has it"), "{ulfm}");
        assert_eq!(extensions("options:other:1\n"), None);
    }
}
