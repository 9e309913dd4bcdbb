//! A writer killed in the middle of a save (its whole process, SIGKILL, half-way through
//! its file): the job ends, and the checkpoint left is the save before, whole and
//! loadable on every rank. The `async_ckpt` lab at 3 ranks with `--kill-at-save 3`. Run:
//! `cargo test -p ch15-failures --features solution --test main killed::`.

use crate::common::step_in;
use std::time::Duration;
use toolkit::launch::Job;

#[test]
fn a_writer_killed_mid_save_leaves_the_previous_checkpoint_whole() {
    let job = Job::new(env!("CARGO_BIN_EXE_async_ckpt"))
        .ranks(3)
        .args([
            "--sizes",
            "1",
            "--steps",
            "12",
            "--every",
            "3",
            "--kill-at-save",
            "3",
        ])
        .timeout(Duration::from_secs(60));
    let out = job.run().expect("launch the lab");
    let text = out.text();
    assert!(
        !out.success(),
        "the job went on after rank 1 was killed:\n{text}"
    );
    if text.contains("finish ex 15.1") {
        panic!("ex 15.1 is not done yet: {text}");
    }
    let dir = toolkit::report::out_dir().join("ch15-async");
    for q in 0..3 {
        let step = step_in(&dir, q, 3).unwrap_or_else(|e| panic!("rank {q}'s shard: {e}\n{text}"));
        assert_eq!(
            step,
            Some(6),
            "rank {q}: the checkpoint left must be save 2's (step 6), whole\n{text}"
        );
    }
}
