//! Chapter 10 exercise 10.3: solution.

/// True when `a-b` is one of the `slow` links.
fn is_slow(slow: &[(usize, usize)], a: usize, b: usize) -> bool {
    slow.iter()
        .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
}

// ANCHOR: ring_order
/// An order from 0 whose ring uses as few `slow` links as any order: a depth-first search
/// that stops at the first order with none, and cuts off every partial order already as
/// bad as the best found.
pub fn ring_order(p: usize, slow: &[(usize, usize)]) -> Vec<usize> {
    if p == 0 {
        return vec![];
    }
    let mut best = ((0..p).collect::<Vec<_>>(), usize::MAX);
    let mut order = vec![0];
    let mut used = vec![false; p];
    used[0] = true;
    search(p, slow, &mut order, &mut used, 0, &mut best);
    best.0
}

fn search(
    p: usize,
    slow: &[(usize, usize)],
    order: &mut Vec<usize>,
    used: &mut [bool],
    crossings: usize,
    best: &mut (Vec<usize>, usize),
) {
    if crossings >= best.1 || best.1 == 0 {
        return;
    }
    let last = *order.last().unwrap();
    if order.len() == p {
        let total = crossings + usize::from(p > 1 && is_slow(slow, last, order[0]));
        if total < best.1 {
            *best = (order.clone(), total);
        }
        return;
    }
    for next in 0..p {
        if !used[next] {
            used[next] = true;
            order.push(next);
            let c = crossings + usize::from(is_slow(slow, last, next));
            search(p, slow, order, used, c, best);
            order.pop();
            used[next] = false;
        }
    }
}
// ANCHOR_END: ring_order
