//! Checks of the lab `tp_block`'s command line: a bad flag, or a layout the job's ranks
//! cannot share, is refused in one line before MPI starts.
//!
//! Run: `cargo test -p ch09-tensor-parallel --features solution --test main lab::`.

use trainer_kit::testing::check_refusals;

#[test]
fn bad_flags_and_layouts_fail_in_one_line_before_mpi_starts() {
    let exe = env!("CARGO_BIN_EXE_tp_block");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--heads", "8"],
            "tensor-parallel size 3 does not divide the 8 heads (at 3 ranks)",
        ),
        (
            &["--hidden", "100"],
            "12 heads do not divide the hidden size 100",
        ),
        (&["--dtype", "f16"], "unknown --dtype `f16` (f32|f64)"),
        (&["--batch", "0"], "--batch 0: a positive whole number"),
        (
            &["--ranks", "2"],
            "unknown flag --ranks (--help lists them)",
        ),
    ];
    check_refusals(exe, "tp_block", 3, &cases);
}
