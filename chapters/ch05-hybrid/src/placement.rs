//! Exercise 5.5: which GPU this rank uses.
//!
//! Check: `make check CH=05` (tests `ex5_5_*`: every index valid, GPUs shared evenly, no
//! two local ranks on one GPU when there are enough, CUDA_VISIBLE_DEVICES respected,
//! nonsense refused in a sentence that names the fix).
#![allow(unused_variables)] // the stub does not use its arguments yet

// ANCHOR: gpu
/// The GPU a rank chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// The index to give LibTorch (`Device::Cuda(index)`): a position among the GPUs this
    /// process can see, counted from 0.
    pub index: usize,
    /// The GPU as the node names it (`nvidia-smi`): the `index`-th entry of
    /// CUDA_VISIBLE_DEVICES when it is set, else the index itself.
    pub physical: String,
}
// ANCHOR_END: gpu

// ANCHOR: choose
/// Chooses this rank's GPU from its place on the node.
///
/// - `local_rank`, `local_size`: this rank among the ranks of its node
///   (`world.split_shared(..)`: rank and size of the node's communicator);
/// - `gpus`: the GPUs CUDA counts on the node when CUDA_VISIBLE_DEVICES is unset;
/// - `visible`: the value of CUDA_VISIBLE_DEVICES if set (comma-separated ids). CUDA then
///   sees only those, renumbered from 0: the list, not `gpus`, says how many there are;
/// - `share`: whether several ranks may use one GPU.
///
/// Local ranks go round the visible GPUs (rank r takes GPU r mod count). Refused, with a
/// sentence that names the fix: a local rank outside the node, no GPU at all (an empty
/// list included), an empty or repeated entry in the list, and more ranks than GPUs
/// unless `share`.
pub fn choose_gpu(
    local_rank: usize,
    local_size: usize,
    gpus: usize,
    visible: Option<&str>,
    share: bool,
) -> Result<Gpu, String> {
    // TODO(ex 5.5): parse the visible list (or count 0..gpus), refuse nonsense, then local_rank mod count
    todo!("ex 5.5: pick this local rank's GPU among the visible ones")
}
// ANCHOR_END: choose
