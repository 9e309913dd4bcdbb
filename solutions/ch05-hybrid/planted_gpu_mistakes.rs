//! The GPU half's planted mistakes: wrong answers on purpose, and what the checks say
//! about them. The placement property runs without MPI; the staging mistake runs the
//! ex 5.6 property under mpirun through `launch_self`, like the other chapters' planted
//! mistakes.
//!
//! Run: `cargo test -p ch05-hybrid --features solution --test planted_gpu_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch05-hybrid/tests/gpu_common/mod.rs"]
mod gpu_common;
use ch05::placement::Gpu;
use ch05::stream::{to_device, Staging, TorchElem};
use gpu_common::{placement_property, staging_property};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Duration;
use tch::Tensor;
use toolkit::testing::{assert_failed_within, launch_self, learner_view, run_body};

// ANCHOR: every_rank_on_gpu0
/// Mistake 1: every rank takes `Device::Cuda(0)` (the default of most examples). On a
/// node of 4 GPUs, 4 ranks crowd one GPU and 3 stay idle; nothing fails, it is just slow
/// (or out of memory).
fn every_rank_on_gpu0(
    local_rank: usize,
    local_size: usize,
    gpus: usize,
    visible: Option<&str>,
    share: bool,
) -> Result<Gpu, String> {
    let chosen = ch05::placement::choose_gpu(local_rank, local_size, gpus, visible, share)?;
    let physical = match visible {
        Some(list) => list
            .split(',')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string(),
        None => "0".to_string(),
    };
    let _ = chosen; // the local rank is known, and ignored
    Ok(Gpu { index: 0, physical })
}
// ANCHOR_END: every_rank_on_gpu0

#[test]
fn every_rank_on_gpu_0_is_caught() {
    let why = placement_property(every_rank_on_gpu0, 400).expect_err("the mistake passed");
    assert!(why.contains("both use GPU 0"), "{why}");
    println!("{why}");
}

// ANCHOR: unsynchronised
/// Mistake 2: the pipeline of ex 5.6 without `stream.synchronize()`: MPI is handed a
/// slot whose copy was started but has not landed. With plain `cudaMemcpyAsync` into
/// pinned memory this is a race that MPI wins or loses from run to run; the chapter's
/// stream (CPU or GPU) lands a copy only at `synchronize`, so it loses it always.
fn unsynchronised<T: TorchElem, C: Communicator>(
    comm: &C,
    t: &mut Tensor,
    staging: &mut Staging<T>,
) {
    let n = t.numel();
    if n == 0 {
        return;
    }
    let Staging {
        chunk,
        slots,
        stream,
    } = staging;
    let chunk = (*chunk).min(n);
    let chunks = n.div_ceil(chunk);
    let len_of = |k: usize| chunk.min(n - k * chunk);
    // SAFETY: not kept: MPI reads slot 0 before the copy lands (the planted mistake).
    unsafe { stream.start_to_host(t, 0, &mut slots[0].send, len_of(0)) };
    for k in 0..chunks {
        // (missing: stream.synchronize())
        let (len, next) = (len_of(k), k + 1);
        let [a, b] = slots;
        let (cur, other) = if k % 2 == 0 { (a, b) } else { (b, a) };
        mpi::request::scope(|scope| {
            let request = comm.immediate_all_reduce_into(
                scope,
                &cur.send[..len],
                &mut cur.recv[..len],
                SystemOperation::sum(),
            );
            if next < chunks {
                // SAFETY: not kept either (the planted mistake).
                unsafe { stream.start_to_host(t, next * chunk, &mut other.send, len_of(next)) };
            }
            request.wait();
        });
        to_device(t, k * chunk, &cur.recv[..len]);
    }
    stream.synchronize(); // too late: the copies land after MPI has read the slots
}
// ANCHOR_END: unsynchronised

#[test]
#[ignore = "planted mistake: started by a_buffer_handed_to_mpi_before_its_copy_landed_is_caught"]
fn planted_unsynchronised() {
    run_body("planted_unsynchronised", |world| {
        staging_property(
            world,
            unsynchronised::<i64, SimpleCommunicator>,
            unsynchronised::<f32, SimpleCommunicator>,
            40,
        )
    });
}

#[test]
fn a_buffer_handed_to_mpi_before_its_copy_landed_is_caught() {
    for ranks in [1, 3] {
        let out = launch_self("planted_unsynchronised", ranks, &[]);
        let text = assert_failed_within(&out, Duration::from_secs(60));
        assert!(text.contains("minimal failing case"), "{text}");
        assert!(text.contains("element 0 is 0"), "{text}");
        println!("{}", learner_view(&out));
    }
}
