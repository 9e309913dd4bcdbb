//! Given: where each rank runs. Ranks on the same node find each other with
//! `split_shared` (MPI_Comm_split_type SHARED); local rank i takes GPU i (mod the GPU
//! count), and the node's cores are shared out: threads per rank = cores / local ranks.

use crate::config::DeviceChoice;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;

/// One rank's device and threads.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub device: Device,
    /// This rank's index among the ranks of its node.
    pub local_rank: usize,
    /// Ranks on this node.
    pub local_ranks: usize,
    /// LibTorch intra-op threads for this rank.
    pub threads: usize,
    /// Cores this process may use.
    pub cores: usize,
}

// ANCHOR: place
/// Decides this rank's device and sets its thread count (`threads` overrides the share).
/// `choice` was checked by `config::check`: `Cuda` here means a GPU is there.
pub fn place(
    world: &SimpleCommunicator,
    choice: DeviceChoice,
    threads: Option<usize>,
) -> Placement {
    let node = world.split_shared(world.rank());
    let (local_rank, local_ranks) = (node.rank() as usize, node.size() as usize);
    let gpus = tch::Cuda::device_count().max(0) as usize;
    let device = match choice {
        DeviceChoice::Cpu => Device::Cpu,
        DeviceChoice::Auto | DeviceChoice::Cuda if gpus > 0 => Device::Cuda(local_rank % gpus),
        _ => Device::Cpu,
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = threads.unwrap_or((cores / local_ranks).max(1));
    tch::set_num_threads(threads as i32);
    Placement {
        device,
        local_rank,
        local_ranks,
        threads,
        cores,
    }
}
// ANCHOR_END: place
