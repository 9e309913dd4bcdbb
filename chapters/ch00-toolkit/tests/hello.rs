//! The first lab as a learner starts it: without mpirun, it re-launches itself with NP
//! ranks; a nonsense NP is refused in one line before anything starts.

use std::process::Command;

#[test]
fn hello_relaunches_itself_with_np_ranks() {
    let out = Command::new(env!("CARGO_BIN_EXE_hello"))
        .env("NP", "3")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("re-launching with 3 ranks (NP=3)"),
        "{stderr}"
    );
    assert!(stdout.contains("hello: 3 ranks answered"), "{stdout}");
}

#[test]
fn a_bad_np_is_refused_in_one_line() {
    for np in ["0", "four"] {
        let out = Command::new(env!("CARGO_BIN_EXE_hello"))
            .env("NP", np)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "NP={np}: {stderr}");
        assert!(
            stderr.contains("is not a number of ranks: use NP=1 or more"),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "NP={np}: {stderr}");
    }
}
