//! A check of where ex 3.7's bytes go, shared by its test and its planted mistake: the
//! messages the rank really sent (the toolkit's trace of MPI_Send), added up per peer,
//! against what the two trees say: half `t` goes once to the parent and once to each
//! child of tree `t`, and nothing goes anywhere else.

use super::counts::Allreduce;
use ch03::binary_tree::double_binary_tree;
use ch03::chunk_range;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::BTreeMap;
use toolkit::lockstep::agree;

/// Bytes rank `rank` should send to each peer in a double tree allreduce of `n` i64s.
fn wanted(p: usize, rank: usize, n: usize) -> BTreeMap<usize, i64> {
    let mut want = BTreeMap::new();
    for (t, node) in double_binary_tree(p, rank).iter().enumerate() {
        let half = (chunk_range(n, 2, t).len() * 8) as i64;
        for &peer in node.parent.iter().chain(&node.children) {
            *want.entry(peer).or_insert(0) += half;
        }
    }
    want
}

/// What `peer` is to `rank` in the two trees, for a message.
fn role(p: usize, rank: usize, peer: usize) -> String {
    let roles: Vec<String> = double_binary_tree(p, rank)
        .iter()
        .enumerate()
        .filter_map(|(t, node)| match () {
            _ if node.parent == Some(peer) => Some(format!("its parent in tree {t}")),
            _ if node.children.contains(&peer) => Some(format!("its child in tree {t}")),
            _ => None,
        })
        .collect();
    match roles.is_empty() {
        true => "no neighbour in either tree".into(),
        false => roles.join(", "),
    }
}

/// `f` at this rank count, `n = 4p + 3` i64s (halves of unequal size), traced: every
/// rank must have sent each neighbour exactly the halves the trees give it.
pub fn each_half_through_its_tree(
    world: &SimpleCommunicator,
    name: &str,
    f: Allreduce,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let n = 4 * p + 3;
    toolkit::trace::start();
    f(world, &vec![1; n], ch03::ops::Op::Sum);
    let messages = toolkit::trace::stop();
    let mut sent: BTreeMap<usize, i64> = BTreeMap::new();
    for m in messages.iter().filter(|m| m.sent) {
        *sent.entry(m.peer as usize).or_insert(0) += m.bytes;
    }
    let want = wanted(p, rank, n);
    let peers = sent.keys().chain(want.keys());
    let wrong = peers
        .map(|&q| {
            (
                q,
                sent.get(&q).copied().unwrap_or(0),
                want.get(&q).copied().unwrap_or(0),
            )
        })
        .find(|(_, got, want)| got != want);
    let (h0, h1) = (
        chunk_range(n, 2, 0).len() * 8,
        chunk_range(n, 2, 1).len() * 8,
    );
    let mine = match wrong {
        None => Ok(()),
        Some((q, got, want)) => Err(format!(
            "{name} at {p} ranks, {n} i64s (half 0: {h0} bytes, half 1: {h1}): rank {rank} \
             sent {got} bytes to rank {q} ({}), want {want}: half t travels along tree t's \
             edges only, once up to its parent and once down to each child; a rank that \
             sends both halves to one neighbour runs them through one tree (use trees[t] \
             for the segments of half t)",
            role(p, rank, q)
        )),
    };
    agree(world, mine)
}
