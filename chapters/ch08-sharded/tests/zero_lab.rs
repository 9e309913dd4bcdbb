//! Checks of the `zero` lab (every exercise together, so they pass once all are done):
//! each stage holds what its formula says, measured from the trainer's buffers; with
//! chapter 3's ring, each rank sends 2P(N-1)/N values per step, counted by the PMPI
//! wrappers; bad flags fail in one line before any communication, and so does `--device
//! cuda` where no GPU can be used (with the reason).
//!
//! Run: `cargo test -p ch08-sharded --features solution --test main zero_lab::`.

use crate::common;

use ch08::config::{Collectives, Config};
use ch08::memory::{formula, Stage};
use ch08::train::Trainer;
use mpi::traits::*;
use toolkit::mpi_test;
use trainer_kit::testing::{check_cuda_refusal, check_refusals};

const STAGES: [Stage; 3] = [Stage::Replicated, Stage::Zero1, Stage::Zero2];

fn cfg(stage: Stage, collectives: Collectives) -> Config {
    common::lab_cfg(stage, collectives, 2)
}

mpi_test! {
    fn each_stage_holds_what_its_formula_says(world at &[1, 3, 4]) {
        tch::set_num_threads(1);
        let n = world.size() as usize;
        let train = ch06::data::digits()?.train;
        let mut totals = vec![];
        for stage in STAGES {
            let mut t = Trainer::new(world, cfg(stage, Collectives::Mpi), (8, 8))?;
            t.fit(&train);
            let (held, l) = (t.held(), &t.layout);
            // The formula at the padded length N * S is exact; at P it is off by the padding.
            let want = formula(stage, l.padded, n);
            if held.total() as f64 != want {
                return Err(format!(
                    "{} at {n} ranks, rank {}: holds {held:?} = {} bytes, but {} at P = N*S = {} \
                     gives {want}", stage.name(), world.rank(), held.total(),
                    stage.formula_text(), l.padded
                ));
            }
            totals.push(held.total());
        }
        if n > 1 && !(totals[0] > totals[1] && totals[1] > totals[2]) {
            return Err(format!("at {n} ranks the stages hold {totals:?} bytes: not falling"));
        }
        Ok(())
    }
}

mpi_test! {
    // Chapter 3's ring: your ex 3.1 and 3.2, or their solutions with `--features solution`.
    #[cfg(feature = "solution")]
    fn on_the_ring_each_rank_sends_2p_n_minus_1_over_n(world at &[2, 3, 4]) {
        tch::set_num_threads(1);
        let n = world.size() as usize;
        let train = ch06::data::digits()?.train;
        for stage in STAGES {
            let mut t = Trainer::new(world, cfg(stage, Collectives::Ring), (8, 8))?;
            let (_, sent) = t.fit(&train);
            let sent = sent.ok_or("no bytes counted in the first step")?;
            let mut total = 0usize;
            world.all_reduce_into(&sent, &mut total, mpi::collective::SystemOperation::sum());
            // Stages 1, 2: equal blocks, every rank exactly 2(N-1)S values. Stage 0: chapter
            // 3's chunks of P differ by one; over all ranks, N times 2P(N-1)/N.
            let (got, want) = match stage {
                Stage::Replicated => (total as f64, n as f64 * ch08::memory::sent_formula(t.layout.params, n)),
                _ => (sent as f64, ch08::memory::sent_formula(t.layout.padded, n)),
            };
            if got != want {
                return Err(format!("{} at {n} ranks: sent {got} bytes, expected {want}", stage.name()));
            }
        }
        Ok(())
    }
}

#[test]
fn bad_flags_fail_before_any_communication() {
    let exe = env!("CARGO_BIN_EXE_zero");
    let cases: [(&[&str], &str); 8] = [
        (&["--stage", "4"], "unknown --stage `4` (0|1|2|3)"),
        (
            &["--prefetch", "on"],
            "--prefetch on: only stage 3 gathers layers, with MPI's non-blocking allgather",
        ),
        (
            &["--model", "deep-mlp", "--max-mem", "160000"],
            "--max-mem 160000: model deep-mlp:30 needs 238644 B per rank at stage 2 (N = 4); \
             stage 3 fits (153008 B) in 160000 B at N = 4: add --stage 3",
        ),
        (
            &["--model", "deep-mlp", "--max-mem", "100000", "--stage", "3"],
            "no stage fits at N = 4; stage 3 fits from N = 7 ranks",
        ),
        (
            &["--batch", "30"],
            "global batch 30 does not split over 4 ranks",
        ),
        (
            &["--collectives", "nccl"],
            "unknown --collectives `nccl` (ring|mpi)",
        ),
        (&["--resume"], "--resume needs --checkpoint DIR"),
        (
            &["--stage", "3", "--checkpoint", "x", "--every", "0"],
            "--every must be at least 1",
        ),
    ];
    check_refusals(exe, "zero", 4, &cases);
    let more_ranks_than_parameters: [(&[&str], &str); 1] = [(
        &["--model", "mlp", "--batch", "30000"],
        "30000 ranks for 26122 parameters: sharding needs at least one parameter per rank",
    )];
    check_refusals(exe, "zero", 30000, &more_ranks_than_parameters);
}

#[test]
fn device_cuda_where_no_gpu_can_be_used_says_why_in_one_line() {
    check_cuda_refusal(env!("CARGO_BIN_EXE_zero"), "zero");
}
