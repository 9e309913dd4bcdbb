//! Given code: the two binary trees of the double binary tree allreduce (ex 3.7).
//!
//! One tree over positions `1..=p`, numbered in order (left subtree, node, right subtree):
//! a position's height is its number of trailing zero bits. The odd positions are the
//! leaves; position `v` with lowest set bit `b >= 2` has children `v - b/2` and `v + b/2`
//! (the right one, when past `p`, replaced by its nearest descendant that is not); the
//! root is the largest power of two at most `p`. Tree 0 puts rank `r` at position `r + 1`,
//! tree 1 at position `(r + 1) % p + 1`: shifted by one, so the even ranks, leaves of tree
//! 0, are inner nodes of tree 1, and the odd ranks the other way round. Every rank is an
//! inner node of at most one tree: it receives from two children in one tree only.
//! Sanders, Speck and Träff (2009) build the two trees this way (mirrored or shifted);
//! NCCL's tree allreduce uses them across nodes. Nothing to run here: ex 3.7's check and
//! the unit tests below use it.

/// One rank's place in one tree: whom it receives from going up, whom it sends to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// The rank this one sends its reduced part to (`None` at the root).
    pub parent: Option<usize>,
    /// The ranks it receives from and reduces (none at a leaf, at most two), in order.
    pub children: Vec<usize>,
}

fn lowest_bit(v: usize) -> usize {
    v & v.wrapping_neg()
}

/// The parent and children, as positions, of position `v` of the tree over `1..=p`.
fn at_position(p: usize, v: usize) -> (Option<usize>, Vec<usize>) {
    let b = lowest_bit(v);
    let mut children = Vec::new();
    if b >= 2 {
        children.push(v - b / 2);
        let mut right = v + b / 2;
        while right > p && lowest_bit(right) >= 2 {
            right -= lowest_bit(right) / 2;
        }
        if right <= p {
            children.push(right);
        }
    }
    let root = 1 << p.ilog2();
    let parent = (v != root).then(|| {
        let mut u = v;
        loop {
            let b = lowest_bit(u);
            u = if u & (2 * b) != 0 { u - b } else { u + b };
            if u <= p {
                return u;
            }
        }
    });
    (parent, children)
}

/// Rank `rank`'s node in tree `which` (0 or 1) of the double binary tree over `p` ranks.
pub fn tree(p: usize, rank: usize, which: usize) -> TreeNode {
    assert!(rank < p && which < 2, "rank {rank} of {p}, tree {which}");
    let position = (rank + which) % p + 1;
    let rank_at = |v: usize| (v - 1 + p - which) % p;
    let (parent, children) = at_position(p, position);
    TreeNode {
        parent: parent.map(rank_at),
        children: children.into_iter().map(rank_at).collect(),
    }
}

/// Rank `rank`'s nodes in both trees: `[tree 0, tree 1]`.
pub fn double_binary_tree(p: usize, rank: usize) -> [TreeNode; 2] {
    [tree(p, rank, 0), tree(p, rank, 1)]
}

/// Levels from the root to the deepest leaf (0 at one rank): the pipeline's depth.
pub fn depth(p: usize) -> usize {
    (0..p)
        .map(|r| {
            let (mut d, mut at) = (0, r);
            while let Some(up) = tree(p, at, 0).parent {
                (d, at) = (d + 1, up);
            }
            d
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tree_spans_the_ranks_and_parents_match_children() {
        for p in 1..=64 {
            for which in 0..2 {
                let nodes: Vec<TreeNode> = (0..p).map(|r| tree(p, r, which)).collect();
                assert_eq!(nodes.iter().filter(|n| n.parent.is_none()).count(), 1);
                for (r, node) in nodes.iter().enumerate() {
                    assert!(node.children.len() <= 2);
                    for &c in &node.children {
                        assert_eq!(nodes[c].parent, Some(r), "p {p} tree {which}");
                    }
                    if let Some(up) = node.parent {
                        assert!(nodes[up].children.contains(&r), "p {p} tree {which}");
                    }
                }
                // every rank reaches the root: no cycle
                for r in 0..p {
                    let mut at = r;
                    for _ in 0..p {
                        at = nodes[at].parent.unwrap_or(at);
                    }
                    assert!(nodes[at].parent.is_none());
                }
            }
        }
    }

    #[test]
    fn every_rank_is_an_inner_node_of_at_most_one_tree() {
        for p in 1..=64 {
            for r in 0..p {
                let [a, b] = double_binary_tree(p, r);
                assert!(
                    a.children.is_empty() || b.children.is_empty(),
                    "p {p} rank {r}"
                );
            }
        }
        assert_eq!(double_binary_tree(4, 1)[0].children, vec![0, 2]);
        assert_eq!((depth(1), depth(2), depth(8), depth(9)), (0, 1, 3, 3));
    }
}
