//! Checks of exercise 14.3 (the dynamic loss scale, agreed over the ranks): a worked
//! sequence on one rank (doubling after the growth interval's clean steps, halving and a
//! skip on an overflow, the count reset by both); then under mpirun at 1 to 4 ranks,
//! overflows on some ranks only: every rank must take the same decision and hold the same
//! scale after every step. Then the `scaling` lab's training at 3 ranks (ex 14.1 and 14.3
//! together): f16 gradients under the scaler train as f32 ones do, and unscaled they do
//! not train. Run: `make check CH=14` or `cargo test -p ch14-precision --features solution
//! --test main scaler::`.

use crate::common::scaler::check_agreement;
use ch12::lsq::Problem;
use ch14::loss_scale::{LossScaler, Verdict};
use ch14::mixed::{train, Precision};
use ch14::scaler::update;
use mpi::traits::*;
use toolkit::mpi_test;

mpi_test! {
    fn ex14_3_the_worked_sequence(world at &[1]) {
        // Interval 3 from scale 8: three clean steps double it, an overflow halves it.
        let flags = [false, false, false, false, true, false, false, false, true, true];
        let want = [(8.0, 1), (8.0, 2), (16.0, 0), (16.0, 1), (8.0, 0), (8.0, 1), (8.0, 2),
                    (16.0, 0), (8.0, 0), (4.0, 0)];
        let mut s = LossScaler::new(8.0, 3);
        for (n, (&overflow, &(scale, clean))) in flags.iter().zip(&want).enumerate() {
            let verdict = update(world, &mut s, overflow);
            let skip = if overflow { Verdict::Skip } else { Verdict::Step };
            if verdict != skip || s.scale != scale || s.clean_steps != clean {
                let why = match (overflow, s.scale > scale, s.scale < scale) {
                    (true, true, _) => "an overflow halves the scale",
                    (false, _, true) => "a clean step never lowers the scale",
                    (false, true, _) => "the scale doubles only after growth_interval clean steps in a row",
                    (false, false, false) if s.clean_steps != clean => {
                        "count the clean steps, and reset the count when the scale changes"
                    }
                    _ => "an overflow skips the step and resets the count; a clean step steps",
                };
                return Err(format!(
                    "step {n} (overflow: {overflow}): got {verdict:?}, scale {}, clean steps {}; \
                     want {skip:?}, scale {scale}, clean steps {clean}: {why}",
                    s.scale, s.clean_steps
                ));
            }
        }
        Ok(())
    }

    fn ex14_3_every_rank_decides_the_same(world at &[1, 2, 3, 4]) {
        check_agreement(world, update)
    }

    fn the_f16_run_under_the_scaler_trains_like_f32(world at &[3]) {
        let problem = Problem::new(14, 512, 16, world.rank() as usize, world.size() as usize);
        let factor = 1.0 / (1u64 << 28) as f32;
        let run = |precision| train(world, &problem, 60, 0.05, factor, precision, update);
        let f32 = run(Precision::F32);
        let scaled = run(Precision::F16(LossScaler::new(2f32.powi(36), 10)));
        let unscaled = run(Precision::F16(LossScaler::new(1.0, u32::MAX)));
        let (want, got, stuck) = (f32.losses[60], scaled.losses[60], unscaled.losses[60]);
        if (got - want).abs() > 0.05 * want {
            return Err(format!("f16 under the scaler ends at loss {got:e}, f32 at {want:e}"));
        }
        if stuck < 0.9 * unscaled.losses[0] {
            return Err(format!("unscaled f16 trained (loss {stuck:e}): its gradients should flush to zero"));
        }
        Ok(())
    }
}
