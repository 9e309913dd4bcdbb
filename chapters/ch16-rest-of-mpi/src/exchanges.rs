//! Given: the chapter's exchanges side by side, and the solver that runs any of them.
//!
//! [`Exchange::Packed`] is chapter 4's way (columns packed into buffers, one `MPI_Sendrecv`
//! per shift); the others are this chapter's exercises. Each fills the same ghost layer;
//! the tests check each against the serial solver, the lab times them on one problem.
//! The parts are function pointers in [`Parts`]: the lab uses yours ([`Parts::yours`]),
//! the tests of one exercise swap in only that exercise (the others are not called).

use crate::grid::{run_steps, Block};
use crate::inbox::Inbox;
use crate::requests::Plan;
use crate::window::Window;
use ch04::field::Field;
use ch04::halo::{Halo, Side, SIDES};
use ch04::problem::Problem;
use ch04::topology::Neighbours;
use mpi::collective::SystemOperation;
use mpi::datatype::UserDatatype;
use mpi::point_to_point as p2p;
use mpi::topology::{CartesianCommunicator, SimpleCommunicator};
use mpi::traits::*;
use std::time::Instant;

/// How the ghosts are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// Chapter 4's: pack the columns, one `MPI_Sendrecv` per shift, unpack.
    Packed,
    /// Ex 16.1: four `MPI_Sendrecv`s, columns described by a vector datatype.
    Datatypes,
    /// Eight immediate sends and receives, made every step (what ex 16.2 makes once).
    Immediate,
    /// Ex 16.2: eight persistent requests made once, started every step.
    Persistent,
    /// Ex 16.3: one `MPI_Neighbor_alltoallv` on the Cartesian communicator.
    Neighbourhood,
    /// Ex 16.4: each edge put into the neighbour's window, between two fences.
    Fence,
    /// Ex 16.4: the same puts, in post-start-complete-wait epochs among neighbours.
    Pscw,
}

/// Every exchange, in the order the lab shows them.
pub const EXCHANGES: [Exchange; 7] = [
    Exchange::Packed,
    Exchange::Datatypes,
    Exchange::Immediate,
    Exchange::Persistent,
    Exchange::Neighbourhood,
    Exchange::Fence,
    Exchange::Pscw,
];

/// Ex 16.4's exchanges: one epoch of puts into the neighbours' windows.
pub type RmaFn = fn(&mut Window, &Neighbours, &mut Halo, &Inbox);

/// The parts the exchanges are built from.
#[derive(Clone, Copy)]
pub struct Parts {
    /// Ex 16.1: the column datatype.
    pub column_type: fn(&Field) -> UserDatatype,
    /// Ex 16.1: the exchange in place.
    pub datatypes: fn(&CartesianCommunicator, &Neighbours, &mut Field, &UserDatatype),
    /// Ex 16.2: the requests, made once.
    pub plan: for<'c> fn(&'c CartesianCommunicator, &Neighbours, Halo) -> Plan<'c>,
    /// Ex 16.2: one exchange with them.
    pub persistent: fn(&mut Plan, &Neighbours, &mut Field),
    /// Ex 16.3: the neighbourhood collective.
    pub neighbourhood: fn(&CartesianCommunicator, &mut Halo),
    /// Ex 16.4: the puts between fences.
    pub fence: RmaFn,
    /// Ex 16.4: the puts in post-start-complete-wait epochs.
    pub pscw: RmaFn,
}

impl Parts {
    /// Every part from your exercise files (the solutions with `--features solution`).
    pub fn yours() -> Parts {
        Parts {
            column_type: crate::datatypes::column_type,
            datatypes: crate::datatypes::exchange_datatypes,
            plan: crate::persistent::plan_halo,
            persistent: crate::persistent::exchange_persistent,
            neighbourhood: crate::neighbour_halo::exchange_neighbourhood,
            fence: crate::rma::exchange_fence,
            pscw: crate::rma::exchange_pscw,
        }
    }
}

/// A finished run on one rank.
pub struct Solved {
    /// The rank's block (its place, its communicator, the field at time 0).
    pub block: Block,
    /// The field after the last step.
    pub field: Field,
}

/// Runs `steps` steps of `problem` over the ranks of `world`, the ghosts filled by
/// `exchange` built from `parts`. Refuses (every rank alike) a grid the ranks cannot share.
pub fn solve(
    world: &SimpleCommunicator,
    problem: &Problem,
    steps: usize,
    exchange: Exchange,
    parts: &Parts,
) -> Result<Solved, String> {
    let block = Block::new(world, problem)?;
    let field = with_exchange(&block, exchange, parts, |fill| {
        run_steps(&block.field, steps, fill)
    });
    Ok(Solved { block, field })
}

/// Seconds per exchange of `exchange` on this rank's block of `problem`, the exchange
/// alone (no update between), and how many were timed: after one to warm up and five to
/// calibrate, as many as fit in `budget` (the slowest rank's calibration decides, so all
/// ranks run the same number), at most `reps`. Collective.
pub fn time_exchange(
    world: &SimpleCommunicator,
    problem: &Problem,
    exchange: Exchange,
    parts: &Parts,
    reps: usize,
    budget: f64,
) -> Result<(f64, usize), String> {
    let block = Block::new(world, problem)?;
    Ok(with_exchange(&block, exchange, parts, |fill| {
        let mut f = block.field.clone();
        let mut timed = |n: usize| {
            block.cart.barrier();
            let start = Instant::now();
            for _ in 0..n {
                fill(&mut f);
            }
            start.elapsed().as_secs_f64() / n as f64
        };
        timed(1);
        let mut slowest = 0.0;
        let calibration = timed(5);
        world.all_reduce_into(&calibration, &mut slowest, SystemOperation::max());
        let n = ((budget / slowest) as usize).clamp(5, reps.max(5));
        (timed(n), n)
    }))
}

/// Fills the ghosts of `f` (a field of `block`'s shape) once with `exchange`.
/// Collective over `block.cart`.
pub fn fill_once(block: &Block, exchange: Exchange, parts: &Parts, f: &mut Field) {
    with_exchange(block, exchange, parts, |fill| fill(f));
}

/// Sets up `exchange` on `block` (its datatype, its persistent requests, its buffers),
/// hands `body` a function that fills a field's ghosts with it, and frees the setup after.
fn with_exchange<R>(
    block: &Block,
    exchange: Exchange,
    parts: &Parts,
    body: impl FnOnce(&mut dyn FnMut(&mut Field)) -> R,
) -> R {
    let (cart, nb, f0) = (&block.cart, &block.nb, &block.field);
    match exchange {
        Exchange::Packed => {
            let mut halo = new_halo(f0.rows, f0.cols);
            body(&mut |f| packed(cart, nb, &mut halo, f))
        }
        Exchange::Datatypes => {
            let column = (parts.column_type)(f0);
            body(&mut |f| (parts.datatypes)(cart, nb, f, &column))
        }
        Exchange::Immediate => {
            let mut halo = new_halo(f0.rows, f0.cols);
            body(&mut |f| immediate(cart, nb, &mut halo, f))
        }
        Exchange::Persistent => {
            let mut plan = (parts.plan)(cart, nb, new_halo(f0.rows, f0.cols));
            body(&mut |f| (parts.persistent)(&mut plan, nb, f))
        }
        Exchange::Neighbourhood => {
            let mut halo = new_halo(f0.rows, f0.cols);
            body(&mut |f| {
                halo.pack_from(f);
                (parts.neighbourhood)(cart, &mut halo);
                halo.unpack_into(f, nb);
            })
        }
        Exchange::Fence | Exchange::Pscw => {
            let rma = if exchange == Exchange::Fence {
                parts.fence
            } else {
                parts.pscw
            };
            let inbox = Inbox::new(&block.decomp);
            let mut window = Window::allocate(cart, inbox.len()); // freed collectively
            let mut halo = new_halo(f0.rows, f0.cols);
            body(&mut |f| {
                halo.pack_from(f);
                rma(&mut window, nb, &mut halo, &inbox);
                halo.unpack_into(f, nb);
            })
        }
    }
}

/// Chapter 4's exchange (its ex 4.4): pack the columns, one `MPI_Sendrecv` per shift,
/// unpack. The same four shifts as ex 16.1, so the two differ only in the packing.
pub fn packed(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo, f: &mut Field) {
    halo.pack_from(f);
    for side in [Side::South, Side::North, Side::East, Side::West] {
        let from_side = side.opposite();
        let (out, into) = (
            &halo.send[side as usize],
            &mut halo.recv[from_side as usize],
        );
        let tag = side.tag();
        match (nb.of(side), nb.of(from_side)) {
            (Some(d), Some(s)) => {
                let (to, from) = (cart.process_at_rank(d), cart.process_at_rank(s));
                p2p::send_receive_into_with_tags(&out[..], &to, tag, &mut into[..], &from, tag);
            }
            (Some(d), None) => cart.process_at_rank(d).send_with_tag(&out[..], tag),
            (None, Some(s)) => {
                cart.process_at_rank(s)
                    .receive_into_with_tag(&mut into[..], tag);
            }
            (None, None) => {}
        }
    }
    halo.unpack_into(f, nb);
}

/// The exchange of ex 16.2 made afresh every time: pack, post the eight immediate
/// receives and sends, wait for them all, unpack.
pub fn immediate(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo, f: &mut Field) {
    halo.pack_from(f);
    let (send, recv) = (&halo.send, &mut halo.recv);
    mpi::request::multiple_scope(8, |scope, requests| {
        for (side, buf) in SIDES.iter().zip(recv.iter_mut()) {
            if let Some(r) = nb.of(*side) {
                let from = cart.process_at_rank(r);
                let tag = side.opposite().tag();
                requests.add(from.immediate_receive_into_with_tag(scope, &mut buf[..], tag));
            }
        }
        for (side, buf) in SIDES.iter().zip(send.iter()) {
            if let Some(r) = nb.of(*side) {
                let to = cart.process_at_rank(r);
                requests.add(to.immediate_send_with_tag(scope, &buf[..], side.tag()));
            }
        }
        requests.wait_all(&mut vec![]);
    });
    halo.unpack_into(f, nb);
}

/// The halo buffers of a `rows x cols` block, columns packed by a loop of ours.
pub fn new_halo(rows: usize, cols: usize) -> Halo {
    Halo::with_packing(rows, cols, pack_column, unpack_column)
}

/// Copies padded column `j` of the owned rows into `out`.
fn pack_column(f: &Field, j: usize, out: &mut [f64]) {
    for (r, x) in out.iter_mut().enumerate() {
        *x = f.data[f.idx(r + 1, j)];
    }
}

/// Copies `column` into padded column `j` of the owned rows.
fn unpack_column(f: &mut Field, j: usize, column: &[f64]) {
    for (r, &x) in column.iter().enumerate() {
        let at = f.idx(r + 1, j);
        f.data[at] = x;
    }
}
