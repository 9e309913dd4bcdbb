//! Checks of the `compress` lab's training (`src/lsq.rs`, with ex 12.3's step) under
//! mpirun at 1, 3 and 4 ranks: top-k keeping every element trains the same weights as
//! MPI_Allreduce, exactly at 1 rank and within 1e-5 per weight at 3 and 4, where the two
//! add the ranks' gradients in different orders. Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test lsq`.

use ch12::lsq::{train, Problem, Sync};
use mpi::traits::*;

toolkit::mpi_test! {
    /// 20 steps of the lab's problem (512 rows of 64 features), dense against top-k 100%.
    fn ex12_3_all_kept_trains_like_the_dense_allreduce(world at &[1, 3, 4]) {
        let (rank, p) = (world.rank() as usize, world.size() as usize);
        let problem = Problem::new(12, 512, 64, rank, p);
        let dense = train(world, &problem, Sync::Dense, 20, 0.3)?;
        let all = Sync::TopK { percent: 100.0, feedback: true };
        let topk = train(world, &problem, all, 20, 0.3)?;
        let bound = if p == 1 { 0.0 } else { 1e-5 };
        let worst = dense.weights.iter().zip(&topk.weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        match worst <= bound {
            true => Ok(()),
            false => Err(format!("rank {rank} of {p}: weights differ by {worst:e}, more than {bound:e}"))
        }
    }
}
