//! Checks of the node-local transport (`--transport shm`, given code, not an exercise):
//! the trainer moving its micro-batches through a shared-memory window prints the same
//! losses as with ex 7.2's MPI messages, bit for bit, at p = 2, 3, 4, with GPipe and
//! 1F1B, and with `--dp 2`; a sender that does not wait for its ack before writing a slot
//! again is caught by the receiver; bad combinations are refused in one line before any
//! communication, `--transport ipc` on a CPU with the reason.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main node_link::`.

use ch07::node_link;
use ch07::pipe_config::{PipeConfig, Transport};
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::plan::ScheduleKind;
use ch07::transport;
use ch07::transport::{recv_via_link, send_via_link};
use mpi::traits::*;
use std::time::Duration;
use tch::{Device, Kind, Tensor};
use toolkit::mpi_test;
use trainer_kit::testing::check_refusals;

/// 4 blocks of width 16 over 2-digit addition, batch 16 in 4 micro-batches, in f64.
fn tiny(transport: Transport, schedule: ScheduleKind, dp: usize) -> PipeConfig {
    let mut c = PipeConfig {
        micro: 4,
        steps: 3,
        dp,
        transport,
        schedule: schedule.into(),
        ..PipeConfig::default()
    };
    (c.common.batch, c.common.quiet) = (32, true);
    c.shape.task.digits = 2;
    (c.shape.width, c.shape.depth) = (16, 4);
    c.shape.dtype = ch07::wire::Dtype::F64;
    c
}

fn losses(world: &mpi::topology::SimpleCommunicator, cfg: PipeConfig) -> Result<Vec<u64>, String> {
    let mut t = PipeTrainer::new(world, cfg, learner_transfer::<f64>(), Device::Cpu)?;
    let mut out = vec![];
    while t.step < t.cfg.steps {
        out.push(t.train_step()?.to_bits());
    }
    Ok(out)
}

mpi_test! {
    fn shm_transport_trains_like_mpi_bit_for_bit(world at &[2, 3, 4]) {
        tch::set_num_threads(1);
        let size = world.size() as usize;
        let grids: &[usize] = if size == 4 { &[1, 2] } else { &[1] };
        for &dp in grids {
            for kind in [ScheduleKind::GPipe, ScheduleKind::OneFOneB] {
                let by_mpi = losses(world, tiny(Transport::Mpi, kind, dp))?;
                let by_shm = losses(world, tiny(Transport::Shm, kind, dp))?;
                if by_mpi != by_shm {
                    let f = |v: &[u64]| v.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>();
                    return Err(format!(
                        "{kind:?}, {dp} x {} grid: losses by mpi {:?}, by shm {:?}",
                        size / dp, f(&by_mpi), f(&by_shm)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Rank 0 sends micro-batches 0, 1, 2 to rank 1 (each doorbell completed at once), which
/// starts receiving only after a pause; then rank 1's verdicts on what it read.
fn three_through_two_slots(
    world: &mpi::topology::SimpleCommunicator,
    skip_ack_wait: bool,
) -> Result<Vec<Result<(), String>>, String> {
    let shape = [3i64, 5];
    let value = |tag: i32| Tensor::full(shape, f64::from(tag) + 0.25, (Kind::Double, Device::Cpu));
    let link = transport::link::<f64>(world, world, Transport::Shm, (15, 15), Device::Cpu)?;
    let _guard = link.map(node_link::install);
    node_link::with_link(|l| l.planted_skip_ack_wait = skip_ack_wait);
    let mut verdicts = vec![];
    if world.rank() == 0 {
        let mut buf = Vec::<f64>::new();
        for tag in 0..3 {
            mpi::request::scope(|scope| {
                send_via_link(world, 1, tag, &value(tag), &shape, &mut buf, scope).map(|r| {
                    r.wait();
                })
            })?;
        }
    } else {
        std::thread::sleep(Duration::from_millis(300)); // the sender is as far ahead as it can be
        for tag in 0..3 {
            let got = recv_via_link::<f64>(world, 0, tag, &shape, Device::Cpu);
            verdicts.push(got.and_then(|t| match t.equal(&value(tag)) {
                true => Ok(()),
                false => Err(format!("micro-batch {tag}: other values")),
            }));
        }
    }
    node_link::flush(world);
    Ok(verdicts)
}

mpi_test! {
    fn an_ack_not_awaited_is_caught_by_the_receiver(world at &[2]) {
        // The protocol: the third send waits for the ack of the first (2 slots), so each
        // micro-batch is read intact however late the receiver is.
        let right = three_through_two_slots(world, false)?;
        let mine = match right.iter().find(|v| v.is_err()) {
            Some(Err(why)) => Err(format!("with the acks awaited: {why}")),
            _ => Ok(()),
        };
        toolkit::lockstep::agree(world, mine)?;
        // Planted: the sender writes slot 0 again (micro-batch 2) before micro-batch 0 was
        // read; the receiver finds micro-batch 2's header where it expects 0.
        let planted = three_through_two_slots(world, true)?;
        let mine = match (world.rank(), planted.first()) {
            (0, _) => Ok(()),
            (_, Some(Err(why))) if why.contains("slot 0 from rank 0 holds micro-batch 2, not 0") => Ok(()),
            (_, other) => Err(format!("a slot written again before its ack was not caught: {other:?}")),
        };
        toolkit::lockstep::agree(world, mine)
    }
}

#[test]
fn bad_transport_settings_fail_in_one_line_before_any_communication() {
    let no_ipc = trainer_kit::cuda_ipc::Runtime::load().err();
    let ipc_why = format!("--transport ipc: {}", no_ipc.clone().unwrap_or_default());
    let mut cases: Vec<(&[&str], &str)> = vec![
        (
            &["--transport", "shm", "--schedule", "interleaved"],
            "--transport shm runs with --schedule gpipe or 1f1b only (one stream each way between neighbours, received in order): interleaved holds several stages per rank",
        ),
        (
            &["--transport", "shm", "--schedule", "zb-h1"],
            "--transport shm runs with --schedule gpipe or 1f1b only (one stream each way between neighbours, received in order): zb-h1 runs on ex 7.9's executor",
        ),
        (&["--transport", "tcp"], "unknown --transport `tcp`"),
    ];
    if no_ipc.is_some() {
        cases.push((&["--transport", "ipc"], &ipc_why));
    }
    check_refusals(env!("CARGO_BIN_EXE_pipeline"), "pipeline", 2, &cases);
}
