//! Exercise 5.5: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=05 SOLUTION=1`, `cargo test -p ch05-hybrid --features solution`).

// ANCHOR: gpu
/// The GPU a rank chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// The index to give LibTorch (`Device::Cuda(index)`).
    pub index: usize,
    /// The GPU as the node names it (`nvidia-smi`).
    pub physical: String,
}
// ANCHOR_END: gpu

// ANCHOR: choose
/// Chooses this rank's GPU from its place on the node: local rank mod the visible GPUs.
pub fn choose_gpu(
    local_rank: usize,
    local_size: usize,
    gpus: usize,
    visible: Option<&str>,
    share: bool,
) -> Result<Gpu, String> {
    if local_rank >= local_size {
        return Err(format!(
            "local rank {local_rank} of a node with {local_size} ranks: take both from \
             the node's communicator (world.split_shared)"
        ));
    }
    let names: Vec<String> = match visible {
        None => (0..gpus).map(|i| i.to_string()).collect(),
        Some(list) if list.trim().is_empty() => {
            return Err(
                "CUDA_VISIBLE_DEVICES is set but empty, so CUDA sees no GPU: \
                        unset it or list the GPUs (e.g. 0,1)"
                    .into(),
            )
        }
        Some(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
    };
    if let Some(i) = names.iter().position(String::is_empty) {
        return Err(format!(
            "CUDA_VISIBLE_DEVICES={:?} has an empty entry at position {i}: list ids \
             separated by single commas",
            visible.unwrap_or_default()
        ));
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(format!(
                "CUDA_VISIBLE_DEVICES lists GPU {name} twice: list each GPU once"
            ));
        }
    }
    let count = names.len();
    if count == 0 {
        return Err("no GPU on this node: run on the CPU (no --device cuda)".into());
    }
    if local_size > count && !share {
        return Err(format!(
            "{local_size} ranks on this node but {count} GPU(s): start at most {count} \
             rank(s) per node, or allow ranks to share a GPU"
        ));
    }
    let index = local_rank % count;
    Ok(Gpu {
        index,
        physical: names[index].clone(),
    })
}
// ANCHOR_END: choose
