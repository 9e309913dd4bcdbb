//! Ex 14.2's checks and the given ring's: every rank's codes gathered, one process's sums
//! of them (rounded with LibTorch's cast), and what a wrong sum looks like.

use super::libtorch_codes;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A sum over the ranks of bf16 codes: the bf16 ring, ex 14.2's, or a planted mistake.
pub type Sum = fn(&SimpleCommunicator, &[u16]) -> Vec<u16>;

/// Every rank's codes (rank by rank) to the sums one process expects from them.
pub type Want = dyn Fn(&[Vec<u16>]) -> Vec<u16>;

/// Every rank's codes and a wrong result to the words that say what it looks like.
pub type Cause = dyn Fn(&[Vec<u16>], &[u16]) -> String;

/// Every rank's `codes`, in rank order (one allgather).
pub fn everyone(world: &SimpleCommunicator, codes: &[u16]) -> Vec<Vec<u16>> {
    let mut all = vec![0u16; codes.len() * world.size() as usize];
    world.all_gather_into(codes, &mut all[..]);
    all.chunks(codes.len().max(1))
        .take(world.size() as usize)
        .map(<[u16]>::to_vec)
        .collect()
}

/// One process's sums of `all` (every rank's codes, rank by rank), element by element:
/// element `i` adds the ranks in the order `order(i)` in f32, starting from `0.0`
/// (`from_zero`) or from the first value, rounded to bf16 after every addition (`every`)
/// or only at the end. The rounding is LibTorch's cast, not the code under test.
pub fn emulated(
    all: &[Vec<u16>],
    order: &dyn Fn(usize, usize) -> usize,
    from_zero: bool,
    every: bool,
) -> Vec<u16> {
    use ch14::format::BF16;
    let n = all.first().map_or(0, Vec::len);
    let bf16 = |xs: &[f32]| -> Vec<f32> {
        libtorch_codes(&BF16, xs)
            .iter()
            .map(|&c| BF16.decode(c))
            .collect()
    };
    let mut acc: Vec<Option<f32>> = vec![from_zero.then_some(0.0); n];
    for k in 0..all.len() {
        let sums: Vec<f32> = (0..n)
            .map(|i| {
                let x = BF16.decode(all[order(i, k)][i]);
                acc[i].map_or(x, |a| a + x)
            })
            .collect();
        let sums = if every { bf16(&sums) } else { sums };
        acc = sums.into_iter().map(Some).collect();
    }
    let total: Vec<f32> = acc.iter().map(|a| a.unwrap_or(0.0)).collect();
    libtorch_codes(&BF16, &total)
}

/// A check of a sum over the ranks: on the lab's values (`n` per rank for each `n` of
/// the cases), `sum` must give, on every rank, element by element, what `want` computes
/// from every rank's codes; else the first wrong element, with `cause` saying what the
/// result looks like instead.
pub fn check_sum(
    world: &SimpleCommunicator,
    sum: Sum,
    want: &Want,
    cause: &Cause,
) -> Result<(), String> {
    use ch14::format::BF16;
    let rank = world.rank() as usize;
    for (n, mean) in [(0, 1.0), (1, 1.0), (7, 0.0), (1000, 1.0), (333, 100.0)] {
        let codes = ch14::data::gradients(14, rank, n, mean);
        let got = sum(world, &codes);
        if got.len() != n {
            return Err(format!("{n} values per rank gave {} sums", got.len()));
        }
        let all = everyone(world, &codes);
        let wanted = want(&all);
        if let Some(i) = (0..n).find(|&i| got[i] != wanted[i]) {
            return Err(format!(
                "rank {rank}, {n} values per rank, element {i}: got {:e} (bf16 {:#06x}), want \
                 {:e} ({:#06x}): {}",
                BF16.decode(got[i]),
                got[i],
                BF16.decode(wanted[i]),
                wanted[i],
                cause(&all, &got)
            ));
        }
    }
    Ok(())
}

/// Ex 14.2's want: the f32 sums from 0.0 in rank order, rounded once.
pub fn one_rounding(all: &[Vec<u16>]) -> Vec<u16> {
    emulated(all, &|_, k| k, true, false)
}

/// What a wrong sum of ex 14.2 looks like: rounded at every addition, or in another order.
pub fn one_rounding_cause(all: &[Vec<u16>], got: &[u16]) -> String {
    let p = all.len();
    if got == emulated(all, &|_, k| k, true, true) {
        "the sum was rounded to bf16 after every addition (as the ring does): add in f32 and \
         round once, after the last rank's value"
            .into()
    } else if got == emulated(all, &|_, k| p - 1 - k, true, false) {
        "the ranks' values were added last rank first: add them in rank order, 0 to p-1".into()
    } else {
        "not the sum of every rank's value of this element in f32, rounded once (is each chunk \
         sent to its owner, and gathered back to its place?)"
            .into()
    }
}

/// The bf16 ring's want: chunk `c` starts at rank `c` and collects `c+1, c+2, ...`,
/// rounded after every addition.
pub fn ring_order(all: &[Vec<u16>]) -> Vec<u16> {
    let (p, n) = (all.len(), all.first().map_or(0, Vec::len));
    let chunk_of = |i: usize| (0..p).find(|&c| ch03::chunk_range(n, p, c).contains(&i));
    emulated(all, &|i, k| (chunk_of(i).unwrap_or(0) + k) % p, false, true)
}
