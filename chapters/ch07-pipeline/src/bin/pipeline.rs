//! Lab: pipeline-parallel training of a residual MLP on multi-digit addition, on NP ranks
//! (default 4): NP / dp stages per pipeline, `--dp` pipelines.
//!
//! Run: `make run CH=07 SOLUTION=1` (or `cargo run --release -p ch07-pipeline --features
//! solution --bin pipeline -- --help`). Expect: a header (model, stages and their blocks,
//! schedule, micro-batches), then a fixed-width line every 500 steps (--report): step, loss,
//! exact-match accuracy on held-out problems, samples/s and the measured bubble share.
//! `--trace FILE` also writes the last step's timeline as FILE.json and FILE.svg.
//! `--schedule interleaved --chunks V` (V chunks per rank) and `--schedule zb-h1` run the
//! plans of ex 7.7 and 7.8 through ex 7.9's executor (`chunked_train`), e.g. `make run
//! CH=07 SOLUTION=1 NP=2 ARGS="--schedule interleaved --chunks 2"`. `--transport shm|ipc`
//! moves the micro-batches through node-local slots instead of ex 7.2's messages.

use ch07::chunked_train::ChunkedTrainer;
use ch07::pipe_config::{PipeConfig, TrainSchedule, Transport};
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::spans::{sync_lines, timeline_svg, trace_json};
use ch07::train_loop::{self, PipelineRun};
use ch07::wire::{Dtype, WireElem};
use mpi::traits::*;
use trainer_kit::entry::Report;

fn main() {
    // Bad settings: one line, before MPI starts (no rank has communicated yet).
    let cfg: PipeConfig = trainer_kit::cli::from_command_line();
    // The model's element type picks the transfer's (f32 by default, `--dtype f64`).
    trainer_kit::entry::run_and_exit("pipeline", Report::EveryRank, |world| {
        match cfg.shape.dtype {
            Dtype::F32 => run::<f32>(world, cfg),
            Dtype::F64 => run::<f64>(world, cfg),
        }
    })
}

fn run<E: WireElem>(
    world: &mpi::topology::SimpleCommunicator,
    cfg: PipeConfig,
) -> Result<(), String> {
    let device = trainer_kit::place::place(world, cfg.common.device, cfg.common.threads).device;
    let io = learner_transfer::<E>();
    match cfg.schedule {
        TrainSchedule::Stages(_) => lab(world, &mut PipeTrainer::new(world, cfg, io, device)?),
        _ => lab(world, &mut ChunkedTrainer::new(world, cfg, io, device)?),
    }
}

/// The lab on this rank's trainer `t`: the header, the run, the trace, the last line.
fn lab(world: &mpi::topology::SimpleCommunicator, t: &mut impl PipelineRun) -> Result<(), String> {
    let cfg = t.cfg().clone();
    let held: i64 = t.stages().iter().map(|s| s.count()).sum();
    let mut params = 0.0;
    world.all_reduce_into(
        &((held as f64) * f64::from(u8::from(t.grid().replica == 0))),
        &mut params,
        mpi::collective::SystemOperation::sum(),
    );
    let (dp, pp, v) = (t.grid().dp, t.grid().pp, cfg.chunks());
    if world.rank() == 0 {
        let sh = cfg.shape;
        println!(
            "model: {} residual blocks of width {}, {params} parameters ({}); task: {}-digit addition",
            sh.depth, sh.width, sh.dtype.name(), sh.task.digits
        );
        let cut: Vec<String> = (0..v * pp)
            .map(|s| format!("{:?}", toolkit::split::block_range(sh.depth, v * pp, s)))
            .collect();
        // The transport is named when it is not ex 7.2's messages (`--transport shm|ipc`).
        let transport = match cfg.transport {
            Transport::Mpi => String::new(),
            other => format!(", transport {}", format!("{other:?}").to_lowercase()),
        };
        println!(
            "{dp} x {pp} grid: {dp} pipeline(s) of {} (blocks {}), schedule {:?}, batch {} = {dp} x {} micro-batches of {}, device {:?}{transport}",
            layout(pp, v), cut.join(" "), cfg.schedule, cfg.common.batch, cfg.micro,
            cfg.common.batch / dp / cfg.micro, t.stages()[0].device
        );
        if t.steps_taken() > 0 {
            println!("resumed at step {}", t.steps_taken());
        }
    }
    let acc = train_loop::fit(t)?;
    if let (Some(file), Some(stages)) = (&cfg.trace, train_loop::gather_trace(t.grid(), t.trace()))
    {
        let title = format!(
            "{:?}, {} x {} micro-batches, step {}",
            cfg.schedule,
            layout(pp, v),
            cfg.micro,
            t.steps_taken()
        );
        let write = |ext: &str, text: &str| {
            let path = file.with_extension(ext);
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
        };
        write("json", &trace_json(&title, &stages))?;
        write("svg", &timeline_svg(&title, &stages))?;
        println!(
            "wrote {} and {}",
            file.with_extension("json").display(),
            file.with_extension("svg").display()
        );
        sync_lines(&stages).iter().for_each(|l| println!("{l}"));
    }
    if world.rank() == 0 && !cfg.common.quiet {
        println!(
            "held-out exact-match accuracy after {} steps: {acc:.1}%",
            t.steps_taken()
        );
    }
    Ok(())
}

/// "4 stages", or with chunks "2 ranks x 2 chunks = 4 stages" (stage s on rank s mod p).
fn layout(pp: usize, v: usize) -> String {
    match v {
        1 => format!("{pp} stages"),
        _ => format!("{pp} ranks x {v} chunks = {} stages", pp * v),
    }
}
