//! Checks of the wire on a GPU (the GPU kit runs them; given code, not an exercise): a
//! device tensor's values cross `wire::copy_out` / `copy_in` bit for bit through pinned
//! memory (the buffers copies in start from allocated once per size); and the trainer with `--transport ipc` (CUDA IPC,
//! device to device) trains like `--transport mpi` at 2 stages. On a CPU: a CPU tensor
//! takes the ordinary path (no pinned buffer), and the IPC check says why it is skipped.
//!
//! Run: `cargo test -p ch07-pipeline --features solution --test main device_wire::`.

use ch07::pinned;
use ch07::pipe_config::{PipeConfig, Transport};
use ch07::pipe_train::{learner_transfer, PipeTrainer};
use ch07::wire;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

fn values(n: i64, device: Device) -> Tensor {
    (Tensor::arange(n, (Kind::Double, device)) / 7.0 + 0.1).view([n / 4, 4])
}

#[test]
fn staging_round_trips_bit_for_bit_pinned_on_a_gpu() {
    let device = match tch::Cuda::is_available() {
        true => Device::Cuda(0),
        false => Device::Cpu,
    };
    for n in [4i64, 4096, 1 << 20] {
        for round in 0..3 {
            let t = values(n, device) + f64::from(round);
            let mut buf = Vec::<f64>::new();
            wire::copy_out(&t, &mut buf);
            let host = t.to_device(Device::Cpu);
            let want: Vec<f64> = Vec::try_from(host.view([-1])).unwrap();
            assert!(
                buf.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
                    && buf.len() == want.len(),
                "{n} values out, round {round}"
            );
            let back = wire::copy_in(&buf, &t.size(), device);
            assert_eq!(back.device(), device);
            assert!(back.equal(&t), "{n} values back in, round {round}");
        }
    }
    match device {
        Device::Cpu => assert_eq!(
            pinned::buffers_held(),
            0,
            "a CPU tensor took the pinned path"
        ),
        gpu => {
            // Copies in: one buffer per size, reused by every round; copies out land in
            // pinned memory too.
            assert_eq!(pinned::buffers_held(), 3, "pinned buffers not reused");
            let b = pinned::buffer(Kind::Double, 4096, gpu);
            assert!(
                b.is_pinned(gpu),
                "the buffer copies in start from is pageable"
            );
            assert_eq!(pinned::buffers_held(), 3);
            let out = pinned::stage_out(&values(4096, gpu), Kind::Double);
            assert!(out.is_pinned(gpu), "a copy out landed in pageable memory");
        }
    }
}

#[test]
fn ipc_transport_trains_like_mpi_on_gpus() {
    if torch_link::skip_without_gpu(
        "ipc_transport_trains_like_mpi_on_gpus",
        tch::Cuda::is_available(),
    ) {
        return;
    }
    toolkit::testing::at_ranks("ipc_transport_trains_like_mpi_on_gpus", &[2], |world| {
        let device = Device::Cuda(world.rank() as usize % tch::Cuda::device_count() as usize);
        let run = |transport: Transport| -> Result<Vec<f64>, String> {
            let mut c = PipeConfig {
                micro: 4,
                steps: 5,
                transport,
                ..PipeConfig::default()
            };
            c.common.device = trainer_kit::cli::DeviceChoice::Cuda;
            (c.common.batch, c.common.quiet) = (64, true);
            c.shape.dtype = wire::Dtype::F64;
            let mut t = PipeTrainer::new(world, c, learner_transfer::<f64>(), device)?;
            (0..5).map(|_| t.train_step()).collect()
        };
        let (by_mpi, by_ipc) = (run(Transport::Mpi)?, run(Transport::Ipc)?);
        let worst = by_mpi
            .iter()
            .zip(&by_ipc)
            .map(|(a, b)| ((a - b) / a).abs())
            .fold(0.0, f64::max);
        let mine = match worst <= 1e-12 {
            true => Ok(()),
            false => Err(format!("losses by mpi {by_mpi:?}, by ipc {by_ipc:?}")),
        };
        toolkit::lockstep::agree(world, mine)
    });
}
