//! Given: the alpha-beta time of a flat ring allreduce and of the two hierarchical ones,
//! with two link classes: `intra` (inside a node: shared memory) and `inter` (between
//! nodes: TCP, or a network). One message of `n` bytes costs `alpha + n / beta` on its
//! link (chapter 1's [`AlphaBeta`]); reductions and copies are left out. Nothing to run
//! here: the `hier` lab prints the predictions next to its measurements.

pub use ch01::model::AlphaBeta;

/// The two link classes of a cluster, and how many network cards a node has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Links {
    /// Between two ranks of one node.
    pub intra: AlphaBeta,
    /// Between two ranks of different nodes.
    pub inter: AlphaBeta,
    /// The network cards of a node, which the messages between nodes share.
    pub cards: Cards,
}

/// A node's network cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cards {
    /// One card, which every message leaving the node shares (this machine's emulated
    /// nodes, and a CPU cluster's usual node).
    OnePerNode,
    /// One card per rank (a GPU cluster's usual node: a network card per GPU), each at
    /// the `inter` link's speed: messages of different ranks cross side by side.
    OnePerRank,
}

/// The allreduce schedules the model compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Chapter 3's ring over all `q·N` ranks, ordered node by node.
    FlatRing,
    /// Ex 12.1: reduce to a leader, ring allreduce among the leaders, broadcast.
    Leaders,
    /// Ex 12.2: reduce-scatter in the node, ring allreduce of each shard across the nodes
    /// (the `q` shards at once), allgather in the node.
    Busy,
}

impl Schedule {
    /// Every schedule, in the lab's order.
    pub const ALL: [Schedule; 3] = [Schedule::FlatRing, Schedule::Leaders, Schedule::Busy];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::FlatRing => "flat ring",
            Schedule::Leaders => "leaders",
            Schedule::Busy => "busy",
        }
    }
}

// ANCHOR: predict
/// The time the model predicts for `schedule` to allreduce `bytes` bytes over `nodes`
/// nodes of `q` ranks each. With `m_i(x)` and `m_e(x)` one message of `x` bytes on the
/// intra and inter link, `p = q·N`, `n = bytes`:
/// - flat ring: `2(p-1)` steps of a chunk `n/p`; in each step one message crosses
///   every node boundary, and the step lasts as long as its slowest message:
///   `2(p-1)·m_e(n/p)` (`m_i` when `N = 1`);
/// - leaders: a reduce and a broadcast in the node, each as `(q-1)` steps of `n/q`
///   twice (reduce-scatter + gather, scatter + allgather: what MPI runs for large
///   vectors): `4(q-1)·m_i(n/q)`; then a ring among the `N` leaders: `2(N-1)·m_e(n/N)`;
/// - busy: a reduce-scatter and an allgather in the node, `2(q-1)·m_i(n/q)`; then `q`
///   rings of `n/q` at once. With one card per node they share it: `2(N-1)` latencies
///   and the bytes of one ring of `n`, `2(N-1)·m_e(n/N)`, the leaders' inter-node time.
///   With one card per rank each ring has its own: `2(N-1)·m_e(n/(qN))`, `q` times fewer
///   bytes per card than the leaders' one ring (why production hierarchies have this
///   shape). The flat ring and the leaders use one card per node boundary either way.
pub fn predict(schedule: Schedule, links: &Links, q: usize, nodes: usize, bytes: usize) -> f64 {
    let (qf, nf, n) = (q as f64, nodes as f64, bytes as f64);
    let p = qf * nf;
    let ring = |steps: f64, link: &AlphaBeta, x: f64| steps * link.predict(x);
    let across = ring(2.0 * (nf - 1.0), &links.inter, n / nf);
    let across_busy = match links.cards {
        Cards::OnePerNode => across,
        Cards::OnePerRank => ring(2.0 * (nf - 1.0), &links.inter, n / (qf * nf)),
    };
    match schedule {
        Schedule::FlatRing if nodes == 1 => ring(2.0 * (p - 1.0), &links.intra, n / p),
        Schedule::FlatRing => ring(2.0 * (p - 1.0), &links.inter, n / p),
        Schedule::Leaders => ring(4.0 * (qf - 1.0), &links.intra, n / qf) + across,
        Schedule::Busy => ring(2.0 * (qf - 1.0), &links.intra, n / qf) + across_busy,
    }
}
// ANCHOR_END: predict

// ANCHOR: crossover
/// The smallest of `sizes` (bytes, ascending) from which `schedule` is predicted faster
/// than the flat ring at that size and at every larger one of `sizes`; `None` if it does
/// not win at the largest.
pub fn crossover(
    schedule: Schedule,
    links: &Links,
    q: usize,
    nodes: usize,
    sizes: &[usize],
) -> Option<usize> {
    let wins = |&b: &usize| {
        predict(schedule, links, q, nodes, b) < predict(Schedule::FlatRing, links, q, nodes, b)
    };
    let losing = sizes.iter().rposition(|b| !wins(b));
    match losing {
        None => sizes.first().copied(),
        Some(i) => sizes.get(i + 1).copied(),
    }
}
// ANCHOR_END: crossover

#[cfg(test)]
mod tests {
    use super::*;

    const SHM: AlphaBeta = AlphaBeta {
        alpha: 1e-6,
        beta: 1e10,
    };

    #[test]
    fn one_link_class_makes_the_hierarchy_lose() {
        let same = Links {
            intra: SHM,
            inter: SHM,
            cards: Cards::OnePerNode,
        };
        for b in [8, 1 << 20] {
            let flat = predict(Schedule::FlatRing, &same, 2, 2, b);
            assert!(predict(Schedule::Leaders, &same, 2, 2, b) > flat);
        }
        // Busy takes 4 steps to the ring's 6, but moves n/2 per step instead of n/4:
        // fewer latencies win small vectors, more bytes lose large ones.
        let at = |s, b| predict(s, &same, 2, 2, b);
        assert!(at(Schedule::Busy, 8) < at(Schedule::FlatRing, 8));
        assert!(at(Schedule::Busy, 1 << 20) > at(Schedule::FlatRing, 1 << 20));
        assert_eq!(crossover(Schedule::Busy, &same, 2, 2, &[8, 1 << 20]), None);
    }

    #[test]
    fn a_slow_inter_link_makes_it_win() {
        let tcp = AlphaBeta {
            alpha: 5e-5,
            beta: 1e9,
        };
        let links = Links {
            intra: SHM,
            inter: tcp,
            cards: Cards::OnePerNode,
        };
        // 2 nodes of 4: the flat ring crosses the slow link in 14 steps, the leaders in 2.
        let b = 1 << 20;
        let flat = 14.0 * tcp.predict(b as f64 / 8.0);
        assert!((predict(Schedule::FlatRing, &links, 4, 2, b) - flat).abs() < 1e-12);
        assert_eq!(crossover(Schedule::Leaders, &links, 4, 2, &[8, b]), Some(8));
        // One node: a plain ring on shared memory.
        let one = predict(Schedule::FlatRing, &links, 4, 1, b);
        assert!((one - 6.0 * SHM.predict(b as f64 / 4.0)).abs() < 1e-12);
    }

    #[test]
    fn a_card_per_rank_cuts_the_busy_schedules_crossing_by_q() {
        let tcp = AlphaBeta {
            alpha: 5e-5,
            beta: 1e9,
        };
        let (q, nodes, b) = (4, 2, 1 << 24);
        let shared = Links {
            intra: SHM,
            inter: tcp,
            cards: Cards::OnePerNode,
        };
        let own = Links {
            cards: Cards::OnePerRank,
            ..shared
        };
        let inside = 2.0 * 3.0 * SHM.predict(b as f64 / 4.0);
        let crossing = |l: &Links| predict(Schedule::Busy, l, q, nodes, b) - inside;
        // 2(N-1) = 2 steps across, of n/N bytes on a shared card, of n/(qN) on its own.
        assert!((crossing(&shared) - 2.0 * tcp.predict(b as f64 / 2.0)).abs() < 1e-12);
        assert!((crossing(&own) - 2.0 * tcp.predict(b as f64 / 8.0)).abs() < 1e-12);
        // The leaders and the flat ring use one card per boundary either way.
        for s in [Schedule::Leaders, Schedule::FlatRing] {
            assert_eq!(
                predict(s, &shared, q, nodes, b),
                predict(s, &own, q, nodes, b)
            );
        }
    }
}
