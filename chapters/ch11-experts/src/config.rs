//! Given: the MoE layer's settings, checked before anything runs, and which rank holds
//! which experts.
//!
//! A bad setting is refused by [`MoeConfig::check`] in one line that says what is wrong
//! and what is allowed; the lab calls it before MPI starts, so nothing is ever sent with a
//! setting the router cannot serve.

use std::ops::Range;

/// The router's settings: how many experts, how many each token picks, how much room
/// each expert has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoeConfig {
    /// E, the number of experts (at least 1).
    pub experts: usize,
    /// k, the experts each token is sent to: 1 (Switch) or 2 (GShard, Mixtral).
    pub k: usize,
    /// The capacity factor: 1.0 gives each expert exactly its even share of the
    /// `T·k` (token, choice) pairs; more leaves room for an uneven load.
    pub capacity_factor: f64,
}

impl MoeConfig {
    /// The settings, or the one line that says why they cannot be used.
    pub fn new(experts: usize, k: usize, capacity_factor: f64) -> Result<Self, String> {
        let cfg = MoeConfig {
            experts,
            k,
            capacity_factor,
        };
        cfg.check().map(|()| cfg)
    }

    // ANCHOR: check
    /// `Ok` when the router can serve these settings; else why not, in one line.
    pub fn check(&self) -> Result<(), String> {
        let (e, k, f) = (self.experts, self.k, self.capacity_factor);
        if e == 0 {
            return Err("0 experts: the layer needs at least one".into());
        }
        if k == 0 || k > 2 {
            return Err(format!(
                "k = {k}: each token goes to 1 or 2 experts (k = 1 or k = 2)"
            ));
        }
        if k > e {
            return Err(format!(
                "k = {k} with {e} expert(s): a token cannot pick more experts than there are"
            ));
        }
        if !(f.is_finite() && f > 0.0) {
            return Err(format!(
                "capacity factor {f}: it must be a positive number (1.0 is an even share)"
            ));
        }
        Ok(())
    }
    // ANCHOR_END: check
}

// ANCHOR: layout
/// Which rank holds which experts: `experts` split over `ranks` in contiguous blocks,
/// the first `experts % ranks` ranks holding one more (`toolkit::split::block_range`).
/// 5 experts on 3 ranks: `0..2, 2..4, 4..5`; 2 experts on 4 ranks: ranks 2 and 3 hold
/// none, and receive nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// E, the number of experts.
    pub experts: usize,
    /// P, the ranks of the expert-parallel group.
    pub ranks: usize,
}

impl Layout {
    /// The experts rank `rank` holds.
    pub fn local(&self, rank: usize) -> Range<usize> {
        toolkit::split::block_range(self.experts, self.ranks, rank)
    }

    /// The rank that holds expert `expert`.
    pub fn owner(&self, expert: usize) -> usize {
        (0..self.ranks)
            .find(|&r| self.local(r).contains(&expert))
            .expect("an expert id below the layout's expert count")
    }

    /// The most experts any rank holds: `ceil(E / P)`, the size of each rank's block of
    /// counts in the counts exchange.
    pub fn max_local(&self) -> usize {
        self.experts.div_ceil(self.ranks)
    }
}
// ANCHOR_END: layout
