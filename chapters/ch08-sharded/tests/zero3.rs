//! Checks of exercise 8.3 (the backward of one ZeRO-3 layer) through the layer executor
//! (crate::zero3): the units compute what chapter 6's model computes; ZeRO-3 at N = 1..8
//! ranks equals one process's Adam bit for bit, with and without prefetch
//! (tests/zero3_common: `zero3_equivalence`, whose doc says why no tolerance is needed);
//! each rank holds and sends what the formulas say (the trainer's own accounting, and the
//! harness's PMPI recorder on chapter 3's ring); `--max-mem`'s count of every stage is
//! what the trainers hold.
//!
//! Run: `make check CH=08` (your code) or `cargo test -p ch08-sharded --features solution
//! --test main zero3::`.

use crate::zero3_common;

use ch06::model::ModelKind;
use tch::nn::Module;
use toolkit::mpi_test;

const RANKS: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8];

#[test]
fn the_units_compute_what_chapter_6s_model_computes() {
    tch::set_num_threads(1);
    let (x, _) = ch06::data::digits()
        .unwrap()
        .test
        .batch(&(0..32).collect::<Vec<_>>());
    for kind in [ModelKind::Mlp, ModelKind::Cnn, ModelKind::DeepMlp(3)] {
        tch::manual_seed(5);
        let vs = tch::nn::VarStore::new(tch::Device::Cpu);
        let want = ch06::model::build(&vs.root(), kind, (8, 8)).forward(&x);
        tch::manual_seed(5);
        let (units, values) =
            ch08::layers::units(kind, (8, 8), 1, 0, zero3_common::layout).unwrap();
        let mut h = x.shallow_clone();
        for (u, v) in units.iter().zip(&values) {
            let mut offset = 0;
            let params: Vec<tch::Tensor> = u
                .shapes
                .iter()
                .map(|s| {
                    let n = s.iter().product::<i64>() as usize;
                    let t = tch::Tensor::from_slice(&v[offset..offset + n]).view(s.as_slice());
                    offset += n;
                    t
                })
                .collect();
            h = u.forward(&h, &params);
        }
        assert!(
            h.equal(&want),
            "{}: the units' logits differ from chapter 6's model",
            kind.name()
        );
    }
}

mpi_test! {
    fn ex8_3_zero3_equals_one_process_bit_for_bit(world at RANKS) {
        zero3_common::zero3_equivalence(world, ch08::layer_step::backward_layer, false)
    }
}

mpi_test! {
    fn ex8_3_zero3_with_prefetch_equals_one_process(world at &[2, 3, 4]) {
        zero3_common::zero3_equivalence(world, ch08::layer_step::backward_layer, true)
    }
}

mpi_test! {
    /// Ex 8.3's memory: at the peak, in the backward, a rank holds one unit gathered and
    /// that unit's whole gradient, 8 L_max bytes (`layers::Meter`), on MPI's collectives.
    fn ex8_3_the_backward_holds_a_unit_and_its_gradient_at_the_peak(world at &[2, 3]) {
        use ch08::halves::MpiHalves;
        use ch08::memory::gathered_formula;
        use ch08::zero3::{Comm, Sharded};
        use mpi::traits::*;
        tch::set_num_threads(1);
        let (rank, n) = (world.rank() as usize, world.size() as usize);
        let (x, y) = ch06::data::digits()?.train.batch(&(rank * 8..rank * 8 + 8).collect::<Vec<_>>());
        for kind in [ModelKind::Mlp, ModelKind::Cnn, ModelKind::DeepMlp(4)] {
            tch::manual_seed(1);
            let mut m = Sharded::new(kind, (8, 8), (n, rank), 1e-3, zero3_common::layout)?;
            let padded: Vec<usize> = m.units.iter().map(|u| u.layout.padded).collect();
            let mpi = MpiHalves { world };
            m.step(&Comm { halves: &mpi, prefetch: None }, &x, &y);
            let (peak, want) = (m.held().gathered, gathered_formula(&padded, false));
            let why = match peak.cmp(&want) {
                std::cmp::Ordering::Equal => continue,
                std::cmp::Ordering::Less => "below what the backward really holds: the unit's \
                    gradient exists (in LibTorch's tensors) while the gathered parameters are \
                    still held, so count it from then: make the counted buffer \
                    (`Counted::zeros`) before `drop(gathered)`",
                std::cmp::Ordering::Greater => "more than one unit and its gradient: free the \
                    gathered parameters (`drop(gathered)`) before the reduce-scatter and the \
                    gradient buffer after it",
            };
            return Err(format!(
                "{} at {n} ranks, rank {rank}: your backward_layer's peak is {peak} B counted, \
                 expected 8 L_max = {want} B (a unit of L padded parameters gathered, 4L, \
                 and its whole gradient, 4L): {why}",
                kind.name()
            ));
        }
        Ok(())
    }
}

mpi_test! {
    // Chapter 3's ring: your ex 3.1 and 3.2, or their solutions with `--features solution`.
    #[cfg(feature = "solution")]
    fn zero3_holds_16p_over_n_plus_a_layer_and_sends_3p_n_minus_1_over_n(world at &[2, 3, 4]) {
        use ch08::halves::{MpiHalves, RingHalves};
        use ch08::memory::{formula, gathered_formula, sent_formula_zero3, Stage};
        use ch08::zero3::{Comm, Sharded};
        use mpi::traits::*;
        tch::set_num_threads(1);
        let (rank, n) = (world.rank() as usize, world.size() as usize);
        let (x, y) = ch06::data::digits()?.train.batch(&(rank * 8..rank * 8 + 8).collect::<Vec<_>>());
        for (kind, prefetch) in [(ModelKind::Mlp, false), (ModelKind::Cnn, false), (ModelKind::DeepMlp(4), true)] {
            tch::manual_seed(1);
            let mut m = Sharded::new(kind, (8, 8), (n, rank), 1e-3, zero3_common::layout)?;
            let padded: Vec<usize> = m.units.iter().map(|u| u.layout.padded).collect();
            let (ring, mpi) = (RingHalves::new(world), MpiHalves { world });
            let comm = match prefetch {
                false => Comm { halves: &ring, prefetch: None },
                true => Comm { halves: &mpi, prefetch: Some(world) },
            };
            toolkit::trace::start();
            m.step(&comm, &x, &y);
            let log = toolkit::trace::stop();
            let held = m.held();
            let total: usize = padded.iter().sum();
            let between = formula(Stage::Zero3, total, n) as usize;
            let peak = gathered_formula(&padded, prefetch);
            let what = format!("{} at {n} ranks (prefetch {prefetch}), rank {rank}", kind.name());
            if held.params + held.grads + held.adam != between || held.gathered != peak {
                return Err(format!(
                    "{what}: holds {held:?}, expected 16P/N = {between} between steps (P padded \
                     per layer: {total}) and a peak of {peak} gathered (8L, +4L' with prefetch)"
                ));
            }
            if !prefetch {
                let sent: usize = log.iter().filter(|m| m.sent).map(|m| m.bytes as usize).sum();
                let want = sent_formula_zero3(&padded, n);
                if sent as f64 != want {
                    return Err(format!("{what}: sent {sent} bytes in a step, expected 3P(N-1)/N x 4 = {want}"));
                }
            }
        }
        Ok(())
    }
}

mpi_test! {
    fn the_memory_budget_is_what_the_trainer_holds(world at &[1, 3, 4]) {
        use ch08::budget::{needs, STAGES};
        use ch08::config::{Collectives, Config};
        use ch08::halves::MpiHalves;
        use ch08::memory::Stage;
        use ch08::zero3::{Comm, Sharded};
        use mpi::traits::*;
        tch::set_num_threads(1);
        let (rank, n) = (world.rank() as usize, world.size() as usize);
        let train = ch06::data::digits()?.train;
        let (x, y) = train.batch(&(rank * 8..rank * 8 + 8).collect::<Vec<_>>());
        for kind in [ModelKind::Mlp, ModelKind::DeepMlp(3)] {
            let layers = ch08::layers::layer_params(kind, (8, 8));
            for stage in STAGES {
                let held = match stage {
                    Stage::Zero3 => {
                        let l = ch08::shards::Layout::new;
                        let mut m = Sharded::new(kind, (8, 8), (n, rank), 1e-3, l)?;
                        let halves = MpiHalves { world };
                        m.step(&Comm { halves: &halves, prefetch: None }, &x, &y);
                        m.held().total()
                    }
                    _ => {
                        let mut c = Config { stage, collectives: Collectives::Mpi, model: kind, ..Config::default() };
                        (c.max_steps, c.common.quiet, c.common.batch) = (Some(1), true, 24);
                        let mut t = ch08::train::Trainer::new(world, c, (8, 8))?;
                        t.fit(&train);
                        t.held().total()
                    }
                };
                let budget = needs(stage, &layers, n, false);
                if held != budget {
                    return Err(format!(
                        "{} at {n} ranks, {}: the trainer holds {held} B but --max-mem counts \
                         {budget} B", kind.name(), stage.name()
                    ));
                }
            }
        }
        Ok(())
    }
}
