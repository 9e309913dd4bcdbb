//! Where a rank runs: the cores it may use, its device and its LibTorch threads.
//!
//! mpirun decides where each rank may run (its *binding*); the kernel keeps that as the
//! rank's CPU affinity, which [`allowed_cpus`] reads (`sched_getaffinity`). An unbound
//! rank may run on every core of its node, which its node's ranks share; a bound rank has
//! its own cores. [`rank_cores`] says how many cores that leaves one rank, for every
//! trainer (and chapter 5's labs) alike.

use crate::cli::DeviceChoice;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::Device;
use toolkit::report::host_cores;

/// The CPUs this process may run on (its affinity mask), in increasing order.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity(0) fills it for
    // this thread, within the size we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if libc::sched_getaffinity(0, size, &mut set) != 0 {
            return vec![];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// This rank's place on its node: `(local rank, ranks on this node)`, from the
/// communicator of the ranks that share memory with it (`MPI_Comm_split_type`).
pub fn node_local(world: &SimpleCommunicator) -> (usize, usize) {
    let node = world.split_shared(world.rank());
    (node.rank() as usize, node.size() as usize)
}

// ANCHOR: rank_cores
/// The cores one rank may use, when `local_ranks` ranks share its node: a rank bound to
/// some cores (an affinity mask narrower than the node) has those; an unbound rank shares
/// the node's cores with the other ranks on it. At least 1.
pub fn rank_cores(local_ranks: usize) -> usize {
    cores_for(allowed_cpus().len(), host_cores(), local_ranks)
}
// ANCHOR_END: rank_cores

/// [`rank_cores`] from its readings: `allowed` CPUs in the mask, `online` on the node.
fn cores_for(allowed: usize, online: usize, local_ranks: usize) -> usize {
    match allowed {
        0 => (online / local_ranks.max(1)).max(1), // the mask could not be read
        a if a >= online => (a / local_ranks.max(1)).max(1),
        a => a,
    }
}

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
    /// Cores this rank may use ([`rank_cores`]).
    pub cores: usize,
}

// ANCHOR: place
/// Decides this rank's device and sets its LibTorch threads: `threads` if given, else the
/// cores this rank may use. The local rank picks its GPU (mod the GPU count); `Cuda` was
/// checked before (a GPU is there), `Auto` falls back to the CPU.
pub fn place(
    world: &SimpleCommunicator,
    choice: DeviceChoice,
    threads: Option<usize>,
) -> Placement {
    let (local_rank, local_ranks) = node_local(world);
    let gpus = tch::Cuda::device_count().max(0) as usize;
    let device = match choice {
        DeviceChoice::Cpu => Device::Cpu,
        DeviceChoice::Auto | DeviceChoice::Cuda if gpus > 0 => Device::Cuda(local_rank % gpus),
        _ => Device::Cpu,
    };
    if let (Device::Cuda(_), Some(warning)) = (device, gpu_sharing(local_ranks, gpus)) {
        if local_rank == 0 {
            eprintln!("{warning}");
        }
    }
    let cores = rank_cores(local_ranks);
    let threads = threads.unwrap_or(cores).max(1);
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

/// The one-line warning when the `local_ranks` ranks of a node share its `gpus` GPUs: their
/// kernels take turns on each GPU and every gradient goes through the host, so one rank per
/// GPU is faster. `None` when each rank has a GPU of its own (or there is none).
pub fn gpu_sharing(local_ranks: usize, gpus: usize) -> Option<String> {
    (gpus > 0 && local_ranks > gpus).then(|| {
        let per_gpu = local_ranks.div_ceil(gpus);
        format!(
            "warning: {local_ranks} ranks share {gpus} GPU(s) on this node (up to {per_gpu} \
             per GPU): their kernels take turns; for speed run one rank per GPU (NP={gpus} \
             per node)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_sharing_a_gpu_are_warned() {
        assert_eq!(gpu_sharing(1, 1), None);
        assert_eq!(gpu_sharing(4, 0), None); // no GPU: nothing shared
        assert_eq!(gpu_sharing(8, 8), None);
        let w = gpu_sharing(4, 1).unwrap();
        assert!(
            w.contains("4 ranks share 1 GPU(s)") && w.contains("NP=1"),
            "{w}"
        );
        assert!(gpu_sharing(3, 2).unwrap().contains("up to 2 per GPU"));
    }

    #[test]
    fn bound_ranks_keep_their_cores_and_unbound_ranks_share_the_node() {
        assert_eq!(cores_for(16, 16, 4), 4); // unbound: the node shared
        assert_eq!(cores_for(16, 16, 32), 1); // more ranks than cores: 1 each
        assert_eq!(cores_for(2, 16, 4), 2); // bound to 2 cores
        assert_eq!(cores_for(1, 16, 16), 1); // bound to one core
        assert_eq!(cores_for(0, 8, 2), 4); // no mask: the node shared
    }

    #[test]
    fn this_process_may_use_some_cores() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty() && cpus.len() <= host_cores(), "{cpus:?}");
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?}");
        assert!((1..=host_cores()).contains(&rank_cores(1)));
    }
}
