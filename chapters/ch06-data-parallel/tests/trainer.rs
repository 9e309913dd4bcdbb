//! Checks of the whole trainer (every exercise together, so they pass once all are done):
//! data-parallel equals one process in all three sync modes (and on chapter 3's ring), resume is bit-identical, a
//! killed rank ends the job with the last checkpoint intact, the default run reaches its
//! accuracy, and bad flags fail in one line.
//!
//! Run: `cargo test -p ch06-data-parallel --features solution --test main trainer::`.

use crate::common;

use ch06::config::{Backend, Config, SyncMode};
use ch06::device::place;
use ch06::model::ModelKind;
use ch06::report::Progress;
use ch06::train::Trainer;
use ch06::{ckpt_format, data, flat};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::time::Duration;
use toolkit::mpi_test;
use trainer_kit::fault::killed_job;
use trainer_kit::testing::{check_cuda_refusal, check_refusals};

const QUIET: Progress = Progress { enabled: false };

fn trainer<'c>(comm: &'c SimpleCommunicator, cfg: Config) -> Result<Trainer<'c>, String> {
    let split = data::digits()?;
    let at = place(comm, cfg.common.device, Some(1));
    Trainer::new(comm, cfg, split, at)
}

fn cfg(model: ModelKind, sync: SyncMode, steps: u64) -> Config {
    let mut c = Config {
        model,
        sync,
        max_steps: Some(steps),
        bucket_kib: 8,
        ..Config::default()
    };
    (c.common.quiet, c.common.batch) = (true, 24);
    c
}

mpi_test! {
    fn data_parallel_trains_like_one_process_in_every_sync_mode(world at &[1, 2, 3, 4]) {
        // Every rank also trains alone, on a communicator of its own, with the whole batch.
        let alone = world
            .split_by_color(Color::with_value(world.rank()))
            .expect("split");
        let ring = |sync| Config {
            allreduce: Backend::Ring,
            ..cfg(ModelKind::Cnn, sync, 5)
        };
        let runs = [
            cfg(ModelKind::Cnn, SyncMode::PerTensor, 5),
            cfg(ModelKind::Cnn, SyncMode::Bucketed, 5),
            cfg(ModelKind::Cnn, SyncMode::Overlap, 5),
            ring(SyncMode::Bucketed), // chapter 3's ring as the allreduce
        ];
        for run in runs {
            let (sync, backend) = (run.sync, run.allreduce);
            let mut dp = trainer(world, run.clone())?;
            let mut one = trainer(&alone, run)?;
            // The same start: rank 0's initial parameters (the broadcast made them so).
            for (o, d) in one.params.iter_mut().zip(&dp.params) {
                tch::no_grad(|| o.copy_(d));
            }
            dp.fit(&QUIET)?;
            one.fit(&QUIET)?;
            for (i, (d, o)) in dp.params.iter().zip(&one.params).enumerate() {
                let (d, o): (Vec<f32>, Vec<f32>) = (common::values(d), common::values(o));
                for (j, (a, b)) in d.iter().zip(&o).enumerate() {
                    let what = format!(
                        "{sync:?} on {backend:?}: tensor {} element {j}",
                        dp.names[i]
                    );
                    common::close(&what, f64::from(*a), f64::from(*b))?;
                }
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn resume_continues_bit_for_bit(world at &[1, 3]) {
        let path = std::env::temp_dir().join(format!("ch06-resume-{}.ckpt", world.size()));
        let k = 40; // steps before the stop; 2k crosses an epoch (59 steps at batch 24)
        let mut straight = trainer(world, cfg(ModelKind::Cnn, SyncMode::Bucketed, 2 * k))?;
        straight.fit(&QUIET)?;
        let mut with_ckpt = cfg(ModelKind::Cnn, SyncMode::Bucketed, k);
        (with_ckpt.common.checkpoint, with_ckpt.common.every) = (Some(path.clone()), k);
        trainer(world, with_ckpt.clone())?.fit(&QUIET)?;
        world.barrier(); // rank 0 has written the checkpoint
        let mut resume = Config {
            max_steps: Some(2 * k),
            ..with_ckpt
        };
        resume.common.resume = true;
        let mut resumed = trainer(world, resume)?;
        if resumed.global_step != k {
            return Err(format!(
                "resumed at step {}, expected {k}",
                resumed.global_step
            ));
        }
        resumed.fit(&QUIET)?;
        let (a, b) = (
            flat::fingerprint(&straight.params),
            flat::fingerprint(&resumed.params),
        );
        let (ma, mb) = (
            flat::fingerprint(&straight.opt.m),
            flat::fingerprint(&resumed.opt.m),
        );
        world.barrier();
        if world.rank() == 0 {
            let _ = std::fs::remove_file(&path);
        }
        if (a, ma) != (b, mb) {
            return Err(format!("after {} steps: straight {a:016x}/{ma:016x}, stopped and resumed {b:016x}/{mb:016x}", 2 * k));
        }
        Ok(())
    }
}

mpi_test! {
    fn the_default_run_reaches_95_percent(world at &[1, 4]) {
        let mut t = trainer(
            world,
            {
                let mut c = Config::default();
                c.common.quiet = true;
                c
            },
        )?;
        let logs = t.fit(&QUIET)?;
        let acc = logs.last().map_or(0.0, |l| l.test_acc);
        if acc < 95.0 {
            return Err(format!(
                "test accuracy {acc:.2}% after {} epochs, expected >= 95%",
                logs.len()
            ));
        }
        if world.rank() == 0 {
            println!(
                "default CNN at {} ranks: test accuracy {acc:.2}%",
                world.size()
            );
        }
        Ok(())
    }
}

#[test]
fn a_killed_rank_ends_the_job_and_the_checkpoint_survives() {
    let path = std::env::temp_dir().join(format!("ch06-fault-{}.ckpt", std::process::id()));
    let args = [
        "--checkpoint",
        path.to_str().unwrap(),
        "--every",
        "5",
        "--epochs",
        "50",
        "--batch",
        "24",
        "--quiet",
        "--threads",
        "1",
    ];
    let exe = env!("CARGO_BIN_EXE_train");
    let (text, wall) = killed_job(exe, "CH06", 3, &args, (1, 12), Duration::from_secs(30));
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("no checkpoint {path:?}: {e}\n{text}"));
    let ckpt = ckpt_format::decode(&bytes).unwrap_or_else(|e| panic!("checkpoint unusable: {e}"));
    assert_eq!(
        ckpt.global_step, 10,
        "the last checkpoint before the kill at step 12"
    );
    let _ = std::fs::remove_file(&path);
    println!(
        "rank 1 killed at step 12: job ended in {:.1} s, checkpoint of step 10 intact",
        wall.as_secs_f64()
    );
}

/// `--collective-timeout`: a rank late to a collective by 5 s (`WORKBOOK_STRAGGLER`) and a
/// limit of 1 s: run as a learner runs it (the trainer re-launches itself), the job ends
/// in seconds, each waiting rank names its call and its last collectives, the launcher
/// names the late rank, and no rank is left running.
#[test]
fn a_collective_timeout_ends_the_job_and_names_the_late_rank() {
    let exe = env!("CARGO_BIN_EXE_train");
    let args = ["--model", "mlp", "--epochs", "1", "--batch", "48"];
    // This job's own mark: the test's other jobs run the same program beside it.
    let mark = ("CH06_TIMEOUT_TEST", std::process::id().to_string());
    let out = std::process::Command::new(exe)
        .args(args)
        .args(["--threads", "1", "--collective-timeout", "1"])
        .env(mark.0, &mark.1)
        .env("NP", "3")
        .env("WORKBOOK_STRAGGLER", "1:delay=5s")
        .env("WORKBOOK_JOB_TIMEOUT", "30")
        .output()
        .expect("the trainer runs");
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(124), "exit status:\n{text}");
    let waited = "a call has waited 1 s (--collective-timeout 1)";
    for rank in [0, 2] {
        let head = format!("rank {rank}: DEADLOCK? `train`: {waited}");
        assert!(text.contains(&head), "no `{head}`:\n{text}");
        let flight = format!("rank {rank}: flight on WORLD: #1 MPI_");
        assert!(text.contains(&flight), "no `{flight}`:\n{text}");
    }
    let late = "hint: rank 1 sent no report";
    assert!(text.contains(late), "the late rank is not named:\n{text}");
    let left = trainer_kit::fault::running_with(&format!("{}={}", mark.0, mark.1));
    assert!(
        left.is_empty(),
        "ranks left running after the timeout: {left:?}\n{text}"
    );
}

#[test]
fn bad_flags_fail_before_any_communication() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["--batch", "30"],
            "global batch 30 does not split over 4 ranks",
        ),
        (&["--model", "resnet"], "unknown model `resnet`"),
        (&["--device", "tpu"], "unknown device `tpu`"),
        (&["--data", "/no/such/folder"], "no such folder"),
        (&["--resume"], "--resume needs --checkpoint"),
        (
            &["--allreduce", "ring", "--sync", "overlap"],
            "--allreduce ring runs with",
        ),
        (
            &["--collective-timeout", "0"],
            "`0` is not a number of seconds above 0",
        ),
    ];
    check_refusals(env!("CARGO_BIN_EXE_train"), "train", 4, &cases);
}

#[test]
fn device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    check_cuda_refusal(env!("CARGO_BIN_EXE_train"), "train");
}
