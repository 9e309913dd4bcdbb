//! Checks of the given ZeRO stages in mixed precision (`ch14::zero`, the `zero_mixed`
//! lab), under mpirun at 1 and 3 ranks on chapter 6's CNN and the first steps of the
//! digits: after 3 steps each stage holds, on every rank, exactly the ZeRO paper's bytes
//! for mixed precision (16P, 4P + 12P/N, 2P + 14P/N, 16P/N over the padded layers); stage
//! 3's most held inside a step is exactly a gathered bf16 layer and its whole bf16 gradient
//! (4 bytes per element of the largest padded layer), stage 2's that gradient alone; and
//! stages 1 to 3 train as stage 0 does (the same master weights, within 1e-6: only the
//! order of MPI's f32 sums differs). Run: `cargo test -p ch14-precision --test main zero::`.

use ch06::data::digits;
use ch06::model::ModelKind;
use ch08::budget::STAGES;
use ch08::memory::Stage;
use ch14::zero::MixedZero;
use ch14::zero_memory::{formula, formula_text};
use mpi::traits::*;
use toolkit::lockstep::agree;
use toolkit::mpi_test;

mpi_test! {
    fn zero_in_mixed_precision_holds_the_papers_bytes(world at &[1, 3]) {
        let data = digits()?;
        let (rank, n) = (world.rank(), world.size() as usize);
        let mut stage0: Option<Vec<f32>> = None;
        for stage in STAGES {
            let image = data.train.image_size();
            let mut zero = MixedZero::new(world, stage, ModelKind::Cnn, image, 6, 1e-3)?;
            zero.fit(&data, 12, 3, 6);
            let (held, p) = (zero.held(), zero.padded());
            let want = formula(stage, p, n);
            let largest = zero.units.iter().map(|u| u.layout.padded).max().unwrap_or(0);
            let peak = match stage {
                Stage::Zero3 => 4 * largest,
                Stage::Zero2 => 2 * largest,
                _ => 0,
            };
            let mine = if held.total() != want {
                Err(format!(
                    "{} at N = {n}: rank {rank} holds {} B after 3 steps ({held:?}), the \
                     formula {} says {want} B (P = {p} padded)",
                    stage.name(), held.total(), formula_text(stage)
                ))
            } else if zero.meter.peak() != peak {
                Err(format!(
                    "{} at N = {n}: rank {rank}'s in-step peak is {} B, want {peak} B (the \
                     largest padded layer, {largest} elements: gathered and its gradient in bf16)",
                    stage.name(), zero.meter.peak()
                ))
            } else {
                Ok(())
            };
            agree(world, mine)?;
            let master = zero.gathered_master();
            match &stage0 {
                None => stage0 = Some(master),
                Some(want) => {
                    let far = master.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
                    if far > 1e-6 {
                        return Err(format!(
                            "{} at N = {n}: master weights {far:.1e} from stage 0's after 3 \
                             steps (want within 1e-6)",
                            stage.name()
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
