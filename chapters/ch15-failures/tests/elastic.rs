//! Checks of exercise 15.3 (the elastic supervisor's decisions): in one process on worked
//! cases, then for real: chapter 8's trainer on 4 ranks under `supervise`, rank 3 killed
//! at step 12; the supervisor relaunches it on 3 ranks from the checkpoint of step 10
//! (resharded by the trainer), and the losses of every step after it and the final
//! parameters equal those of a launch on 3 ranks from the same checkpoint that never
//! failed, bit for bit. Run: `make check CH=15` or `cargo test -p ch15-failures
//! --features solution --test main elastic::`.

use crate::common::{check_next_launch, check_restart_size};
use ch15::elastic::{next_launch, restart_size};

#[test]
fn ex15_3_the_size_of_a_restart() {
    if let Err(why) = check_restart_size(restart_size) {
        panic!("{why}");
    }
}

#[test]
fn ex15_3_the_next_launch() {
    if let Err(why) = check_next_launch(next_launch) {
        panic!("{why}");
    }
}

#[test]
fn an_elastic_restart_goes_on_at_3_ranks_bit_for_bit() {
    let dir = toolkit::report::out_dir().join("ch15-elastic");
    let _ = std::fs::remove_dir_all(&dir);
    let trainer = [
        "--model",
        "mlp",
        "--max-steps",
        "20",
        "--every",
        "5",
        "--threads",
        "1",
    ];
    let more = [
        "--collectives",
        "mpi",
        "--quiet",
        "--losses",
        "--checkpoint",
    ];
    // This run's own mark: no process of it may be left at the end.
    let mark = ("CH15_ELASTIC_TEST", std::process::id().to_string());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_supervise"))
        .args(["--np", "4", "--verify", "--zero", "--"])
        .args(trainer)
        .args(more)
        .arg(&dir)
        .env("CH08_KILL_RANK", "3")
        .env("CH08_KILL_AT_STEP", "12")
        .env(mark.0, &mark.1)
        .output()
        .expect("supervise runs");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "supervise failed:\n{text}");
    for line in [
        "supervise: launch 1 failed",
        "supervise: launch 2: 3 ranks, resumed from the checkpoint",
        "resumed at step 10",
        "supervise: verify: the same, bit for bit (11 lines: step 11: loss",
        "supervise: done after 2 launches",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
    let left = trainer_kit::fault::running_with(&format!("{}={}", mark.0, mark.1));
    assert!(left.is_empty(), "processes left: {left:?}\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
