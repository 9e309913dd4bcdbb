//! Given code: what a rank learns about its node before it touches a GPU: its place
//! among the node's ranks, the GPUs CUDA sees, and whether the MPI library can read GPU
//! memory itself (CUDA-aware).

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

// ANCHOR: local
/// This rank's place on its node: (local rank, local size). `split_shared` groups the
/// ranks that share memory (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`), i.e. one node.
pub fn local_place(world: &SimpleCommunicator) -> (usize, usize) {
    let node = world.split_shared(world.rank());
    (node.rank() as usize, node.size() as usize)
}
// ANCHOR_END: local

/// The GPUs this process's CUDA sees (0 on a CPU-only LibTorch or machine).
pub fn visible_gpus() -> usize {
    if tch::Cuda::is_available() {
        tch::Cuda::device_count().max(0) as usize
    } else {
        0
    }
}

/// CUDA_VISIBLE_DEVICES, if set.
pub fn cuda_visible_devices() -> Option<String> {
    std::env::var("CUDA_VISIBLE_DEVICES").ok()
}

/// Whether the MPI library says it can read GPU memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaAware {
    /// It can: a device pointer may be handed to MPI.
    Yes,
    /// It cannot: stage through host memory.
    No,
    /// It did not say (why): assume not.
    Unknown(String),
}

// ANCHOR: cuda_aware
/// Asks Open MPI how it was built: `ompi_info --parsable --all` prints a line ending in
/// `mpi_built_with_cuda_support:value:true` when it was built with CUDA. (In C, Open MPI
/// and MPICH also offer `MPIX_Query_cuda_support()` from `mpi-ext.h`; rsmpi does not bind
/// it.) A build flag is a promise of the library, not of this job: UCX or the transport
/// must also be built with CUDA.
pub fn cuda_aware() -> CudaAware {
    let out = std::process::Command::new("ompi_info")
        .args(["--parsable", "--all"])
        .output();
    let Ok(out) = out else {
        return CudaAware::Unknown("no ompi_info (not Open MPI?)".into());
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let key = "mpi_built_with_cuda_support:value:";
    match text
        .lines()
        .find_map(|l| l.split_once(key).map(|(_, v)| v.trim()))
    {
        Some("true") => CudaAware::Yes,
        Some(_) => CudaAware::No,
        None => CudaAware::Unknown("ompi_info does not say".into()),
    }
}
// ANCHOR_END: cuda_aware
