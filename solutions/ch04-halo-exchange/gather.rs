//! Exercise 4.7: solution. Compiled instead of the stub by `--features solution`
//! (`make run CH=04 SOLUTION=1`, `cargo test -p ch04-halo-exchange --features solution`).

use crate::field::Field;
use crate::topology::Decomposition;
use mpi::datatype::PartitionMut;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;

// ANCHOR: gather
/// The whole grid (`rows * cols`, row-major) on rank 0; `None` on the other ranks.
pub fn gather_field(
    cart: &CartesianCommunicator,
    decomp: &Decomposition,
    f: &Field,
) -> Option<Vec<f64>> {
    let root = cart.process_at_rank(0);
    let mine = f.owned(); // my block without ghosts, row after row
    if cart.rank() != 0 {
        root.gather_varcount_into(&mine[..]);
        return None;
    }
    // Rank r's block: its rows and columns, from its process coordinates.
    let blocks: Vec<_> = (0..cart.size())
        .map(|r| {
            let c = cart.rank_to_coordinates(r);
            (decomp.rows_of(c[0]), decomp.cols_of(c[1]))
        })
        .collect();
    let counts: Vec<i32> = blocks
        .iter()
        .map(|(r, c)| (r.len() * c.len()) as i32)
        .collect();
    let displs: Vec<i32> = counts
        .iter()
        .scan(0, |next, &c| {
            let start = *next;
            *next += c;
            Some(start)
        })
        .collect();
    let (rows, cols) = (decomp.problem.rows, decomp.problem.cols);
    let mut blocks_in_rank_order = vec![0.0; rows * cols];
    let mut parts = PartitionMut::new(&mut blocks_in_rank_order[..], &counts[..], &displs[..]);
    root.gather_varcount_into_root(&mine[..], &mut parts);
    // Unpack: row k of rank r's block goes to global row rr.start + k, columns cc.
    let mut global = vec![0.0; rows * cols];
    for ((rr, cc), &start) in blocks.iter().zip(&displs) {
        let block = &blocks_in_rank_order[start as usize..];
        for (k, gi) in rr.clone().enumerate() {
            let row = &block[k * cc.len()..(k + 1) * cc.len()];
            global[gi * cols + cc.start..gi * cols + cc.end].copy_from_slice(row);
        }
    }
    Some(global)
}
// ANCHOR_END: gather
