//! Lab: chapter 8's ZeRO stages in mixed precision (`ch14::zero`): chapter 6's model
//! trained on the digits with bf16 working weights and gradients, f32 master weights and
//! Adam, at stage 0, 1, 2 and 3 from the same weights. Prints per stage the bytes rank 0
//! holds after the last step by kind, the ZeRO paper's formula for them (and chapter 8's
//! for f32), the most a step held for a while (stage 3's gathered layers), the first and
//! last loss and the test accuracy; then the paper's worked example by the same formulas.
//!
//! Run: `make run CH=14 BIN=zero_mixed` (4 ranks; `ARGS='--stage 3'` for one stage,
//! `ARGS=--help` for the list). A bad flag, or a batch the ranks cannot split, is refused
//! in one line before MPI starts. It needs none of the chapter's exercises.

use ch06::data::digits;
use ch08::budget::STAGES;
use ch08::memory::{self, Stage};
use ch14::flags::{from_args, ZeroMixedFlags};
use ch14::fp8_gather::gather_fp8;
use ch14::zero::MixedZero;
use ch14::zero_memory::{formula, formula_text};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use tabled::settings::Style;
use tabled::{Table, Tabled};
use toolkit::gate::unless_todo;

/// One stage's line of the table (rank 0's bytes).
#[derive(Tabled)]
struct Row {
    stage: &'static str,
    #[tabled(rename = "working bf16 B")]
    working: usize,
    #[tabled(rename = "grads bf16 B")]
    grads: usize,
    #[tabled(rename = "master+m+v f32 B")]
    master: usize,
    #[tabled(rename = "held B")]
    held: usize,
    formula: &'static str,
    #[tabled(rename = "formula B")]
    formula_bytes: usize,
    #[tabled(rename = "in-step peak B")]
    peak: usize,
    #[tabled(rename = "f32 formula B")]
    f32_bytes: usize,
    #[tabled(rename = "loss first")]
    first: String,
    #[tabled(rename = "loss last")]
    last: String,
    #[tabled(rename = "test")]
    test: String,
}

/// One line of the FP8 table: how stage 3 gathered, its bytes, its loss and accuracy.
#[derive(Tabled)]
struct GatherRow {
    #[tabled(rename = "gathered in")]
    format: &'static str,
    #[tabled(rename = "allgather B/step")]
    sent: usize,
    #[tabled(rename = "loss first")]
    first: String,
    #[tabled(rename = "loss last")]
    last: String,
    test: String,
}

fn gather_row(
    format: &'static str,
    zero: &MixedZero,
    losses: &[f64],
    data: &ch06::data::Split,
    steps: usize,
) -> GatherRow {
    GatherRow {
        format,
        sent: zero.gather_sent.get() / steps,
        first: format!("{:.4}", losses[0]),
        last: format!("{:.4}", losses[losses.len() - 1]),
        test: format!("{:.1}%", zero.accuracy(data)),
    }
}

fn main() {
    let flags: ZeroMixedFlags = from_args("zero_mixed");
    let ranks = trainer_kit::cli::ranks_from_env();
    if !flags.batch.is_multiple_of(ranks) {
        eprintln!(
            "zero_mixed: --batch {} does not split over {ranks} ranks: make it a multiple of {ranks}",
            flags.batch
        );
        std::process::exit(2);
    }
    let universe = toolkit::init();
    let world = universe.world();
    let n = world.size() as usize;
    let data = digits().unwrap_or_else(|why| {
        eprintln!("zero_mixed: {why}");
        std::process::exit(2);
    });
    let steps = flags.epochs * (data.train.len() / flags.batch);
    let stages = STAGES
        .iter()
        .filter(|s| flags.stage.is_none_or(|k| k == s.number()));
    let mut rows = vec![];
    let mut counts = (0, 0);
    let mut gathers = vec![];
    for &stage in stages {
        let image = data.train.image_size();
        let made = MixedZero::new(&world, stage, flags.model, image, flags.seed, flags.lr);
        let mut zero = made.unwrap_or_else(|why| {
            if world.rank() == 0 {
                eprintln!("zero_mixed: {why}");
            }
            std::process::exit(2);
        });
        let losses = zero.fit(&data, flags.batch, steps, flags.seed);
        if stage == Stage::Zero3 {
            gathers.push(gather_row("bf16", &zero, &losses, &data, steps));
        }
        let held = zero.held();
        let (mut least, mut most) = (0usize, 0usize);
        world.all_reduce_into(&held.total(), &mut least, SystemOperation::min());
        world.all_reduce_into(&held.total(), &mut most, SystemOperation::max());
        assert_eq!(least, most, "every rank holds the same bytes");
        let p = zero.padded();
        let real: usize = zero.units.iter().map(|u| u.params()).sum();
        counts = (real, counts.1.max(p));
        rows.push(Row {
            stage: stage.name(),
            working: held.working,
            grads: held.grads,
            master: held.master,
            held: held.total(),
            formula: formula_text(stage),
            formula_bytes: formula(stage, p, n),
            peak: zero.meter.peak(),
            f32_bytes: memory::formula(stage, p, n) as usize,
            first: format!("{:.4}", losses[0]),
            last: format!("{:.4}", losses[losses.len() - 1]),
            test: format!("{:.1}%", zero.accuracy(&data)),
        });
    }
    // Stage 3 again, its parameters gathered in FP8 (ex 14.5): once it is written.
    let fp8 = if gathers.is_empty() {
        Ok(())
    } else {
        unless_todo(&world, || {
            let image = data.train.image_size();
            let made = MixedZero::new(
                &world,
                Stage::Zero3,
                flags.model,
                image,
                flags.seed,
                flags.lr,
            );
            let mut zero = made.expect("stage 3 was made above");
            zero.fp8 = Some(gather_fp8);
            let losses = zero.fit(&data, flags.batch, steps, flags.seed);
            gathers.push(gather_row("fp8 e4m3", &zero, &losses, &data, steps));
        })
    };
    if world.rank() != 0 {
        return;
    }
    println!(
        "zero_mixed: {} on the digits at N = {n} ranks, {} parameters ({} padded: each of the \
         model's layers to a multiple of N), global batch {}, {steps} steps ({} epochs), Adam lr {}",
        flags.model.name(),
        counts.0,
        counts.1,
        flags.batch,
        flags.epochs,
        flags.lr
    );
    println!(
        "bf16 working weights and gradients, f32 master weights and Adam's m and v; \
         bytes rank 0 holds after the last step (every rank the same: checked), P padded at stages 1-3:"
    );
    println!("{}", Table::new(rows).with(Style::sharp()));
    println!(
        "(in-step peak: bf16 layers gathered and whole-layer gradients held for a while inside \
         the last step; f32 formula: chapter 8's, for the same P and N)"
    );
    let (psi, big_n) = (7_500_000_000usize, 64usize);
    let gb = |b: f64| format!("{:.1} GB", b / 1e9);
    let paper: Vec<String> = STAGES
        .iter()
        .map(|&s| format!("{} {}", formula_text(s), gb(formula(s, psi, big_n) as f64)))
        .collect();
    let f32s: Vec<String> = STAGES
        .iter()
        .map(|&s| {
            format!(
                "{} {}",
                s.formula_text().trim_end_matches(" + 8L"),
                gb(memory::formula(s, psi, big_n))
            )
        })
        .collect();
    println!(
        "the ZeRO paper's example, 7.5e9 parameters at N = 64: {}",
        paper.join(", ")
    );
    println!(
        "the same in f32 (chapter 8's formulas):            {}",
        f32s.join(", ")
    );
    if !gathers.is_empty() {
        println!(
            "ZeRO-3 with its parameters allgathered in bf16 and in FP8 E4M3, one scale per \
             layer (ex 14.5):"
        );
        println!("{}", Table::new(gathers).with(Style::sharp()));
        println!(
            "(allgather B/step: what rank 0 sends in the parameters' allgathers of a step, \
             forward and backward)"
        );
    }
    if let Err(task) = fp8 {
        println!("FP8 allgather: not run yet, it needs {task}");
    }
}
