//! Checks of the whole pipeline trainer (every exercise together, so they pass once all
//! are done): a run stopped at a checkpoint and resumed equals one straight run bit for
//! bit; a killed rank ends the whole job quickly and leaves every stage's last checkpoint
//! whole; a cut checkpoint is refused; bad settings fail in one line before MPI starts.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main trainer::`.

use crate::common;

use ch07::pipe_ckpt;
use ch07::pipe_config::PipeConfig;
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::plan::ScheduleKind;
use ch07::stage_model::{Shape, StageModel};
use mpi::traits::*;
use std::path::Path;
use std::time::Duration;
use tch::{Device, Tensor};
use toolkit::mpi_test;
use trainer_kit::ckpt;
use trainer_kit::fault::killed_job;
use trainer_kit::testing::{check_cuda_refusal, check_refusals};

/// A tiny model: 4 blocks of width 16 over 2-digit addition, batch 16 in 2 micro-batches.
fn tiny(steps: u64) -> PipeConfig {
    let mut c = PipeConfig {
        micro: 2,
        steps,
        ..PipeConfig::default()
    };
    (c.common.batch, c.common.quiet) = (16, true);
    c.shape.task.digits = 2;
    c.shape.width = 16;
    c.shape.depth = 4;
    c.shape.dtype = ch07::wire::Dtype::F64; // bit-for-bit checks, in f64
    c
}

/// Trains `t` to `t.cfg.steps` step by step; the losses of the steps taken.
fn train(t: &mut PipeTrainer) -> Result<Vec<f64>, String> {
    let mut losses = vec![];
    while t.step < t.cfg.steps {
        losses.push(t.train_step()?);
    }
    Ok(losses)
}

mpi_test! {
    fn resume_continues_bit_for_bit(world at &[2, 4]) {
        tch::set_num_threads(1);
        let size = world.size() as usize;
        let dp = size / 2; // 1 x 2 at 2 ranks, 2 x 2 at 4
        let mut id = std::process::id(); // rank 0's: one folder for the whole job
        world.process_at_rank(0).broadcast_into(&mut id);
        let dir = std::env::temp_dir().join(format!("ch07-resume-{size}-{id}"));
        let k = 3; // steps before the stop
        // GPipe on 2 ranks, 1F1B (the default) on 2 pipelines of 2 stages.
        let schedule = if dp == 1 { ScheduleKind::GPipe } else { ScheduleKind::OneFOneB };
        let straight_cfg = PipeConfig { dp, schedule: schedule.into(), ..tiny(2 * k) };
        let mut straight = PipeTrainer::new(world, straight_cfg.clone(), learner_transfer::<f64>(), Device::Cpu)?;
        let straight_losses = train(&mut straight)?;
        // The first half, writing its checkpoint at step k; then a fresh trainer resumes.
        let mut first = PipeConfig {
            steps: k,
            ..straight_cfg.clone()
        };
        (first.common.checkpoint, first.common.every) = (Some(dir.clone()), k);
        train(&mut PipeTrainer::new(world, first.clone(), learner_transfer::<f64>(), Device::Cpu)?)?;
        world.barrier(); // every stage has written its file
        let mut second = PipeConfig { steps: 2 * k, ..first };
        second.common.resume = true;
        let mut resumed = PipeTrainer::new(world, second, learner_transfer::<f64>(), Device::Cpu)?;
        let mine = (|| {
            if resumed.step != k {
                return Err(format!("resumed at step {}, expected {k}", resumed.step));
            }
            Ok(())
        })();
        toolkit::lockstep::agree(world, mine)?;
        let resumed_losses = train(&mut resumed)?;
        world.barrier();
        if world.rank() == 0 {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let stage = resumed.grid.stage;
        let mine = (|| {
            if resumed_losses[..] != straight_losses[k as usize..] {
                return Err(format!(
                    "losses of steps {}..={}: straight {:?}, stopped and resumed {resumed_losses:?}",
                    k + 1, 2 * k, &straight_losses[k as usize..]
                ));
            }
            for (what, a, b) in [
                ("parameters", &straight.stage.params, &resumed.stage.params),
                ("Adam's first moments", &straight.opt.m, &resumed.opt.m),
                ("Adam's second moments", &straight.opt.v, &resumed.opt.v),
            ] {
                let (a, b) = (common::bits(a), common::bits(b));
                if let Some(j) = (0..a.len()).find(|&j| a[j] != b[j]) {
                    return Err(format!(
                        "stage {stage} after {} steps: {what} differ at value {j}: straight {}, stopped and resumed {}",
                        2 * k, f64::from_bits(a[j]), f64::from_bits(b[j])
                    ));
                }
            }
            Ok(())
        })();
        toolkit::lockstep::agree(world, mine)
    }
}

/// Loads `dir`'s file of stage `s` of `p` into a fresh stage of `shape` (Adam's state
/// too); its step.
fn load_stage(dir: &Path, shape: Shape, s: usize, p: usize) -> Result<u64, String> {
    let blocks = toolkit::split::block_range(shape.depth, p, s);
    let st = StageModel::new(shape, blocks, s == 0, s + 1 == p, 7, Device::Cpu);
    let zeros = || st.params.iter().map(Tensor::zeros_like);
    let mut named = ckpt::named("", &st.names, zeros());
    for tag in ["adam_m.", "adam_v."] {
        named.extend(ckpt::named(tag, &st.names, zeros()));
    }
    let model = pipe_ckpt::model_name(&shape);
    pipe_ckpt::load(&pipe_ckpt::path(dir, s), &model, s, p, &mut named)
}

#[test]
fn a_killed_rank_ends_the_job_and_every_stage_checkpoint_survives() {
    let dir = std::env::temp_dir().join(format!("ch07-fault-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "--digits", "2", "--width", "16", "--depth", "3", "--batch", "12", "--micro", "2",
        "--steps", "100000", "--report", "100000", "--every", "2", "--quiet",
    ];
    let mut all = args.to_vec();
    all.extend(["--checkpoint", dir.to_str().unwrap()]);
    let exe = env!("CARGO_BIN_EXE_pipeline");
    // Rank 1 is the middle stage.
    let (text, wall) = killed_job(exe, "CH07", 3, &all, (1, 5), Duration::from_secs(20));
    // The harness names the rank that ended first, in the same words under every MPI
    // (Open MPI names it too; MPICH's banner does not). It watches the ranks' exits, so on
    // a very busy machine it may see two ends at once and then says nothing rather than
    // guess: never a wrong rank, and under Open MPI the launcher's own line names it.
    let ours = text.lines().find(|l| l.contains(" ended first, while"));
    let openmpi = text.contains("rank 1") && text.contains("signal 9");
    match ours {
        Some(line) => assert!(
            line.contains("rank 1 ended first"),
            "wrong rank: {line}
{text}"
        ),
        None if toolkit::launch::flavor() == Ok(toolkit::launch::Flavor::OpenMpi) => {
            assert!(
                openmpi,
                "no message naming the killed rank:
{text}"
            )
        }
        None => println!("note: two ranks' ends seen at once (a busy machine): none named"),
    }
    // Rank 1 died after step 5, before step 6: every stage's last file is step 4's, whole
    // (checksum), never a half-written one (a save writes FILE.tmp, then renames).
    let shape = tiny(0).shape;
    let shape = Shape { depth: 3, ..shape };
    for s in 0..3 {
        let step = load_stage(&dir, shape, s, 3)
            .unwrap_or_else(|e| panic!("stage {s}'s checkpoint unusable: {e}\n{text}"));
        assert_eq!(
            step, 4,
            "stage {s}: the last checkpoint before the kill at step 5"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let said = text
        .lines()
        .find(|l| l.contains("ended first") || l.contains("signal 9"))
        .unwrap_or("");
    println!(
        "rank 1 killed at step 5: job ended in {:.1} s ({}); stages 0..3 checkpoints of step 4 intact",
        wall.as_secs_f64(),
        said.trim()
    );
}

#[test]
fn a_cut_or_changed_checkpoint_is_refused() {
    let dir = std::env::temp_dir().join(format!("ch07-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = pipe_ckpt::path(&dir, 0);
    let t = Tensor::from_slice(&[1.0f64, 2.0, 3.0]);
    pipe_ckpt::save(&file, "toy", 9, 0, 2, &[("w".into(), t.shallow_clone())]).unwrap();
    assert!(
        !file.with_extension("ckpt.tmp").exists(),
        "the temporary file was left"
    );
    let mut into = [("w".to_string(), t.zeros_like())];
    assert_eq!(pipe_ckpt::load(&file, "toy", 0, 2, &mut into), Ok(9));
    assert_eq!(
        common::bits(&[into[0].1.shallow_clone()]),
        common::bits(&[t])
    );
    let whole = std::fs::read(&file).unwrap();
    let mut refused = |bytes: &[u8], s: usize, model: &str, needle: &str| {
        std::fs::write(&file, bytes).unwrap();
        match pipe_ckpt::load(&file, model, s, 2, &mut into) {
            Err(e) => assert!(e.contains(needle), "{needle}: {e}"),
            Ok(step) => panic!("accepted ({needle}): step {step}"),
        }
    };
    refused(&whole[..whole.len() - 5], 0, "toy", "truncated");
    let mut flipped = whole.clone();
    flipped[40] ^= 1;
    refused(&flipped, 0, "toy", "checksum");
    refused(&whole, 1, "toy", "stage 0 of 2");
    refused(
        &whole,
        0,
        "big",
        "a checkpoint of model `toy`, but this is model `big`",
    );
    refused(
        b"not a checkpoint at all",
        0,
        "toy",
        "not a chapter-7 stage checkpoint",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_settings_fail_in_one_line_before_any_communication() {
    let cases: [(&[&str], &str); 6] = [
        (&["--depth", "2"], "4 stages but the model has 2 blocks"),
        (
            &["--batch", "30", "--micro", "4"],
            "batch 30 does not cut into 1 replica(s) x 4 micro-batches",
        ),
        (&["--dp", "3"], "--dp 3: 4 ranks are not a multiple of it"),
        (&["--micro", "0"], "micro-batches of equal size"),
        (&["--schedule", "zigzag"], "unknown --schedule `zigzag`"),
        (&["--resume"], "--resume needs --checkpoint"),
    ];
    check_refusals(env!("CARGO_BIN_EXE_pipeline"), "pipeline", 4, &cases);
}

#[test]
fn help_names_the_pipeline_and_every_flag_with_its_default() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pipeline"))
        .arg("--help")
        .output()
        .expect("run pipeline --help");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    assert!(
        help.contains("Usage: pipeline") && !help.to_lowercase().contains("usage: train"),
        "{help}"
    );
    for flag in [
        "--digits",
        "--micro",
        "--schedule",
        "--dp",
        "--checkpoint",
        "--threads",
        "gpipe|1f1b|interleaved|zb-h1",
        "--chunks <V>",
    ] {
        assert!(help.contains(flag), "{flag} missing:\n{help}");
    }
    assert!(
        help.contains("[default: 128]") && help.contains("[default: 1f1b]"),
        "{help}"
    );
}

#[test]
fn device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    check_cuda_refusal(env!("CARGO_BIN_EXE_pipeline"), "pipeline");
}
