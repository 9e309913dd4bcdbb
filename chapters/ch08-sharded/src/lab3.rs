//! Given: the `zero` lab at `--stage 3` (ZeRO-3, crate::zero3's executor): the header
//! (each layer's P_l, S_l and padding), the training, the test accuracy, the first step's
//! messages on the ring drawn from the trace, and the table of bytes held (the trainer's
//! accounting, between steps and at the step's peak) and sent per rank against
//! 16P/N + 8L and 3P(N-1)/N; with `--checkpoint DIR`, the step saved and the parameters'
//! fingerprint; with `--device cuda` (`crate::staged3`), the host staging bytes against
//! their formula.
//!
//! Run: `make run CH=08 SOLUTION=1 ARGS="--stage 3"` (the `zero` lab dispatches here).

use crate::config::{Collectives, Config};
use crate::memory;
use crate::staged3::staging3_formula;
use crate::trainer3::Trainer3;
use crate::zero3::Sharded;
use ch06::data::Dataset;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::trace::{self, Traced};

/// Marks of the figure: forward gather, backward gather, gradient reduce-scatter.
const KINDS: [&str; 3] = ["f", "b", "g"];

/// The phase and layer of send `i` of a ZeRO-3 step on the ring over `n` ranks with
/// `layers` layers: N - 1 sends per collective; each layer's forward allgather in order,
/// then from the last layer down, its backward allgather and its reduce-scatter.
fn mark(i: usize, n: usize, layers: usize) -> i64 {
    let c = i / (n - 1);
    let (kind, layer) = if c < layers {
        (0, c)
    } else {
        let k = c - layers;
        (1 + k % 2, layers - 1 - k / 2)
    };
    (kind * 1000 + layer) as i64
}

/// Runs the lab at stage 3 on `world` (every rank), its state on `device` (staged unless
/// the CPU), and prints its report on rank 0.
pub fn run(
    world: &SimpleCommunicator,
    cfg: &Config,
    (train, test): (&Dataset, &Dataset),
    threads: usize,
    device: Device,
) -> Result<(), String> {
    let n = world.size() as usize;
    let root = world.rank() == 0;
    let mut t = Trainer3::new_on(world, cfg.clone(), train.image_size(), device)?;
    let padded: Vec<usize> = t.model.units.iter().map(|u| u.layout.padded).collect();
    if root {
        let model = &t.model;
        println!(
            "zero: stage 3 (ZeRO-3) on {n} ranks, model {}: P = {} parameters in {} layers, \
             each its own flat buffer over the {n} ranks; prefetch {}",
            cfg.model.name(),
            model.params(),
            model.units.len(),
            if cfg.prefetch { "on" } else { "off" }
        );
        for u in &model.units {
            let l = &u.layout;
            println!(
                "  layer {:<10} P_l = {:6}, S_l = {:6}, padding {}",
                u.name,
                l.params,
                l.shard,
                l.padding()
            );
        }
        println!(
            "collectives {}; global batch {} ({} per rank), Adam lr {}, {} per rank",
            t.comm().halves.name(),
            cfg.common.batch,
            cfg.common.batch / n,
            cfg.common.lr,
            toolkit::report::counted(threads, "thread")
        );
        if cfg.common.resume {
            println!(
                "resumed at step {} (a checkpoint saved at any number of ranks; each rank read its shard of every layer)",
                t.steps
            );
        }
    }
    let (losses, sent) = t.fit(train);
    if let Some(why) = t.ckpt_error.take() {
        return Err(why);
    }
    if root && !cfg.common.quiet {
        for (e, (loss, (secs, samples))) in losses.iter().zip(&t.epoch_time).enumerate() {
            let rate = *samples as f64 / secs;
            println!(
                "epoch {:2}: train loss {loss:.4}, {rate:.0} samples/s",
                e + 1
            );
        }
    }
    if let Some(dir) = &cfg.common.checkpoint {
        let all = t.model.gathered_values(&t.comm()); // collective
        let fp = ch06::flat::fingerprint(&[Tensor::from_slice(&all)]);
        if root {
            let (steps, dir) = (t.steps, dir.display());
            println!("checkpoint: step {steps} in {dir} (parameters' fingerprint {fp:016x})");
        }
    }
    let idx: Vec<usize> = (0..test.len()).collect();
    let (x, y) = test.batch(&idx);
    let logits = t.model.forward(&t.comm(), &x, None).to_device(Device::Cpu);
    let right = logits.argmax(-1, false).eq_tensor(&y).to_kind(Kind::Double);
    let acc = 100.0 * right.mean(Kind::Double).double_value(&[]);
    if root {
        let steps = t.steps;
        println!("after {steps} steps: test accuracy {acc:.1}%; each rank holds only its shards");
    }
    if cfg.collectives == Collectives::Ring && n > 1 {
        draw(world, &t.model, &t.first_step);
    }
    table(world, &t.model, &padded, sent, cfg)?;
    if let (Some(d), true) = (&t.model.on_device, root) {
        let (bytes, formula) = (d.staging.bytes(), staging3_formula(&padded, n));
        let same = if bytes == formula {
            "exactly"
        } else {
            "NOT equal"
        };
        println!(
            "on {:?}: the table's bytes (shards, gradient shards, Adam m+v, gathered layers); \
             staging on the host (rank 0): {bytes} B, formula 4(L_max + 2 S_max) = {formula} B \
             {same}",
            d.device
        );
    }
    Ok(())
}

/// The first step's messages on the ring, each send marked with its phase and layer,
/// drawn by rank 0 (collective).
fn draw(world: &SimpleCommunicator, model: &Sharded, first: &[Traced]) {
    let n = world.size() as usize;
    let layers = model.units.len();
    let mut k = 0;
    let log: Vec<Traced> = first
        .iter()
        .map(|m| {
            let mut m = *m;
            if m.sent {
                m.first = mark(k, n, layers);
                k += 1;
            }
            m
        })
        .collect();
    if let Some(logs) = trace::gather(world, &log, |m| m.first) {
        let names: Vec<String> = model.units.iter().map(|u| u.name.clone()).collect();
        let label = |x: i64| match x {
            x if x < 0 => String::new(),
            x => format!(
                "{}:{}",
                KINDS[(x / 1000) as usize],
                names[(x % 1000) as usize]
            ),
        };
        trace::draw(
            "One ZeRO-3 step on the ring",
            "step",
            &logs,
            label,
            "ch08/zero-step-3.svg",
        );
    }
}

/// Every rank's bytes held and sent to rank 0, which prints them against the formulas.
fn table(
    world: &SimpleCommunicator,
    model: &Sharded,
    padded: &[usize],
    sent: Option<usize>,
    cfg: &Config,
) -> Result<(), String> {
    let (collectives, prefetch) = (cfg.collectives, cfg.prefetch);
    let n = world.size() as usize;
    let total: usize = padded.iter().sum();
    let formula = memory::formula(memory::Stage::Zero3, total, n) as usize
        + memory::gathered_formula(padded, prefetch);
    let sent_formula = memory::sent_formula_zero3(padded, n);
    let mpi = collectives == Collectives::Mpi;
    let held = model.held();
    let Some(rows) = memory::gather_rows(world, held, sent, formula as f64, sent_formula, mpi)
    else {
        return Ok(());
    };
    println!(
        "bytes per rank at the step's peak (ZeRO-3: 16P/N + 8L{}, P = {} padded per layer to \
         {total}, N = {n}; sent formula 3P(N-1)/N x 4 over the padded layers):",
        if prefetch { " + 4L' (prefetch)" } else { "" },
        model.params()
    );
    println!("{}", toolkit::report::table(&rows));
    let exact = rows.iter().all(|r| r.held == formula);
    println!(
        "held = the formula {}: parameters, gradients and Adam's m and v are 1/N of each padded \
         layer; the gathered peak is the largest layer gathered plus its whole gradient",
        if exact {
            "exactly, on every rank"
        } else {
            "NOT on every rank"
        }
    );
    Ok(())
}
