//! Lab: the sum of bf16 gradients over p = 1, 2, 4, ... and P ranks (the first p ranks of
//! the job), three ways, each against the exact sum: MPI_Allreduce in f32, the bf16 ring
//! (`ch14::ring`: every partial sum rounded to bf16) and ex 14.2 (bf16 on the wire, the
//! sums in f32, one rounding); then the exact sum rounded once to bf16, the best any bf16
//! result can do, and the bytes each rank sends.
//!
//! Run: `make run CH=14 BIN=lowsum` (4 ranks; `NP=8` for more; `ARGS='--mean 0'` for
//! noise without a common mean, `ARGS=--help` for the list). A bad flag is refused in one
//! line before MPI starts. It needs ex 14.1 and 14.2; until they are written it says which.

use ch14::data::{decoded, exact_sum, gradients, relative_error};
use ch14::encode::encode;
use ch14::flags::{from_args, LowsumFlags};
use ch14::format::BF16;
use ch14::ring::ring_sum_bf16;
use ch14::wire::sum_bf16_one_rounding;
use mpi::collective::SystemOperation;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// The relative errors of one group's sum: f32, the bf16 ring, one rounding, the floor.
fn errors(group: &SimpleCommunicator, codes: &[u16]) -> [f64; 4] {
    let want = exact_sum(group, codes);
    let values = decoded(codes);
    let mut f32_sum = vec![0f32; values.len()];
    group.all_reduce_into(&values[..], &mut f32_sum[..], SystemOperation::sum());
    let ring = decoded(&ring_sum_bf16(group, codes));
    let once = decoded(&sum_bf16_one_rounding(group, codes));
    let floor: Vec<f32> = want
        .iter()
        .map(|&w| BF16.decode(encode(&BF16, w as f32)))
        .collect();
    [&f32_sum, &ring, &once, &floor].map(|got| relative_error(got, &want))
}

fn main() {
    let flags: LowsumFlags = from_args("lowsum");
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let say = |line: String| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let mut ps: Vec<usize> = (0..).map(|k| 1 << k).take_while(|&p| p < size).collect();
    ps.push(size);
    say(format!(
        "the sum of {} bf16 values per rank, each {} + N(0, 1), over the first p ranks; \
         relative error ‖sum − exact‖ / ‖exact‖; bytes: what each rank sends",
        flags.n, flags.mean
    ));
    say(format!(
        "{:>4} {:>12} {:>12} {:>12} {:>12} {:>14} {:>14}",
        "p", "f32", "bf16 ring", "bf16 once", "best bf16", "bytes f32", "bytes bf16"
    ));
    for p in ps {
        let color = if rank < p {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        let group = world.split_by_color(color);
        // The values are rounded to bf16 by ex 14.1: made inside the gate too.
        let row = unless_todo(&world, || {
            let codes = gradients(flags.seed, rank, flags.n, flags.mean);
            group.as_ref().map(|g| errors(g, &codes))
        });
        let row =
            row.unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "lowsum", &task));
        // A ring or an all-to-all then allgather: 2 (p - 1) / p of the vector each way.
        let sent = |bytes: usize| 2 * (p - 1) * flags.n * bytes / p;
        if let Some([f, ring, once, best]) = row {
            say(format!(
                "{p:>4} {f:>12.2e} {ring:>12.2e} {once:>12.2e} {best:>12.2e} {:>14} {:>14}",
                sent(4),
                sent(2)
            ));
        }
    }
}
