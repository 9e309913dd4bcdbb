//! Lab: data-parallel training of a CNN on the UCI digits, on NP ranks (default 4).
//!
//! Run: `make run CH=06 SOLUTION=1` (or `cargo run --release -p ch06-data-parallel
//! --features solution --bin train -- --help`). Expect: a header (model, data, ranks,
//! device, threads), the proof of an identical start, one fixed-width line per epoch
//! (train loss, test accuracy over all ranks, samples/s, time in gradient sync), a summary
//! table, and a test accuracy of about 97-98% after 15 epochs. Writes
//! target/workbook/ch06/train.csv, train-loss.svg and train-accuracy.svg.

use ch06::config::{Config, DataSource};
use ch06::report::Progress;
use ch06::{data, device, train::Trainer};
use mpi::traits::*;
use std::io::IsTerminal;
use toolkit::plot::{linear_svg, Series};
use trainer_kit::entry::Report;

fn main() {
    // Bad flags: one line, before MPI even starts (no rank has communicated yet).
    let cfg: Config = trainer_kit::cli::from_command_line();
    if std::io::stderr().is_terminal() && std::env::var_os("CH06_PROGRESS").is_none() {
        std::env::set_var("CH06_PROGRESS", "1"); // the ranks' stderr is a pipe: tell them
    }
    trainer_kit::entry::run_and_exit("train", Report::Alike, |world| run(world, cfg))
}

fn run(world: &mpi::topology::SimpleCommunicator, cfg: Config) -> Result<(), String> {
    let split = match &cfg.data() {
        DataSource::Digits => data::digits()?,
        DataSource::Mnist(dir) => data::mnist(dir)?,
    };
    let (n_train, n_test) = (split.train.len(), split.test.len());
    let place = device::place(world, cfg.common.device, cfg.common.threads);
    let mut trainer = Trainer::new(world, cfg.clone(), split, place)?;
    let root = world.rank() == 0;
    if root {
        let count: usize = trainer.params.iter().map(|p| p.numel()).sum();
        println!(
            "model {} ({count} parameters in {} tensors), {n_train} train / {n_test} test images",
            cfg.model.name(),
            trainer.params.len()
        );
        println!(
            "{}, global batch {} ({} per rank), sync {:?} on {:?} ({} buckets of <= {} KiB), lr {}, momentum {}",
            toolkit::report::rank_count(world.size() as usize), cfg.common.batch, trainer.sampler.batch, cfg.sync, cfg.allreduce, trainer.buckets().len(),
            cfg.bucket_kib, cfg.common.lr, cfg.momentum
        );
        println!(
            "device {:?}, {} per rank ({} cores / {} on this node)",
            place.device,
            toolkit::report::counted(place.threads, "thread"),
            toolkit::report::host_cores(),
            toolkit::report::rank_count(place.local_ranks)
        );
        let before = if trainer.differed_before_broadcast {
            "differed"
        } else {
            "agreed"
        };
        let how = if cfg.common.resume {
            "resumed from the checkpoint at step"
        } else {
            "broadcast from rank 0 at step"
        };
        println!("start: parameters {before} across ranks before the broadcast; identical after it ({how} {})", trainer.global_step);
    }
    let progress = Progress {
        enabled: root && std::env::var_os("CH06_PROGRESS").is_some(),
    };
    let logs = trainer.fit(&progress)?;
    if root && !logs.is_empty() {
        println!("{}", toolkit::report::table(&logs));
        let curve = |f: fn(&ch06::report::EpochLog) -> f64| {
            logs.iter().map(|l| (l.epoch as f64, f(l))).collect()
        };
        let loss = [
            Series {
                name: "train loss".into(),
                points: curve(|l| l.train_loss),
            },
            Series {
                name: "test loss".into(),
                points: curve(|l| l.test_loss),
            },
        ];
        let acc = [Series {
            name: "test accuracy".into(),
            points: curve(|l| l.test_acc),
        }];
        let title = format!("{} on {} ranks", cfg.model.name(), world.size());
        let write = |name: &str, text: &str| {
            toolkit::report::write_file(&format!("ch06/{name}"), text).map_err(|e| e.to_string())
        };
        write("train.csv", &toolkit::report::csv(&logs))?;
        write(
            "train-loss.svg",
            &linear_svg(&format!("Loss, {title}"), "epoch", "cross-entropy", &loss),
        )?;
        let path = write(
            "train-accuracy.svg",
            &linear_svg(&format!("Test accuracy, {title}"), "epoch", "%", &acc),
        )?;
        println!(
            "wrote train.csv, train-loss.svg, train-accuracy.svg in {}",
            path.parent()
                .map_or(String::new(), |p| p.display().to_string())
        );
    }
    Ok(())
}
