//! Given: how many bytes the C heap holds right now (glibc's `mallinfo2()`).
//!
//! LibTorch's CPU allocator takes its tensors' memory from `malloc` (large ones by `mmap`
//! inside `malloc`), so the difference of two readings around some tensor work is what
//! that work left allocated: a real measurement of activation memory on the CPU, with
//! no bookkeeping of our own. Elsewhere than glibc the reading is `None`.

/// Bytes in use on the C heap: `uordblks` (small chunks) + `hblkhd` (chunks `malloc`
/// mapped with `mmap`), or `None` where `mallinfo2` does not exist.
pub fn in_use() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's counters and returns them by value.
        let info = unsafe { libc::mallinfo2() };
        Some((info.uordblks + info.hblkhd) as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}
