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
