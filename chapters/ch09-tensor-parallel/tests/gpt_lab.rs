//! Checks of the lab `gpt`'s command line: a grid the job's ranks cannot make, a model
//! its tensor-parallel ranks cannot share, a batch the replicas cannot split, a resume
//! without a checkpoint, is refused in one line before MPI starts (`--device cuda`
//! where no GPU can be used: tests/gpt_device.rs).
//!
//! Run: `cargo test -p ch09-tensor-parallel --features solution --test main gpt_lab::`.

use trainer_kit::testing::check_refusals;

#[test]
fn bad_gpt_flags_and_grids_fail_in_one_line_before_mpi_starts() {
    let exe = env!("CARGO_BIN_EXE_gpt");
    let cases: [(&[&str], &str); 10] = [
        (
            &["--dp", "2", "--tp", "2"],
            "--dp 2 x --tp 2 is not the job's 3 ranks (dp * tp must equal the ranks)",
        ),
        (
            &["--heads", "4", "--hidden", "96", "--tp", "3"],
            "tensor-parallel size 3 does not divide the 4 heads (at --tp 3)",
        ),
        (
            &["--heads", "4", "--hidden", "96"],
            "tensor-parallel size 3 does not divide the 4 heads (--tp 3 by default at 3 \
             ranks: choose --tp, e.g. --dp 3 --tp 1)",
        ),
        (
            &["--dp", "3", "--batch", "16"],
            "global batch 16 does not split over 3 replicas: use a multiple of 3",
        ),
        (
            &["--hidden", "100"],
            "6 heads do not divide the hidden size 100",
        ),
        (&["--resume"], "--resume needs --checkpoint DIR"),
        (
            &["--resume", "--checkpoint", "no-such-ckpt"],
            "--resume: no-such-ckpt/manifest.ckpt: missing: not a checkpoint",
        ),
        (&["--every", "0"], "--every 0: at least 1"),
        (&["--prompt", "\u{263a}"], "--prompt: the character"),
        (&["--steps", "0"], "--steps 0: at least 1"),
    ];
    check_refusals(exe, "gpt", 3, &cases);
}
