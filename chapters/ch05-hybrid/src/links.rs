//! Given code: the costs a staged allreduce adds up.
//!
//! Chapter 1's alpha-beta model prices one message, `alpha + n / beta`; chapter 3 adds
//! `n * gamma` per byte reduced and prices the ring allreduce. A GPU buffer adds two
//! copies across the host link (PCIe or NVLink), each priced the same way:
//! `copy_alpha + n / copy_beta`, where `copy_beta` depends on the host memory: pinned
//! (page-locked) memory is copied by the GPU's DMA engine at full speed; pageable memory
//! goes through a pinned bounce buffer of the driver, at about half of it.

// ANCHOR: links
/// The machine as a staged allreduce sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Links {
    /// Latency of one MPI message (seconds).
    pub alpha: f64,
    /// MPI bandwidth (bytes per second).
    pub beta: f64,
    /// Seconds to reduce one byte.
    pub gamma: f64,
    /// Latency of one host<->device copy (seconds): the launch of a cudaMemcpy.
    pub copy_alpha: f64,
    /// Bandwidth of a host<->device copy (bytes per second).
    pub copy_beta: f64,
}

impl Links {
    /// One host<->device copy of `bytes` bytes.
    pub fn copy(&self, bytes: f64) -> f64 {
        if bytes <= 0.0 {
            return 0.0;
        }
        self.copy_alpha + bytes / self.copy_beta
    }

    /// A ring allreduce of `bytes` bytes over `p` ranks (chapter 3):
    /// `2(p-1)·alpha + 2(p-1)/p·n/beta + (p-1)/p·n·gamma`; 0 for one rank or no bytes.
    pub fn allreduce(&self, p: usize, bytes: f64) -> f64 {
        if p <= 1 || bytes <= 0.0 {
            return 0.0;
        }
        let pf = p as f64;
        2.0 * (pf - 1.0) * self.alpha
            + 2.0 * (pf - 1.0) / pf * bytes / self.beta
            + (pf - 1.0) / pf * bytes * self.gamma
    }
}
// ANCHOR_END: links

/// Assumed figures of a GPU node (not measured here: see the book's GPU page): an
/// InfiniBand-class network (2 µs, 12 GB/s), a reduction at 20 GB/s, and PCIe 4.0 x16
/// copies (10 µs launch and wait; 25 GB/s pinned, 12 GB/s pageable).
pub fn assumed_gpu_node(pinned: bool) -> Links {
    Links {
        alpha: 2e-6,
        beta: 12e9,
        gamma: 1.0 / 20e9,
        copy_alpha: 10e-6,
        copy_beta: if pinned { 25e9 } else { 12e9 },
    }
}

/// The chunk sizes a search tries for a buffer of `bytes` bytes: powers of two from
/// 4 KiB below `bytes`, then `bytes` itself (one chunk: whole-buffer staging).
pub fn chunk_candidates(bytes: usize) -> Vec<usize> {
    let mut sizes: Vec<usize> = (12..usize::BITS - 1)
        .map(|s| 1usize << s)
        .take_while(|&c| c < bytes)
        .collect();
    sizes.push(bytes.max(1));
    sizes
}
