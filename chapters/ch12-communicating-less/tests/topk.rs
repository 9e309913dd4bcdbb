//! Checks of exercise 12.3 (top-k with error feedback) under mpirun at 1 to 8 ranks, on
//! proptest-generated cases (length, share kept, seed), every rank generating the same
//! case (`toolkit::lockstep`): the step's bytes, residual and result, exactly, on whole
//! numbers; with every element kept and no residual, MPI_Allreduce's sum within the
//! summation bound; the selection and a bad share on one rank. Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main topk::`.

use crate::common::{check_step, inputs, Case};
use ch12::feedback::Feedback;
use ch12::topk::{step, top_k};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::{abs_sums, close_sums, exact};
use toolkit::lockstep::property;

/// 0 to 40 elements, a share among 1, 10, 33, 50 and 100 percent, a seed.
fn cases() -> impl Strategy<Value = (Case, f64)> {
    let share = prop::sample::select(vec![1.0, 10.0, 33.0, 50.0, 100.0]);
    (0usize..41, share, any::<u64>()).prop_map(|(len, pct, seed)| {
        (
            Case {
                len,
                nodes: 0,
                seed,
            },
            pct,
        )
    })
}

toolkit::mpi_test! {
    /// Bytes = 4 + 8·k; residual = gradient + old residual − sent; result = Σ sent pieces.
    fn ex12_3_step_sends_the_top_k_and_keeps_the_rest(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        property(world, "one top-k step with error feedback")
            .cases(24)
            .check(cases(), |&(case, pct)| check_step(world, step, &case, pct))
    }

    /// Every element kept, residual zero: MPI_Allreduce's sum, and a zero residual after.
    fn ex12_3_all_kept_equals_mpi_allreduce(world at &[1, 2, 3, 4, 5, 6, 7, 8]) {
        property(world, "top-k at 100% against MPI_Allreduce")
            .cases(16)
            .check(cases(), |&(case, _)| {
                let (rank, p) = (world.rank() as usize, world.size() as usize);
                let at = format!("rank {rank} of {p}, len={} seed={}", case.len, case.seed);
                let xs = inputs(&case, rank).1;
                let mut want = vec![0f32; case.len];
                world.all_reduce_into(&xs[..], &mut want[..], SystemOperation::sum());
                let mut fb = Feedback::new(case.len, 100.0)?;
                let got = step(world, &mut fb, &xs);
                exact(&format!("{at}: residual"), &fb.residual, &vec![0.0; case.len])?;
                let sums = abs_sums(case.len, (0..p).map(|r| inputs(&case, r).1));
                close_sums(&format!("{at}: sums"), &got, &want, &sums, p)
            })
    }
}

#[test]
fn ex12_3_top_k_keeps_the_largest_magnitudes_ties_to_the_lower_index() {
    assert_eq!(top_k(&[1.0, -3.0, 3.0, 2.0], 2), vec![1, 2]);
    assert_eq!(top_k(&[2.0, -2.0, 2.0, 1.0], 2), vec![0, 1]);
    assert_eq!(top_k(&[0.5, 4.0, -0.25], 3), vec![0, 1, 2]);
    assert_eq!(top_k(&[], 0), Vec::<u32>::new());
}

#[test]
fn a_share_outside_0_to_100_percent_is_refused_in_one_line() {
    let say = |pct: f64| Feedback::new(10, pct).err();
    assert_eq!(
        say(0.0).as_deref(),
        Some("top-k 0%: the share kept must be above 0 and at most 100 percent")
    );
    assert!(say(150.0).is_some_and(|e| e.starts_with("top-k 150%")));
    assert_eq!(Feedback::new(256, 1.0).map(|f| f.keep), Ok(3));
}
