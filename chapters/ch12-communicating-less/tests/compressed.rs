//! Checks of the `compress_cnn` lab's pieces: the top-k backend (chapter 6's `Allreduce`
//! over ex 12.3's step) at 100%, and the leaders backend (ex 12.1), equal MPI_Allreduce's
//! sum within the summation bound,
//! bucket after bucket and step after step (one residual per bucket, taken in turn), at 1
//! to 4 ranks, with the bytes counted as the formula says; below 100%, each bucket's call
//! equals ex 12.3's step on a residual of its own; the lab's bad flags refused in one
//! line; and, with the solutions, the `compress_gpt` lab's GPT trained through the top-k
//! backend at 100% like through its own MPI_Allreduce. Run: `make check CH=12` or
//! `cargo test -p ch12-communicating-less --features solution --test main compressed::`.

use crate::common::{inputs, Case};
use ch06::reducer::Allreduce;
use ch12::cnn_flags::parse;
use ch12::compressed::{Compressed, Scheme};
use ch12::feedback::Feedback;
use ch12::topk;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::{abs_sums, close_sums, exact};
use toolkit::lockstep::property;
use toolkit::testing::refused_in_one_line;

/// Two buckets of 1 to 40 elements and a seed.
fn cases() -> impl Strategy<Value = (usize, usize, u64)> {
    (1usize..41, 1usize..41, any::<u64>())
}

toolkit::mpi_test! {
    /// Every element kept (top-k at 100%: 4 + 8·len bytes a call) and ex 12.1's hierarchy
    /// (4·len bytes): each call sums like MPI_Allreduce.
    fn ex12_3_the_top_k_backend_at_100_percent_equals_the_dense_sum(world at &[1, 2, 3, 4]) {
        property(world, "the top-k and leaders backends against MPI_Allreduce")
            .cases(12)
            .check(cases(), |&(a, b, seed)| {
                let (rank, p) = (world.rank() as usize, world.size() as usize);
                let lens = [a, b];
                let all_kept = Scheme::TopK { percent: 100.0, feedback: true };
                for (scheme, bytes_of) in [
                    (all_kept, (|n| 4 + 8 * n) as fn(usize) -> usize),
                    (Scheme::Leaders, |n| 4 * n),
                ] {
                    let backend = Compressed::new(world, scheme, &lens)?;
                    let bytes = backend.bytes();
                    for step in 0..2u64 {
                        for (bucket, &len) in lens.iter().enumerate() {
                            let case =
                                Case { len, nodes: 0, seed: seed ^ (2 * step + bucket as u64) };
                            let at = format!(
                                "{}: rank {rank} of {p}, step {step}, bucket {bucket} of lens \
                                 {lens:?}, seed={}",
                                scheme.name(),
                                case.seed
                            );
                            let mut got = inputs(&case, rank).1;
                            let mut want = vec![0f32; len];
                            world.all_reduce_into(&got[..], &mut want[..], SystemOperation::sum());
                            backend.sum_in_place(&mut got);
                            let sums = abs_sums(len, (0..p).map(|r| inputs(&case, r).1));
                            close_sums(&at, &got, &want, &sums, p)?;
                        }
                    }
                    let formula = 2 * (bytes_of(a) + bytes_of(b));
                    if bytes.get() != formula {
                        return Err(format!(
                            "{}: rank {rank} of {p}, lens {lens:?}: counted {} bytes in two \
                             steps, the formula says {formula}",
                            scheme.name(),
                            bytes.get()
                        ));
                    }
                }
                Ok(())
            })
    }
}

toolkit::mpi_test! {
    /// A share below 100%: each bucket's call equals ex 12.3's step on a residual of its
    /// own (the residual of one bucket never leaks into the other's), bit for bit.
    fn ex12_3_the_top_k_backend_keeps_one_residual_per_bucket(world at &[1, 2, 3]) {
        property(world, "the top-k backend against one Feedback per bucket")
            .cases(8)
            .check(cases(), |&(a, b, seed)| {
                let (rank, p) = (world.rank() as usize, world.size() as usize);
                let lens = [a, b];
                let scheme = Scheme::TopK { percent: 33.0, feedback: true };
                let backend = Compressed::new(world, scheme, &lens)?;
                let mut own: Vec<Feedback> =
                    lens.iter().map(|&n| Feedback::new(n, 33.0)).collect::<Result<_, _>>()?;
                for step in 0..3u64 {
                    for (bucket, &len) in lens.iter().enumerate() {
                        let case = Case { len, nodes: 0, seed: seed ^ (2 * step + bucket as u64) };
                        let mut got = inputs(&case, rank).1;
                        let want = topk::step(world, &mut own[bucket], &got);
                        backend.sum_in_place(&mut got);
                        let at = format!(
                            "rank {rank} of {p}, step {step}, bucket {bucket} of lens {lens:?}, \
                             seed={}", case.seed
                        );
                        exact(&at, &got, &want)?;
                    }
                }
                Ok(())
            })
    }
}

#[test]
fn bad_cnn_lab_flags_are_refused_in_one_line() {
    let bad = [
        (
            "--steps 0",
            "invalid value '0' for '--steps <N>': not a positive whole number",
        ),
        (
            "--batch x",
            "invalid value 'x' for '--batch <B>': not a positive whole number",
        ),
        ("--lr -1", "--lr -1: the learning rate must be above 0"),
        ("--epochs 2", "unexpected argument '--epochs' found"),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&[]).unwrap();
    assert_eq!((ok.steps, ok.batch, ok.seed), (300, None, 6));
    assert_eq!(
        (ok.global_batch(4), ok.global_batch(3), ok.global_batch(7)),
        (64, 63, 63)
    );
}

#[test]
fn bad_gpt_lab_flags_are_refused_in_one_line() {
    use ch12::gpt_run::{global_batch, parse};
    let bad = [
        (
            "--steps 0",
            "invalid value '0' for '--steps <N>': not a positive whole number",
        ),
        ("--seed x", "invalid value 'x' for '--seed <S>'"),
        ("--tp 2", "unexpected argument '--tp' found"),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&[]).unwrap();
    assert_eq!((ok.steps, ok.seed), (500, 9));
    let batches = [1, 3, 4, 7, 32].map(global_batch);
    assert_eq!(batches, [16, 15, 16, 14, 32]);
}

toolkit::mpi_test! {
    /// The `compress_gpt` lab's plumbing (chapter 9's `GridTrainer::with_dp_sum`, which
    /// needs chapter 9's exercises, hence built with the solutions only): 3 steps of the
    /// GPT at dp = the ranks, its gradients summed by the top-k backend at 100% (every
    /// element kept), against the same steps with the GPT's own MPI_Allreduce: every
    /// step's loss and every parameter within 1e-6·(1 + |w|) (two sums in another order).
    #[cfg(feature = "solution")]
    fn top_k_at_100_percent_trains_the_gpt_like_its_own_allreduce(world at &[2, 3]) {
        use ch06::reducer::Allreduce;
        use ch12::gpt_run::{gpt_flags, GptRunFlags};
        let (rank, p) = (world.rank() as usize, world.size() as usize);
        let corpus = ch09::corpus::Corpus::shipped()?;
        let g = gpt_flags(&GptRunFlags { steps: 3, seed: 9 }, p);
        let layout = g.layout(p)?;
        let cfg = g.model(corpus.vocab(), layout)?;
        let grid = ch09::grid::Grid::new(world, layout);
        let new = || ch09::train::GridTrainer::new(&grid, cfg, tch::Kind::Float, 9, g.common.lr);
        let mut own = new()?;
        let all_kept = Scheme::TopK { percent: 100.0, feedback: true };
        let backend = Compressed::new(&grid.dp, all_kept, &[own.params.numel()])?;
        let mut topk = new()?.with_dp_sum(Box::new(move |buf| backend.sum_in_place(buf)));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * (1.0 + b.abs());
        for step in 1..=3 {
            let (a, b) = (topk.step(&corpus, 9, step).loss, own.step(&corpus, 9, step).loss);
            if !close(a, b) {
                return Err(format!("rank {rank} of {p}, step {step}: loss {a} with top-k at 100%, {b} with MPI_Allreduce"));
            }
        }
        for ((name, a), (_, b)) in topk.params.named().into_iter().zip(own.params.named()) {
            let (a, b) = (Vec::<f32>::try_from(&a.detach().flatten(0, -1)).unwrap(), Vec::<f32>::try_from(&b.detach().flatten(0, -1)).unwrap());
            if let Some(i) = (0..a.len()).find(|&i| !close(a[i] as f64, b[i] as f64)) {
                return Err(format!("rank {rank} of {p}: after 3 steps {name}[{i}] is {} with top-k at 100%, {} with MPI_Allreduce", a[i], b[i]));
            }
        }
        Ok(())
    }
}
