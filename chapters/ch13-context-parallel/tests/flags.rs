//! The labs' flags: each bad one is refused in one line that names it, and a sequence the
//! ranks cannot split names a length that works, before MPI starts. Run: `cargo test -p
//! ch13-context-parallel --features solution --test main flags::`.

use ch13::flags::{read, RingFlags};

#[test]
fn bad_lab_flags_are_refused_in_one_line() {
    let args = |line: &str| {
        line.split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    for (line, names) in [
        ("--seq 0", "--seq"),
        ("--heads x", "--heads"),
        ("--ranks 2", "--ranks"),
    ] {
        let why = read::<RingFlags>("ring_attention", &args(line)).expect_err(line);
        assert!(!why.contains('\n') && why.contains(names), "{line}: {why}");
    }
    let flags = read::<RingFlags>("ring_attention", &args("--seq 100")).expect("a length");
    let why = flags.check(8, 1).expect_err("8 do not divide 100");
    assert!(why.contains("--seq 104"), "{why}");
    assert!(flags.check(4, 1).is_ok());
    let why = flags.check(4, 2).expect_err("8 chunks do not divide 100");
    assert!(
        why.contains("8 equal chunks") && why.contains("--seq 104"),
        "{why}"
    );
    assert!(flags.check(5, 2).is_ok());
    let why = flags
        .check_heads(8)
        .expect_err("8 ranks do not split 4 heads");
    assert!(why.contains("--heads 8"), "{why}");
    assert!(flags.check_heads(2).is_ok());
}

#[test]
fn bad_gpt_cp_flags_are_refused_in_one_line() {
    use ch13::gpt_cp_lab::GptCpFlags;
    use trainer_kit::cli::{parse_checked, Trainer};
    let check = |line: &str, ranks: usize| {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse_checked::<GptCpFlags>(&args, ranks)
            .map(|f| f.cp)
            .err()
    };
    for (line, ranks, says) in [
        (
            "--cp 3",
            4,
            "--cp 3 does not divide the job's 4 ranks (e.g. --cp 2)",
        ),
        (
            "",
            3,
            "--cp 2 does not divide the job's 3 ranks (e.g. --cp 3)",
        ),
        (
            "--cp 3 --tp 1",
            3,
            "--seq 64 does not split over --cp 3: each rank holds seq / cp tokens (e.g. --seq 66)",
        ),
        (
            "--tp 3",
            4,
            "at each of the --cp 2 positions (2 of the 4 ranks)",
        ),
        (
            "--attention ulysses",
            4,
            "--attention ulysses: the 3 heads of each TP rank (--heads 6 over tp 2) do not split over --cp 2",
        ),
        (
            "--attention ulysses --tp 1 --heads 5 --hidden 95",
            4,
            "(e.g. --attention ring)",
        ),
        (
            "--cp 3 --tp 1 --seq 63 --attention zigzag",
            3,
            "--seq 63 does not split into 2 x --cp 3 chunks: the zig-zag layout gives each rank two chunks of seq / 2cp tokens (e.g. --seq 66)",
        ),
        ("--device cuda", 4, "trains on the CPU"),
        ("--cp 0", 4, "--cp 0 does not divide"),
    ] {
        let why = check(line, ranks).expect(line);
        assert!(
            !why.contains('\n') && why.contains(says),
            "{line} at {ranks} ranks: {why}"
        );
    }
    // The layouts that fit (chapter 9's own checks of the model then run its ex 9.1).
    let layout = |line: &str, ranks: usize| {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let f: GptCpFlags =
            trainer_kit::cli::parse("gpt_cp", &args, &<GptCpFlags as Trainer>::DEFAULTS)?;
        f.layout(ranks)
            .map(|l| (l.cp, l.grid.dp, l.grid.tp, l.grid.pp))
    };
    assert_eq!(
        layout("", 4),
        Ok((2, 1, 2, 1)),
        "cp 2 x tp 2 by default at 4 ranks"
    );
    assert_eq!(layout("--cp 4 --tp 1 --pp 2", 8), Ok((4, 1, 1, 2)));
    assert_eq!(layout("--cp 2 --dp 2 --tp 2", 8), Ok((2, 2, 2, 1)));
}
