//! Checks of ex 5.5 (the GPU placement rule), without MPI: random nodes (1-16 ranks,
//! 0-8 GPUs, with and without CUDA_VISIBLE_DEVICES, sharing allowed or not), every local
//! rank of each.
//!
//! Run: `make check CH=05` (your code) or `cargo test -p ch05-hybrid --features solution`.

use crate::gpu_common::{one_sentence, placement_property};
use ch05::placement::choose_gpu;

#[test]
fn ex5_5_every_rank_gets_a_valid_gpu_shared_evenly() {
    if let Err(why) = placement_property(choose_gpu, 400) {
        toolkit::testing::fail(&format!("property `GPU placement` FAILED\n{why}"));
    }
}

#[test]
fn ex5_5_cuda_visible_devices_is_a_list_of_names() {
    let g = choose_gpu(1, 2, 8, Some("6,2"), false).map_err(|e| e.to_string());
    assert_eq!(
        g.as_ref().map(|g| (g.index, g.physical.as_str())),
        Ok((1, "2")),
        "local rank 1 with CUDA_VISIBLE_DEVICES=6,2 uses index 1, which is the node's GPU 2"
    );
}

#[test]
fn ex5_5_nonsense_is_refused_in_one_line() {
    /// (local rank, local size, GPUs, CUDA_VISIBLE_DEVICES, share, what is wrong)
    type Nonsense<'a> = (usize, usize, usize, Option<&'a str>, bool, &'a str);
    let nonsense: [Nonsense; 6] = [
        (0, 1, 4, Some(""), true, "an empty CUDA_VISIBLE_DEVICES"),
        (
            0,
            2,
            4,
            Some("0,,1"),
            true,
            "an empty entry in CUDA_VISIBLE_DEVICES",
        ),
        (0, 2, 4, Some("1,1"), true, "a GPU listed twice"),
        (0, 1, 0, None, true, "no GPU"),
        (2, 2, 4, None, true, "a local rank outside the node"),
        (0, 3, 2, None, false, "3 ranks, 2 GPUs, no sharing"),
    ];
    for (r, size, gpus, vis, share, what) in nonsense {
        match choose_gpu(r, size, gpus, vis, share) {
            Ok(g) => panic!("{what}: accepted (GPU {}); refuse it", g.index),
            Err(why) => {
                if let Err(e) = one_sentence(&why) {
                    panic!("{what}: {e}");
                }
            }
        }
    }
}
