//! The labs' flags: each bad one is refused in one line that names it, before MPI starts.
//! Run: `cargo test -p ch14-precision --features solution --test main flags::`.

use ch14::flags::{read, FormatsFlags, LowsumFlags, ScalingFlags};

#[test]
fn bad_lab_flags_are_refused_in_one_line() {
    let args = |line: &str| {
        line.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    for (line, names) in [("--n 0", "--n"), ("--mean nan", "--mean"), ("--k 2", "--k")] {
        let why = read::<LowsumFlags>("lowsum", &args(line)).expect_err(line);
        assert!(!why.contains('\n') && why.contains(names), "{line}: {why}");
    }
    for (line, names) in [
        ("--steps 0", "--steps"),
        ("--start 101", "--start"),
        ("--growth x", "--growth"),
    ] {
        let why = read::<ScalingFlags>("scaling", &args(line)).expect_err(line);
        assert!(!why.contains('\n') && why.contains(names), "{line}: {why}");
    }
    let why = read::<FormatsFlags>("formats", &args("0.5 half")).expect_err("half");
    assert!(!why.contains('\n') && why.contains("half"), "{why}");
    let ok = read::<FormatsFlags>("formats", &args("0.5 -1e6")).expect("two values");
    assert_eq!(ok.values, vec![0.5, -1e6]);
}
