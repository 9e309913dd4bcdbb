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
use tch::{Device, Tensor};

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
    // The stage's forward of micro-batch i; on the last stage the loss, with the 1/m: the
    // batch's loss is the mean of the micro-batches'.
    let pass = |x: &Tensor, i: usize| match last {
        true => StageModel::loss(&stage.forward(x), &batch.targets[i]) / m as f64,
        false => stage.forward(x),
    };
    // The stage's one staging buffer: each send completes with the next op's receive.
    let mut buf = Vec::<E>::new();
    // The send the previous op owes: (to, micro-batch, tensor, shape).
    let mut owed: Option<(usize, usize, Tensor, &[i64])> = None;
    // The input (requires grad) and what recomputation keeps of the output (or the scaled
    // loss) of each micro-batch in flight, from its forward to its backward.
    let mut kept: HashMap<usize, (Tensor, Tensor)> = HashMap::new();
    let mut loss_sum = 0.0;
    for &op in ops {
        let (i, from, shape) = match op {
            Action::Forward(i) => (i, (!first).then(|| s - 1), &in_shape),
            Action::Backward(i) => (i, (!last).then(|| s + 1), &out_shape),
        };
        let wants = from.map(|from| (from, i, &shape[..]));
        let got = exchange(pipe, io, &mut buf, owed.take(), wants, stage.device, trace)
            .map_err(|why| format!("stage {s}, {op:?}: {why}"))?;
        let t0 = Instant::now();
        match op {
            Action::Forward(i) => {
                let x = match got {
                    Some(x) => x.set_requires_grad(true),
                    None => batch.inputs[i].shallow_clone(),
                };
                // Under `--recompute stage`, without a graph: Backward(i) runs it again.
                let y = stage.recompute.forward(|| pass(&x, i));
                if last {
                    loss_sum += y.double_value(&[]);
                } else {
                    owed = Some((s + 1, i, y.shallow_clone(), &out_shape[..]));
                }
                trace.record(Phase::Forward, i, t0);
                kept.insert(i, (x, stage.recompute.keep(y)));
            }
            Action::Backward(i) => {
                let (x, y) = kept
                    .remove(&i)
                    .ok_or(format!("stage {s}: Backward({i}) before Forward({i})"))?;
                let y = stage.recompute.again(y, || pass(&x, i));
                match &got {
                    None => y.backward(),
                    // d(sum(y * dy))/dy = dy: the received gradient flows back through y.
                    Some(dy) => (&y * dy).sum(tch::Kind::Double).backward(),
                }
                trace.record(Phase::Backward, i, t0);
                if !first {
                    owed = Some((s - 1, i, x.grad(), &in_shape[..]));
                }
            }
        }
    }
    // The last op's send completes before the step ends.
    exchange(pipe, io, &mut buf, owed, None, stage.device, trace)
        .map_err(|why| format!("stage {s}, the last send: {why}"))?;
    Ok(loss_sum)
}

/// Posts `send` (to, micro-batch, tensor, shape) from `buf`, receives `recv` (from,
/// micro-batch, shape), then waits for the send: both done when it returns, so `buf` is
/// free again. A send may wait here for its receiver: `send_check` shows that GPipe and
/// 1F1B cannot deadlock so.
fn exchange<E: WireElem>(
    pipe: &SimpleCommunicator,
    io: Transfer<E>,
    buf: &mut Vec<E>,
    send: Option<(usize, usize, Tensor, &[i64])>,
    recv: Option<(usize, usize, &[i64])>,
    device: Device,
    trace: &mut Timeline,
) -> Result<Option<Tensor>, String> {
    mpi::request::scope(|scope| {
        let mut posted = None;
        if let Some((to, i, t, shape)) = &send {
            let t0 = Instant::now();
            posted = Some((*i, (io.send)(pipe, *to, *i as i32, t, shape, buf, scope)?));
            trace.record(Phase::Send, *i, t0);
        }
        let mut got = Ok(None);
        if let Some((from, i, shape)) = recv {
            let t0 = Instant::now();
            got = (io.recv)(pipe, from, i as i32, shape, device).map(Some);
            trace.record(Phase::Receive, i, t0);
        }
        if let Some((i, request)) = posted {
            let t0 = Instant::now();
            request.wait(); // after the receive: the neighbours' crossing messages both move
            trace.record(Phase::Send, i, t0);
        }
        got
    })
}
// ANCHOR_END: run_ops
