//! This machine's own limit, measured in the same run as the kernels: the bandwidth of a
//! plain copy and of a scale loop through memory. Part of `halo_bench`.

use std::time::Instant;

/// Bytes per second of a large copy (`copy_from_slice`) and of a scale loop
/// (`d[i] = 1.0000001 * s[i]`), counting one read and one write per value, best of 5.
/// The copy may use streaming stores; the scale loop, like the update, writes through the
/// cache (each written line is read first): the two bracket what the update can reach.
pub fn reference_bandwidths() -> (f64, f64) {
    // 32 Mi f64 = 256 MiB per buffer, far beyond any cache (1 Mi in a smoke run)
    let n = toolkit::bench::sized(32 << 20, 1 << 20);
    let (src, mut dst) = (vec![1.0f64; n], vec![0.0f64; n]);
    let (mut copy, mut scale) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        let t = Instant::now();
        dst.copy_from_slice(&src);
        copy = copy.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for (d, s) in dst.iter_mut().zip(&src) {
            *d = 1.0000001 * s;
        }
        scale = scale.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    (16.0 * n as f64 / copy, 16.0 * n as f64 / scale)
}
