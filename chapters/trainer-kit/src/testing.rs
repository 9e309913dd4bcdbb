//! For a trainer's tests: its binary refuses bad flags before MPI starts, in one line.

/// For a trainer's tests: runs its binary `exe` with `args` as a job of `np` ranks would
/// start it, and checks that it refuses them before MPI starts: a non-zero exit within 5
/// s, nothing on stdout, one line on stderr, no re-launch under mpirun. Returns that line.
pub fn refusal(exe: &str, args: &[&str], np: usize) -> String {
    let start = std::time::Instant::now();
    let out = std::process::Command::new(exe)
        .args(args)
        .env("NP", np.to_string())
        .env_remove("OMPI_COMM_WORLD_SIZE")
        .env_remove("PMI_SIZE")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe}: {e}"));
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} was accepted");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line:\n{err}");
    assert!(
        !err.contains("re-launching") && out.stdout.is_empty(),
        "{args:?}: mpirun was started: {err}"
    );
    assert!(took.as_secs() < 5, "{args:?}: took {took:?}");
    err.trim_end().to_string()
}

/// For a trainer's tests: each of `cases` (flags, and a piece of the expected message) is
/// a [`refusal`] of `exe` at `np` ranks whose line is `name: ...` and holds that piece.
pub fn check_refusals(exe: &str, name: &str, np: usize, cases: &[(&[&str], &str)]) {
    for (args, needle) in cases {
        let err = refusal(exe, args, np);
        let prefix = format!("{name}: ");
        assert!(
            err.starts_with(&prefix) && err.contains(needle),
            "{args:?}: expected `{needle}`: {err}"
        );
    }
}

/// For a trainer's tests: `exe --device cuda` where LibTorch can use no GPU is refused in
/// one line that says why (the reason this test process sees: same LibTorch, same
/// machine), `name: --device cuda: <why>`. Where a GPU can be used there is nothing to
/// refuse, and it says so.
pub fn check_cuda_refusal(exe: &str, name: &str) {
    let Some(why) = torch_link::why_no_cuda(tch::Cuda::is_available()) else {
        println!("a GPU can be used here: --device cuda is accepted, nothing to refuse");
        return;
    };
    let err = refusal(exe, &["--device", "cuda"], 2);
    assert_eq!(err, format!("{name}: --device cuda: {why}"));
}
