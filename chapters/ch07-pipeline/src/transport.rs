//! Given: `--transport`'s choice made real: nothing for `mpi` (ex 7.2's messages), or this
//! stage's node-local link for `shm` (a shared-memory window) and `ipc` (CUDA IPC), sized
//! for the trainer's micro-batches and installed for the executor ([`crate::node_link`]),
//! and the pair of transfer functions that runs on it.

use crate::grid::Grid;
use crate::node_link::{self, on_link, Link, LinkGuard, Medium};
use crate::pipe_config::{PipeConfig, Transport};
use crate::stage_model::StageModel;
use crate::wire::{numel, SendRequest, Transfer, WireElem};
use mpi::request::LocalScope;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Tensor};

/// The link of `kind` for this rank's stage of `pipe` (stage = rank there), with room for
/// `from_prev` and `from_next` values of `E` per slot; collective over `world`. `None` for
/// `mpi`.
pub fn link<E: WireElem>(
    world: &SimpleCommunicator,
    pipe: &SimpleCommunicator,
    kind: Transport,
    room: (usize, usize),
    device: Device,
) -> Result<Option<Link>, String> {
    let (from_prev, from_next) = room;
    let medium = match kind {
        Transport::Mpi => return Ok(None),
        Transport::Shm => Medium::Shm(crate::shm_window::ShmWindow::new::<E>(
            world, pipe, from_prev, from_next,
        )?),
        Transport::Ipc => {
            let mine = crate::ipc_slots::IpcSlots::new::<E>(pipe, from_prev, from_next, device);
            let ok =
                toolkit::lockstep::agree(world, mine.as_ref().map(|_| ()).map_err(Clone::clone));
            match (mine, ok) {
                (Ok(slots), Ok(())) => Medium::Ipc(slots),
                (Ok(slots), Err(why)) => {
                    std::mem::forget(slots); // another rank failed: no collective close
                    return Err(why);
                }
                (Err(_), Err(why)) | (Err(why), Ok(())) => return Err(why),
            }
        }
    };
    let (s, p) = (pipe.rank() as usize, pipe.size() as usize);
    Ok(Some(Link::new(medium, s, p)))
}

/// The trainer's link for `cfg.transport`: slots of one micro-batch's activations (from
/// the stage before) and of its output's gradient (from the stage after), installed.
pub fn open<E: WireElem>(
    world: &SimpleCommunicator,
    grid: &Grid,
    stage: &StageModel,
    cfg: &PipeConfig,
) -> Result<Option<LinkGuard>, String> {
    let rows = (cfg.common.batch / cfg.dp / cfg.micro) as i64;
    let from_prev = if stage.first {
        0
    } else {
        numel(&stage.in_shape(rows))
    };
    let from_next = if stage.last {
        0
    } else {
        numel(&stage.out_shape(rows))
    };
    let link = link::<E>(
        world,
        &grid.pipeline,
        cfg.transport,
        (from_prev, from_next),
        stage.device,
    )?;
    Ok(link.map(node_link::install))
}

/// A [`wire::SendFn`] on this thread's link: writes `t` into the next slot towards `to`
/// and posts the doorbell (the request the executor waits for).
#[allow(clippy::ptr_arg)] // the signature of `wire::SendFn`
pub fn send_via_link<'a, 'b, E: WireElem>(
    comm: &SimpleCommunicator,
    to: usize,
    tag: i32,
    t: &Tensor,
    shape: &[i64],
    buf: &'a mut Vec<E>,
    scope: &'b LocalScope<'a>,
) -> Result<SendRequest<'a, 'b, E>, String> {
    let _ = buf; // nothing is staged: the values go into the slot, the doorbell is empty
    on_link(|link| link.send::<E>(comm, to, tag, t, shape))?;
    let doorbell: &'static [E] = &[];
    Ok(comm
        .process_at_rank(to as i32)
        .immediate_send_with_tag(scope, doorbell, tag))
}

/// A [`wire::RecvFn`] on this thread's link: waits for the doorbell from `from`, copies
/// the slot's values into a new tensor on `device`, acks.
pub fn recv_via_link<E: WireElem>(
    comm: &SimpleCommunicator,
    from: usize,
    tag: i32,
    shape: &[i64],
    device: Device,
) -> Result<Tensor, String> {
    on_link(|link| link.recv::<E>(comm, from, tag, shape, device))
}

/// The pair the executor runs on the node-local link (`E`s in the slots).
pub fn transfer<E: WireElem>() -> Transfer<E> {
    Transfer {
        send: send_via_link::<E>,
        recv: recv_via_link::<E>,
    }
}
