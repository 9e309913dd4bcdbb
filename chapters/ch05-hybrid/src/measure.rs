//! Given code for the `gpu` lab and the `staging_bench` benchmark: timings of the host
//! and staged paths, and the machine's [`Links`] measured on this job.

use crate::links::Links;
use crate::staging::staged_allreduce;
use crate::stream::Staging;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;
use tch::{Device, Kind, Tensor};
use toolkit::report::Timing;

/// Repetitions for a message of `bytes` bytes: about 32 MiB moved, 3 to 200 times.
pub fn reps_for(bytes: usize) -> usize {
    ((32usize << 20) / bytes.max(1)).clamp(3, 200)
}

/// Seconds per call of `body` (after one warm-up), the slowest rank's mean.
pub fn seconds_per(world: &SimpleCommunicator, reps: usize, mut body: impl FnMut()) -> f64 {
    body();
    world.barrier();
    let start = Instant::now();
    for _ in 0..reps {
        body();
    }
    Timing::over_ranks(world, start.elapsed().as_secs_f64() / reps as f64).max
}

/// Seconds per call of `body` (after one warm-up): each rank's median over `reps` calls,
/// the slowest rank's. On a machine shared with other work a mean is pulled up by the
/// calls that lost their core; the median is not.
pub fn median_per(world: &SimpleCommunicator, reps: usize, mut body: impl FnMut()) -> f64 {
    body();
    world.barrier();
    let mut times: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            body();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Timing::over_ranks(world, times[times.len() / 2]).max
}

/// A 1-D f32 tensor of `n` elements on `device`, every element `rank + 1`.
pub fn tensor(world: &SimpleCommunicator, n: usize, device: Device) -> Tensor {
    Tensor::full(
        [n as i64],
        f64::from(world.rank() + 1),
        (Kind::Float, device),
    )
}

/// MPI_Allreduce of `n` f32 in host memory.
pub fn host_allreduce(world: &SimpleCommunicator, n: usize) -> f64 {
    let send = vec![1.0f32; n];
    let mut recv = vec![0.0f32; n];
    seconds_per(world, reps_for(4 * n), || {
        world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum())
    })
}

/// Ex 5.6 on a tensor of `n` f32 on `device`, in chunks of `chunk` elements (the mean).
pub fn staged(world: &SimpleCommunicator, n: usize, chunk: usize, device: Device) -> f64 {
    staged_by(world, (n, chunk, device), false)
}

/// [`staged`], timed by the median ([`median_per`]) when `median`, else the mean.
pub fn staged_by(
    world: &SimpleCommunicator,
    (n, chunk, device): (usize, usize, Device),
    median: bool,
) -> f64 {
    let mut t = tensor(world, n, device);
    let mut staging = Staging::<f32>::new(chunk, n, device).expect("chunk >= 1");
    let body = || staged_allreduce(world, &mut t, &mut staging);
    match median {
        true => median_per(world, reps_for(4 * n), body),
        false => seconds_per(world, reps_for(4 * n), body),
    }
}

/// One-way time of a ping-pong of `n` f32 between ranks 0 and 1 (others wait), from
/// host memory, or staged from `device` (copy to the host, send; receive, copy back).
pub fn pingpong(world: &SimpleCommunicator, n: usize, device: Option<Device>) -> f64 {
    let rank = world.rank();
    let mut buf = vec![0.0f32; n];
    let mut t = device.map(|d| tensor(world, n, d));
    let rtt = seconds_per(world, reps_for(4 * n), || {
        if rank > 1 {
            return;
        }
        let peer = world.process_at_rank(1 - rank);
        let mut leg = |sending: bool| {
            if sending {
                if let Some(t) = &t {
                    t.copy_data(&mut buf, n);
                }
                peer.send(&buf[..]);
            } else {
                peer.receive_into(&mut buf[..]);
                if let Some(t) = &mut t {
                    crate::stream::to_device(t, 0, &buf);
                }
            }
        };
        leg(rank == 0);
        leg(rank == 1);
    });
    rtt / 2.0
}

/// Measures [`Links`] on this job: alpha and beta from host ping-pongs of 8 B and
/// 4 MiB, gamma from summing two 4 MiB vectors, and the copy terms from staging copies
/// of 8 B and 4 MiB between `device` and the host.
pub fn measure_links(world: &SimpleCommunicator, device: Device) -> Links {
    let (small, large) = (2usize, 1usize << 20); // f32 elements: 8 B and 4 MiB
    let fit = |t_small: f64, t_large: f64| {
        let beta = 4.0 * (large - small) as f64 / (t_large - t_small).max(1e-12);
        ((t_small - 8.0 / beta).max(0.0), beta)
    };
    let (alpha, beta) = if world.size() > 1 {
        fit(pingpong(world, small, None), pingpong(world, large, None))
    } else {
        (0.0, f64::INFINITY)
    };
    let (mut a, b) = (vec![1.0f32; large], vec![2.0f32; large]);
    let add = seconds_per(world, 20, || {
        a.iter_mut().zip(&b).for_each(|(x, y)| *x += y)
    });
    let copy = |n: usize| {
        let t = tensor(world, n, device);
        let mut buf = vec![0.0f32; n];
        seconds_per(world, reps_for(4 * n), || t.copy_data(&mut buf, n))
    };
    let (copy_alpha, copy_beta) = fit(copy(small), copy(large));
    Links {
        alpha,
        beta,
        gamma: add / (4 * large) as f64,
        copy_alpha,
        copy_beta,
    }
}
