//! Given code: the link-timing matrix. Every pair of ranks ping-pongs a small and a large
//! message, one pair at a time (the others wait in a barrier that sleeps,
//! `toolkit::idle`), and each pair's times are fitted to chapter 1's alpha-beta model;
//! every rank gets every pair's fit, and [`matrix_table`] prints it.
//!
//! Used by the `slow_link` lab, `make diagnose` and the tests; nothing to run here.

use ch01::model::AlphaBeta;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// The small message: its time is the latency, alpha.
pub const SMALL: usize = 8;
/// The large message: with the small one it gives the bandwidth, beta.
pub const LARGE: usize = 256 << 10;

/// One link's fit: ranks `a < b` and their alpha-beta model (one way).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairFit {
    /// The lower rank.
    pub a: usize,
    /// The higher rank.
    pub b: usize,
    /// One-way latency (seconds) and bandwidth (bytes per second) between them.
    pub link: AlphaBeta,
}

/// The shortest one-way time (half a round trip) of `trips` ping-pongs of `bytes` bytes
/// between this rank and `peer`; `first` sends first. The shortest: a busy machine only
/// adds to a round trip.
fn one_way(world: &SimpleCommunicator, peer: i32, first: bool, bytes: usize, trips: usize) -> f64 {
    let other = world.process_at_rank(peer);
    let mut buf = vec![0u8; bytes];
    let mut best = f64::INFINITY;
    for _ in 0..trips {
        let start = Instant::now();
        if first {
            other.send(&buf[..]);
            other.receive_into(&mut buf[..]);
        } else {
            other.receive_into(&mut buf[..]);
            other.send(&buf[..]);
        }
        best = best.min(start.elapsed().as_secs_f64() / 2.0);
    }
    best
}

/// The alpha-beta model through two points: `small` bytes in `t_small` seconds, `large`
/// in `t_large`.
pub fn fit(small: usize, t_small: f64, large: usize, t_large: f64) -> AlphaBeta {
    let beta = (large - small) as f64 / (t_large - t_small).max(1e-12);
    AlphaBeta {
        alpha: (t_small - small as f64 / beta).max(0.0),
        beta,
    }
}

/// Every pair's fit, on every rank (every rank must call it). `trips`: ping-pongs per
/// message size.
pub fn measure(world: &SimpleCommunicator, trips: usize) -> Vec<PairFit> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    // mine[2b], mine[2b+1]: alpha and beta of the link (rank, b) for b > rank
    let mut mine = vec![0.0f64; 2 * p];
    for a in 0..p {
        for b in a + 1..p {
            toolkit::idle::barrier(world);
            if rank == a || rank == b {
                let (peer, first) = if rank == a { (b, true) } else { (a, false) };
                let t_small = one_way(world, peer as i32, first, SMALL, trips);
                let t_large = one_way(world, peer as i32, first, LARGE, trips);
                if rank == a {
                    let link = fit(SMALL, t_small, LARGE, t_large);
                    mine[2 * b] = link.alpha;
                    mine[2 * b + 1] = link.beta;
                }
            }
        }
    }
    let mut all = vec![0.0f64; 2 * p * p];
    world.all_gather_into(&mine[..], &mut all[..]);
    let mut fits = vec![];
    for a in 0..p {
        for b in a + 1..p {
            let (alpha, beta) = (all[2 * p * a + 2 * b], all[2 * p * a + 2 * b + 1]);
            fits.push(PairFit {
                a,
                b,
                link: AlphaBeta { alpha, beta },
            });
        }
    }
    fits
}

/// A link found slow (ex 10.1's answer, [`crate::find`]): ranks `a < b`, and its time over the median time of all links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlowLink {
    /// The lower rank.
    pub a: usize,
    /// The higher rank.
    pub b: usize,
    /// The link's time for the message over the median link's (e.g. 9.5).
    pub times_median: f64,
}

/// The fit of the link between `a` and `b` (either order), if the list has it.
pub fn link_of(fits: &[PairFit], a: usize, b: usize) -> Option<AlphaBeta> {
    let (a, b) = (a.min(b), a.max(b));
    fits.iter().find(|f| (f.a, f.b) == (a, b)).map(|f| f.link)
}

/// The matrix of one-way times of a [`LARGE`] message, in µs, as text.
pub fn matrix_table(fits: &[PairFit], p: usize) -> String {
    let mut out = format!("{:>6}", "");
    (0..p).for_each(|b| out.push_str(&format!("{b:>8}")));
    out.push('\n');
    for a in 0..p {
        out.push_str(&format!("{a:>6}"));
        for b in 0..p {
            match link_of(fits, a, b).filter(|_| a != b) {
                Some(l) => out.push_str(&format!("{:>8.0}", l.predict(LARGE as f64) * 1e6)),
                None => out.push_str(&format!("{:>8}", "-")),
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_goes_through_both_points() {
        let m = fit(8, 1e-6 + 8.0 / 1e9, 1 << 20, 1e-6 + (1 << 20) as f64 / 1e9);
        assert!(
            (m.beta - 1e9).abs() < 1.0 && (m.alpha - 1e-6).abs() < 1e-12,
            "{m:?}"
        );
    }
}
