//! Chapter 7 exercise 7.5: the executor, one stage's part of a pipeline step (solution).

use crate::addition::MicroBatches;
use crate::plan::Action;
use crate::spans::{Phase, Timeline};
use crate::stage_model::StageModel;
use crate::wire::{Transfer, WireElem};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::collections::HashMap;
use std::time::Instant;
use tch::Tensor;

// ANCHOR: run_ops
/// Runs this stage's `ops` (stage = rank of `pipe`) on `batch`, accumulating the
/// gradients of the batch's mean loss in the stage's parameters.
pub fn run_ops<E: WireElem>(
    pipe: &SimpleCommunicator,
    ops: &[Action],
    stage: &StageModel,
    batch: &MicroBatches,
    io: Transfer<E>,
    trace: &mut Timeline,
) -> Result<f64, String> {
    let (s, p) = (pipe.rank() as usize, pipe.size() as usize);
    let (first, last) = (s == 0, s + 1 == p);
    let m = batch.len();
    let rows = batch.rows();
    let (in_shape, out_shape) = (stage.in_shape(rows), stage.out_shape(rows));
    // One staging buffer per send this step, allocated before the scope: MPI reads each
    // until its request completes, so none may move or be reused meanwhile.
    let sends = ops
        .iter()
        .filter(|op| {
            matches!(op, Action::Forward(_) if !last) || matches!(op, Action::Backward(_) if !first)
        })
        .count();
    let mut bufs = vec![Vec::<E>::new(); sends];
    // The stage's forward of micro-batch i; on the last stage the loss, with the 1/m: the
    // batch's loss is the mean of the micro-batches'.
    let pass = |x: &Tensor, i: usize| match last {
        true => StageModel::loss(&stage.forward(x), &batch.targets[i]) / m as f64,
        false => stage.forward(x),
    };
    let mut loss_sum = 0.0;
    mpi::request::scope(|scope| {
        let mut slots = bufs.iter_mut();
        let mut pending = Vec::with_capacity(sends);
        // The input (requires grad) and the output (or the scaled loss) of each
        // micro-batch in flight, from its forward to its backward.
        let mut kept: HashMap<usize, (Tensor, Tensor)> = HashMap::new();
        let mut outcome = Ok(());
        for &op in ops {
            let step = (|| -> Result<(), String> {
                match op {
                    Action::Forward(i) => {
                        let t0 = Instant::now();
                        let x = match first {
                            true => batch.inputs[i].shallow_clone(),
                            false => {
                                let x = (io.recv)(pipe, s - 1, i as i32, &in_shape, stage.device)?;
                                trace.record(Phase::Receive, i, t0);
                                x.set_requires_grad(true)
                            }
                        };
                        let t0 = Instant::now();
                        // Under `--recompute stage`, without a graph: Backward(i) runs it again.
                        let y = stage.recompute.forward(|| pass(&x, i));
                        if last {
                            loss_sum += y.double_value(&[]);
                        }
                        trace.record(Phase::Forward, i, t0);
                        if !last {
                            let t0 = Instant::now();
                            let buf = slots.next().expect("one buffer per send");
                            pending.push((io.send)(
                                pipe,
                                s + 1,
                                i as i32,
                                &y,
                                &out_shape,
                                buf,
                                scope,
                            )?);
                            trace.record(Phase::Send, i, t0);
                        }
                        kept.insert(i, (x, stage.recompute.keep(y)));
                    }
                    Action::Backward(i) => {
                        let (x, y) = kept
                            .remove(&i)
                            .ok_or(format!("stage {s}: Backward({i}) before Forward({i})"))?;
                        let t0 = Instant::now();
                        let dy = match last {
                            true => None,
                            false => {
                                Some((io.recv)(pipe, s + 1, i as i32, &out_shape, stage.device)?)
                            }
                        };
                        if dy.is_some() {
                            trace.record(Phase::Receive, i, t0);
                        }
                        let t0 = Instant::now();
                        let y = stage.recompute.again(y, || pass(&x, i));
                        match &dy {
                            None => y.backward(),
                            // d(sum(y * dy))/dy = dy: the received gradient flows back through y.
                            Some(dy) => (&y * dy).sum(tch::Kind::Double).backward(),
                        }
                        trace.record(Phase::Backward, i, t0);
                        if !first {
                            let t0 = Instant::now();
                            let buf = slots.next().expect("one buffer per send");
                            pending.push((io.send)(
                                pipe,
                                s - 1,
                                i as i32,
                                &x.grad(),
                                &in_shape,
                                buf,
                                scope,
                            )?);
                            trace.record(Phase::Send, i, t0);
                        }
                    }
                }
                Ok(())
            })();
            if let Err(why) = step {
                outcome = Err(format!("stage {s}, {op:?}: {why}"));
                break;
            }
        }
        // Every send completes before the step ends (and before the buffers go).
        let t0 = Instant::now();
        for r in pending {
            r.wait();
        }
        trace.record(Phase::Send, m, t0);
        outcome
    })?;
    Ok(loss_sum)
}
// ANCHOR_END: run_ops
