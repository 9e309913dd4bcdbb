//! Given: two more builds of the 5-point update, side by side with the simple one in
//! [`crate::stencil`], for the benchmark to compare. Nothing to run here; `make bench
//! CH=04` prints their bandwidth next to the copy bandwidth of the same run.
//!
//! - *wide*: the same loop, compiled for 256-bit vectors (AVX: 4 doubles per
//!   instruction instead of SSE2's 2). The default target of Rust on x86_64 is SSE2 only;
//!   `#[target_feature(enable = "avx")]` compiles one function for AVX, and
//!   `is_x86_feature_detected!` checks at run time that the CPU has it. The solver uses
//!   it when it can ([`crate::stencil::Kernel::Auto`]).
//! - *streaming*: AVX with non-temporal stores (`_mm256_stream_pd`): the written lines
//!   go to memory without first being read into the cache (no write-allocate), as a
//!   large `memcpy` does. On paper 16 bytes per cell instead of 24; measure before you
//!   believe it (the performance page does).
//!
//! Both compute `c + K·((n + s) + (w + e) - 4·c)` with the same IEEE operations in the
//! same order as the simple loop (no fused multiply-add), so every kernel gives the same
//! field bit for bit.

use crate::stencil::{stencil_row, K};

/// Whether this CPU runs the AVX kernels.
pub fn has_avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

// ANCHOR: wide
/// The simple loop, compiled for AVX. Falls back to the simple loop without AVX.
pub fn stencil_row_wide(out: &mut [f64], rows: [&[f64]; 5]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        #[target_feature(enable = "avx")]
        fn wide(out: &mut [f64], rows: [&[f64]; 5]) {
            stencil_row(out, rows); // inlined here, so compiled with AVX
        }
        // SAFETY: the CPU has AVX (checked above).
        return unsafe { wide(out, rows) };
    }
    stencil_row(out, rows)
}
// ANCHOR_END: wide

// ANCHOR: streaming
/// The update with AVX and streaming stores: scalar stores until `out` is 32-byte
/// aligned, then 4 values per `_mm256_stream_pd`, then a scalar tail. Falls back to
/// the simple loop without AVX. Call [`fence`] before another thread or process reads
/// `out`.
pub fn stencil_row_streaming(out: &mut [f64], rows: [&[f64]; 5]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        // SAFETY: the CPU has AVX (checked above).
        return unsafe { streaming_avx(out, rows) };
    }
    stencil_row(out, rows)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn streaming_avx(out: &mut [f64], [n, s, w, c, e]: [&[f64]; 5]) {
    use std::arch::x86_64::*;
    let len = out.len();
    let head = out.as_ptr().align_offset(32).min(len);
    let body = head + (len - head) / 4 * 4;
    stencil_row(&mut out[..head], [n, s, w, c, e].map(|r| &r[..head]));
    let (kk, four) = (_mm256_set1_pd(K), _mm256_set1_pd(4.0));
    for k in (head..body).step_by(4) {
        // SAFETY: k + 4 <= body <= len for out and every row (all have len values);
        // out[k] is 32-byte aligned (head aligned it, and k - head is a multiple of 4).
        unsafe {
            let load = |r: &[f64]| _mm256_loadu_pd(r.as_ptr().add(k));
            let (nn, ss, ww, cc, ee) = (load(n), load(s), load(w), load(c), load(e));
            let sum = _mm256_sub_pd(
                _mm256_add_pd(_mm256_add_pd(nn, ss), _mm256_add_pd(ww, ee)),
                _mm256_mul_pd(four, cc),
            );
            _mm256_stream_pd(
                out.as_mut_ptr().add(k),
                _mm256_add_pd(cc, _mm256_mul_pd(kk, sum)),
            );
        }
    }
    stencil_row(&mut out[body..], [n, s, w, c, e].map(|r| &r[body..]));
}
// ANCHOR_END: streaming

/// Orders the streaming stores before any later store, so that another thread or
/// process that reads the field sees them (`sfence`). A no-op off x86_64.
pub fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no operands and no preconditions (SSE, in every x86_64 CPU).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_equals_the_simple_loop_bit_for_bit_at_every_alignment_and_length() {
        let v: Vec<f64> = (0..800)
            .map(|i| ((i * 7919) % 101) as f64 * 0.013)
            .collect();
        for start in 0..4 {
            for len in [0, 1, 2, 3, 4, 5, 7, 255, 256, 257, 513] {
                let sl = |o: usize| &v[start + o..start + o + len];
                let rows = [sl(0), sl(50), sl(99), sl(100), sl(101)];
                let mut want = vec![0.0; len];
                stencil_row(&mut want, rows);
                let mut buf = vec![0.0; len + 4];
                for kernel in [stencil_row_wide, stencil_row_streaming] {
                    let out = &mut buf[start..start + len];
                    out.fill(-1.0);
                    kernel(out, rows);
                    fence();
                    assert_eq!(out, &want[..], "start {start}, len {len}");
                }
            }
        }
    }
}
