//! Given code: the two link classes of a node layout, measured. Chapter 10's link-timing
//! matrix ([`ch10::matrix::measure`]) fits every pair of ranks; the pairs inside one node
//! make the `intra` class and the pairs across nodes the `inter` class, each the median
//! of its pairs' alpha and beta. On emulated nodes both classes are this machine's shared
//! memory; on the two-node namespace cluster (`CLUSTER=netns`, `--nodes shared`) the
//! `inter` class is TCP.
//!
//! Used by the `hier` lab; nothing to run here.

use crate::model::{AlphaBeta, Cards, Links};
use ch10::matrix::{measure, PairFit};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The measured classes, and how many pairs each had.
#[derive(Clone, Copy, Debug)]
pub struct MeasuredLinks {
    /// The classes; a class with no pair takes the other's fit.
    pub links: Links,
    /// Pairs of ranks inside one node.
    pub intra_pairs: usize,
    /// Pairs of ranks on different nodes.
    pub inter_pairs: usize,
}

/// Measures every pair (`trips` ping-pongs per message size, the shortest kept) and
/// splits the fits by `node_of` (the node of each world rank). Collective: every rank
/// calls it and gets the same answer.
pub fn measure_links(world: &SimpleCommunicator, node: usize, trips: usize) -> MeasuredLinks {
    let mut node_of = vec![0u64; world.size() as usize];
    world.all_gather_into(&(node as u64), &mut node_of[..]);
    let fits = measure(world, trips);
    let (same, across): (Vec<PairFit>, Vec<PairFit>) =
        fits.into_iter().partition(|f| node_of[f.a] == node_of[f.b]);
    let (intra, inter) = (median_fit(&same), median_fit(&across));
    let fallback = AlphaBeta {
        alpha: 0.0,
        beta: f64::INFINITY,
    };
    MeasuredLinks {
        links: Links {
            intra: intra.or(inter).unwrap_or(fallback),
            inter: inter.or(intra).unwrap_or(fallback),
            // Emulated nodes and the namespace cluster's: one link leaves each node.
            cards: Cards::OnePerNode,
        },
        intra_pairs: same.len(),
        inter_pairs: across.len(),
    }
}

/// The median alpha and the median beta of some pairs' fits; `None` for no pair.
fn median_fit(fits: &[PairFit]) -> Option<AlphaBeta> {
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    (!fits.is_empty()).then(|| AlphaBeta {
        alpha: median(fits.iter().map(|f| f.link.alpha).collect()),
        beta: median(fits.iter().map(|f| f.link.beta).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: usize, b: usize, alpha: f64, beta: f64) -> PairFit {
        PairFit {
            a,
            b,
            link: AlphaBeta { alpha, beta },
        }
    }

    #[test]
    fn the_median_of_each_class_is_taken() {
        let fits = [
            pair(0, 1, 1.0, 10.0),
            pair(2, 3, 3.0, 30.0),
            pair(4, 5, 2.0, 20.0),
        ];
        let m = median_fit(&fits).unwrap();
        assert_eq!((m.alpha, m.beta), (2.0, 20.0));
        assert!(median_fit(&[]).is_none());
    }
}
