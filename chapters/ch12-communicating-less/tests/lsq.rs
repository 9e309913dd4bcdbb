//! Checks of the `compress` lab's training (`src/lsq.rs`, with ex 12.3's step) under
//! mpirun at 1, 3 and 4 ranks: top-k keeping every element trains the same weights as
//! MPI_Allreduce, exactly at 1 rank and within 1e-5 per weight at 3 and 4, where the two
//! add the ranks' gradients in different orders; the lab's bad flags refused in one line.
//! Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main lsq::`.

use ch12::compress_flags::parse;
use ch12::lsq::{train, Problem, Sync};
use mpi::traits::*;
use toolkit::testing::refused_in_one_line;

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

#[test]
fn bad_compress_lab_flags_are_refused_in_one_line() {
    let bad = [
        (
            "--steps 0",
            "invalid value '0' for '--steps <N>': not a positive whole number",
        ),
        (
            "--rows 1.5",
            "invalid value '1.5' for '--rows <R>': not a positive whole number",
        ),
        ("--lr -0.3", "--lr -0.3: the learning rate must be above 0"),
        ("--k 10", "unexpected argument '--k' found"),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&[]).unwrap();
    let p = &ok.problem;
    assert_eq!(
        (ok.steps, p.dim, p.rows, p.lr, p.seed),
        (600, 256, 2048, 0.3, 12)
    );
}
