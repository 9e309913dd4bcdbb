//! Chapter 11 exercise 11.2: solution.

use crate::config::Layout;
use crate::routing::{Dispatched, Routing};
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use toolkit::split::displacements;

// ANCHOR: exchange_rows
/// Rows of `hidden` floats to every rank in one `MPI_Alltoallv`.
pub fn exchange_rows(
    world: &SimpleCommunicator,
    rows: &[f32],
    send_counts: &[usize],
    recv_counts: &[usize],
    hidden: usize,
) -> Vec<f32> {
    let floats = |c: &[usize]| -> Vec<Count> { c.iter().map(|n| (n * hidden) as Count).collect() };
    let starts = |c: &[usize]| -> Vec<Count> {
        displacements(c)
            .iter()
            .map(|d| (d * hidden) as Count)
            .collect()
    };
    let mut got = vec![0.0f32; recv_counts.iter().sum::<usize>() * hidden];
    let send = Partition::new(rows, floats(send_counts), starts(send_counts));
    let mut recv = PartitionMut::new(&mut got[..], floats(recv_counts), starts(recv_counts));
    world.all_to_all_varcount_into(&send, &mut recv);
    got
}
// ANCHOR_END: exchange_rows

// ANCHOR: dispatch
/// Counts first (one all-to-all of `max_local` counts per rank), then the rows.
pub fn dispatch(
    world: &SimpleCommunicator,
    layout: &Layout,
    routing: &Routing,
    x: &[f32],
    hidden: usize,
) -> Dispatched {
    let (p, m) = (world.size() as usize, layout.max_local());
    let mut sent: Vec<usize> = (0..routing.choices.len())
        .filter(|&i| routing.choices[i].kept)
        .collect();
    sent.sort_by_key(|&i| routing.choices[i].expert); // stable: token order stays
    let mut counts = vec![0u64; p * m];
    for &i in &sent {
        let e = routing.choices[i].expert;
        let r = layout.owner(e);
        counts[r * m + e - layout.local(r).start] += 1;
    }
    let mut got = vec![0u64; p * m];
    world.all_to_all_into(&counts[..], &mut got[..]);
    let per_rank = |c: &[u64]| -> Vec<usize> {
        c.chunks(m)
            .map(|b| b.iter().sum::<u64>() as usize)
            .collect()
    };
    let (send_counts, recv_counts) = (per_rank(&counts), per_rank(&got));
    let rows: Vec<f32> = sent
        .iter()
        .flat_map(|&i| {
            let t = i / routing.k;
            x[t * hidden..(t + 1) * hidden].iter().copied()
        })
        .collect();
    let rows = exchange_rows(world, &rows, &send_counts, &recv_counts, hidden);
    Dispatched {
        hidden,
        sent,
        send_counts,
        recv_counts,
        recv_expert_counts: got.iter().map(|&n| n as usize).collect(),
        rows,
    }
}
// ANCHOR_END: dispatch

// ANCHOR: combine
/// The reverse exchange (counts swapped), then the gate-weighted sum in choice order.
pub fn combine(
    world: &SimpleCommunicator,
    routing: &Routing,
    sent: &Dispatched,
    outputs: &[f32],
) -> Vec<f32> {
    let h = sent.hidden;
    let back = exchange_rows(world, outputs, &sent.recv_counts, &sent.send_counts, h);
    let mut row_of = vec![None; routing.choices.len()];
    for (n, &i) in sent.sent.iter().enumerate() {
        row_of[i] = Some(n);
    }
    let mut out = vec![0.0f32; routing.tokens * h];
    for (i, c) in routing.choices.iter().enumerate() {
        if let Some(n) = row_of[i] {
            let t = i / routing.k;
            for (o, y) in out[t * h..(t + 1) * h]
                .iter_mut()
                .zip(&back[n * h..(n + 1) * h])
            {
                *o += c.gate * y;
            }
        }
    }
    out
}
// ANCHOR_END: combine
