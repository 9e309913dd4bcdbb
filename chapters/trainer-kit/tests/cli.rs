//! The trainers' shared command line (trainer_kit::cli): defaults, one-line errors that name
//! the flag, the help text, and the batch split over the ranks.
//!
//! Run: `cargo test -p trainer-kit --test main cli::`.
use clap::Parser;
use trainer_kit::cli::{help, one_of, parse, Common, Defaults, DeviceChoice};

#[derive(Parser, Debug)]
struct Toy {
    #[command(flatten)]
    common: Common,
    /// Steps
    #[arg(long, default_value_t = 3)]
    steps: u64,
    /// A choice
    #[arg(long, value_parser = one_of("--pick", &[("a", 1u8), ("b", 2u8)]), default_value = "b")]
    pick: u8,
}

const D: Defaults = Defaults {
    batch: 8,
    lr: 0.5,
    seed: 2,
    device: "cpu",
    every: 10,
};

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn defaults_are_the_trainers_and_flags_override_them() {
    let t: Toy = parse("toy", &args(&[]), &D).unwrap();
    assert_eq!((t.common.batch, t.common.lr, t.common.seed), (8, 0.5, 2));
    assert_eq!(
        (t.common.device, t.common.every, t.steps),
        (DeviceChoice::Cpu, 10, 3)
    );
    assert_eq!(
        (t.common.threads, t.common.resume, t.pick),
        (None, false, 2)
    );
    let t: Toy = parse(
        "toy",
        &args(&["--batch", "6", "--device", "cuda", "--resume"]),
        &D,
    )
    .unwrap();
    assert_eq!(
        (t.common.batch, t.common.device, t.common.resume),
        (6, DeviceChoice::Cuda, true)
    );
}

#[test]
fn errors_are_one_line_and_name_the_flag() {
    for (bad, needle) in [
        (&["--batch", "x"][..], "--batch"),
        (&["--device", "tpu"][..], "unknown device `tpu`"),
        (&["--wat"][..], "--wat"),
        (&["--lr"][..], "--lr"),
        (&["--pick", "c"][..], "unknown --pick `c` (a|b)"),
    ] {
        let e = parse::<Toy>("toy", &args(bad), &D).unwrap_err();
        assert!(e.contains(needle) && !e.contains('\n'), "{bad:?}: {e}");
    }
}

#[test]
fn help_names_the_program_and_the_defaults() {
    let h = help::<Toy>("toy", &D);
    assert!(h.contains("Usage: toy"), "{h}");
    assert!(h.contains("[default: 8]") && h.contains("--steps"), "{h}");
}

#[test]
fn the_batch_splits_over_the_ranks_or_says_why_not() {
    let t: Toy = parse("toy", &args(&["--batch", "12"]), &D).unwrap();
    assert_eq!(t.common.batch_per_rank(3), Ok(4));
    let e = t.common.batch_per_rank(5).unwrap_err();
    assert_eq!(
        e,
        "global batch 12 does not split over 5 ranks: use a multiple of 5"
    );
    let zero: Toy = parse("toy", &args(&["--batch", "0"]), &D).unwrap();
    assert!(zero.common.batch_per_rank(1).is_err());
}
