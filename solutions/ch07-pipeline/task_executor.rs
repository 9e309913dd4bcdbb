//! Chapter 7 exercise 7.9: the executor for plans by rank (solution).

use crate::addition::MicroBatches;
use crate::plan::{rank_of, tag, Pass, Task};
use crate::spans::{Phase, Timeline};
use crate::stage_model::StageModel;
use crate::wire::{Transfer, WireElem};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::HashMap;
use std::time::Instant;
use tch::Tensor;

/// What a (stage, micro-batch) keeps between its passes: the input (requires grad past
/// stage 0) and the output, or, once the input gradient is done, the scalar the weight
/// gradient flows back from.
enum Kept {
    Forward(Tensor, Tensor),
    Split(Tensor),
}

// ANCHOR: run_tasks
/// Runs this rank's `tasks` over its `chunks` (stage `c * p + r`), accumulating the
/// gradients of the batch's mean loss in their parameters.
pub fn run_tasks<E: WireElem>(
    pipe: &SimpleCommunicator,
    tasks: &[Task],
    chunks: &[StageModel],
    batch: &MicroBatches,
    io: Transfer<E>,
    trace: &mut Timeline,
) -> Result<f64, String> {
    let (r, p) = (pipe.rank() as usize, pipe.size() as usize);
    let stages = chunks.len() * p;
    let (m, rows) = (batch.len(), batch.rows());
    let sends = |t: &&Task| match t.pass {
        Pass::Forward => t.stage + 1 < stages,
        Pass::Backward | Pass::InputGrad => t.stage > 0,
        Pass::WeightGrad => false,
    };
    let mut bufs = vec![Vec::<E>::new(); tasks.iter().filter(sends).count()];
    let mut loss_sum = 0.0;
    mpi::request::scope(|scope| {
        let mut slots = bufs.iter_mut();
        let mut pending = vec![];
        let mut kept: HashMap<(usize, usize), Kept> = HashMap::new();
        let mut outcome = Ok(());
        for &t in tasks {
            let step = (|| -> Result<(), String> {
                let (s, i) = (t.stage, t.mb);
                let stage = chunks.get(s / p).filter(|_| rank_of(s, p) == r);
                let stage = stage.ok_or(format!("stage {s} is not on rank {r}"))?;
                let (first, last) = (s == 0, s + 1 == stages);
                let (in_shape, out_shape) = (stage.in_shape(rows), stage.out_shape(rows));
                // A send: post it, keep its request until the step ends.
                macro_rules! send {
                    ($to:expr, $grad:expr, $x:expr, $shape:expr) => {{
                        let t0 = Instant::now();
                        let buf = slots.next().expect("one buffer per send");
                        let to = rank_of($to, p);
                        let tg = tag($to, $grad, i, m);
                        pending.push((io.send)(pipe, to, tg, $x, $shape, buf, scope)?);
                        trace.record(Phase::Send, i, t0);
                    }};
                }
                match t.pass {
                    Pass::Forward => {
                        let x = match first {
                            true => batch.inputs[i].shallow_clone(),
                            false => {
                                let t0 = Instant::now();
                                let (from, tg) = (rank_of(s - 1, p), tag(s, false, i, m));
                                let x = (io.recv)(pipe, from, tg, &in_shape, stage.device)?;
                                trace.record(Phase::Receive, i, t0);
                                x.set_requires_grad(true)
                            }
                        };
                        let t0 = Instant::now();
                        let y = stage.forward(&x);
                        let y = match last {
                            true => StageModel::loss(&y, &batch.targets[i]) / m as f64,
                            false => y,
                        };
                        trace.record(Phase::Forward, i, t0);
                        if !last {
                            send!(s + 1, false, &y, &out_shape);
                        }
                        kept.insert((s, i), Kept::Forward(x, y));
                    }
                    Pass::Backward | Pass::InputGrad => {
                        let Some(Kept::Forward(x, y)) = kept.remove(&(s, i)) else {
                            return Err("no forward kept for it".into());
                        };
                        // The scalar to differentiate: the scaled loss on the last
                        // stage, else the output against its received gradient.
                        let z = match last {
                            true => {
                                loss_sum += y.double_value(&[]);
                                y
                            }
                            false => {
                                let t0 = Instant::now();
                                let (from, tg) = (rank_of(s + 1, p), tag(s, true, i, m));
                                let dy = (io.recv)(pipe, from, tg, &out_shape, stage.device)?;
                                trace.record(Phase::Receive, i, t0);
                                (&y * dy).sum(tch::Kind::Double)
                            }
                        };
                        let t0 = Instant::now();
                        let dx = match (t.pass, first) {
                            (Pass::Backward, _) => {
                                z.backward();
                                (!first).then(|| x.grad())
                            }
                            (_, true) => None, // stage 0: no input gradient to send
                            (_, false) => {
                                Some(Tensor::run_backward(&[&z], &[&x], true, false).remove(0))
                            }
                        };
                        trace.record(Phase::Backward, i, t0);
                        if let Some(dx) = dx {
                            send!(s - 1, true, &dx, &in_shape);
                        }
                        if t.pass == Pass::InputGrad {
                            kept.insert((s, i), Kept::Split(z));
                        }
                    }
                    Pass::WeightGrad => {
                        let Some(Kept::Split(z)) = kept.remove(&(s, i)) else {
                            return Err("no input gradient before it".into());
                        };
                        let t0 = Instant::now();
                        z.backward(); // the parameters' gradients (and the input's again)
                        trace.record(Phase::Backward, i, t0);
                    }
                }
                Ok(())
            })();
            if let Err(why) = step {
                outcome = Err(format!("rank {r}, {t:?}: {why}"));
                break;
            }
        }
        let t0 = Instant::now();
        for request in pending {
            request.wait();
        }
        trace.record(Phase::Send, m, t0);
        outcome
    })?;
    Ok(loss_sum)
}
// ANCHOR_END: run_tasks
