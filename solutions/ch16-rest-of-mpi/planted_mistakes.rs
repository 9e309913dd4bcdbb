//! Mistakes a learner makes in this chapter, planted on purpose, and what the checks say
//! about them: ex 16.1's column type with the stride of an unpadded row, a shift that
//! receives into the row it sends (refused by the wrapper), and one that receives into
//! the ghost layer on the wrong side; ex 16.2's exchange that never packs, and receives
//! tagged with the wrong side (a deadlock, named); ex 16.3's blocks all at displacement 0,
//! and counts in bytes (refused by the wrapper); ex 16.4's and 16.5's are in the module
//! `planted_rma_io.rs`.
//!
//! Run: `cargo test -p ch16-rest-of-mpi --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch16-rest-of-mpi/tests/common/mod.rs"]
mod common;

use ch04::field::Field;
use ch04::halo::{Halo, Side, SIDES};
use ch04::problem::{Boundary, Problem};
use ch04::topology::Neighbours;
use ch16::cells::{sendrecv_cells, Cells, Shift};
use ch16::exchanges::{Exchange, Parts};
use ch16::neighbourhood::{alltoallv, Blocks};
use ch16::requests::Plan;
use common::column::column_property;
use common::{exchange_property, matches_serial, Case};
use mpi::datatype::UserDatatype;
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;
use proptest::strategy::Just;
use toolkit::lockstep::property;
use toolkit::planted::{launch_self, named};
use toolkit::testing::run_body;

// ANCHOR: unpadded_stride
/// Ex 16.1, mistake 1: the column's stride is a row of owned cells, forgetting the two
/// ghost cells of every padded row.
fn unpadded_stride(f: &Field) -> UserDatatype {
    UserDatatype::vector(f.rows as i32, 1, f.cols as i32, &f64::equivalent_datatype())
}
// ANCHOR_END: unpadded_stride

/// Ex 16.1's four shifts, with `recv_of(side sent towards)` choosing where each lands.
fn shifts_into(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    f: &mut Field,
    column: &UserDatatype,
    same_side: bool,
) {
    let (rows, cols) = (f.rows, f.cols);
    let shifts = [
        (
            Side::South,
            Cells::Row(rows),
            if same_side {
                Cells::Row(rows + 1)
            } else {
                Cells::Row(rows)
            },
        ),
        (
            Side::North,
            Cells::Row(1),
            if same_side {
                Cells::Row(0)
            } else {
                Cells::Row(1)
            },
        ),
        (
            Side::East,
            Cells::Column(cols, column),
            Cells::Column(0, column),
        ),
        (
            Side::West,
            Cells::Column(1, column),
            Cells::Column(cols + 1, column),
        ),
    ];
    for (side, send, recv) in shifts {
        let (to, from) = (nb.of(side), nb.of(side.opposite()));
        sendrecv_cells(
            cart,
            f,
            Shift {
                send,
                to,
                recv,
                from,
                tag: side.tag(),
            },
        );
    }
}

/// Ex 16.1, mistake 2: each row shift receives into the very row it sends.
fn into_the_row_it_sends(
    c: &CartesianCommunicator,
    nb: &Neighbours,
    f: &mut Field,
    t: &UserDatatype,
) {
    shifts_into(c, nb, f, t, false)
}

/// Ex 16.1, mistake 3: each row shift receives into the ghost row on the side it sent
/// towards (the message from the north neighbour lands in the south ghost row).
fn into_the_same_side(c: &CartesianCommunicator, nb: &Neighbours, f: &mut Field, t: &UserDatatype) {
    shifts_into(c, nb, f, t, true)
}

/// Ex 16.2, mistake 1: the exchange starts the requests without packing the field's
/// edges into the send buffers first.
fn never_packs(plan: &mut Plan, nb: &Neighbours, f: &mut Field) {
    plan.start().wait();
    plan.unpack_into(f, nb);
}

// ANCHOR: wrong_tag
/// Ex 16.2, mistake 2: each receive is tagged with its own side, not with the side its
/// message was sent towards: no send matches it.
fn receives_own_tag<'c>(cart: &'c CartesianCommunicator, nb: &Neighbours, halo: Halo) -> Plan<'c> {
    let mut plan = Plan::new(cart, halo);
    for side in SIDES {
        if let Some(rank) = nb.of(side) {
            plan.send_init(side, rank, side.tag());
            plan.recv_init(side, rank, side.tag());
        }
    }
    plan
}
// ANCHOR_END: wrong_tag

/// Ex 16.3 with `displs(counts)` for both sides.
fn neighbourhood_with(cart: &CartesianCommunicator, halo: &mut Halo, scale: i32, packed: bool) {
    let counts: Vec<i32> = SIDES
        .map(|s| scale * halo.send[s as usize].len() as i32)
        .to_vec();
    let mut at = 0;
    let displs: Vec<i32> = counts
        .iter()
        .map(|&n| {
            at += n;
            if packed {
                at - n
            } else {
                0
            }
        })
        .collect();
    let send: Vec<f64> = halo.send.concat();
    let mut recv = vec![0.0; send.len()];
    let blocks = Blocks {
        buf: &send[..],
        counts: &counts,
        displs: &displs,
    };
    alltoallv(cart, blocks, &mut recv, &counts, &displs);
    for (k, side) in SIDES.into_iter().enumerate() {
        let (at, n) = (displs[k] as usize, halo.recv[side as usize].len());
        halo.recv[side as usize].copy_from_slice(&recv[at..at + n]);
    }
}

/// Ex 16.3, mistake 1: every block at displacement 0.
fn all_at_zero(cart: &CartesianCommunicator, halo: &mut Halo) {
    neighbourhood_with(cart, halo, 1, false)
}

/// Ex 16.3, mistake 2: counts in bytes, not in doubles.
fn counts_in_bytes(cart: &CartesianCommunicator, halo: &mut Halo) {
    neighbourhood_with(cart, halo, 8, true)
}

pub(crate) fn with(f: impl FnOnce(&mut Parts)) -> Parts {
    let mut parts = Parts::yours();
    f(&mut parts);
    parts
}

toolkit::mpi_test! {
    fn an_unpadded_stride_is_named(world at &[1]) {
        named(column_property(world, unpadded_stride), "one padded row apart: stride cols + 2")
    }

    fn a_row_received_on_the_wrong_side_is_named(world at &[4]) {
        let parts = with(|p| p.datatypes = into_the_same_side);
        named(exchange_property(world, Exchange::Datatypes, parts), "sides are swapped")
    }

    fn an_exchange_that_never_packs_is_named(world at &[2]) {
        let parts = with(|p| p.persistent = never_packs);
        named(exchange_property(world, Exchange::Persistent, parts), "never filled from the field")
    }

    fn blocks_all_at_displacement_0_are_named(world at &[4]) {
        let parts = with(|p| p.neighbourhood = all_at_zero);
        named(exchange_property(world, Exchange::Neighbourhood, parts), "each block's displacement is where that edge starts")
    }
}

/// Runs `exchange` with `parts` on one fixed case: a 2 x 2 grid of ranks, periodic.
pub(crate) fn one_case(
    world: &mpi::topology::SimpleCommunicator,
    exchange: Exchange,
    parts: Parts,
) -> Result<(), String> {
    let problem = Problem {
        rows: 12,
        cols: 16,
        boundary: Boundary::Fixed,
    };
    let case = Case { problem, steps: 1 };
    property(
        world,
        "the exchange's solver equals the serial solver bit for bit",
    )
    .check(Just(case), |case| {
        matches_serial(world, case, exchange, &parts)
    })
}

#[test]
#[ignore = "planted mistake: started by a_row_received_into_itself_is_refused"]
fn planted_into_itself() {
    run_body("planted_into_itself", |world| {
        one_case(
            world,
            Exchange::Datatypes,
            with(|p| p.datatypes = into_the_row_it_sends),
        )
    });
}

#[test]
fn a_row_received_into_itself_is_refused() {
    let text = launch_self("planted_into_itself", 4, &[]).text();
    assert!(
        text.contains("the cells sent and the cells received overlap (row"),
        "{text}"
    );
    println!("{text}");
}

#[test]
#[ignore = "planted mistake: started by receives_with_the_wrong_tag_deadlock_and_are_named"]
fn planted_wrong_tag() {
    run_body("planted_wrong_tag", |world| {
        one_case(
            world,
            Exchange::Persistent,
            with(|p| p.plan = receives_own_tag),
        )
    });
}

#[test]
fn receives_with_the_wrong_tag_deadlock_and_are_named() {
    let out = launch_self("planted_wrong_tag", 4, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(
        text.contains("DEADLOCK?") && text.contains("MPI_Waitall"),
        "{text}"
    );
    println!("{text}");
}

#[test]
#[ignore = "planted mistake: started by counts_in_bytes_are_refused"]
fn planted_counts_in_bytes() {
    run_body("planted_counts_in_bytes", |world| {
        one_case(
            world,
            Exchange::Neighbourhood,
            with(|p| p.neighbourhood = counts_in_bytes),
        )
    });
}

#[test]
fn counts_in_bytes_are_refused() {
    let text = launch_self("planted_counts_in_bytes", 4, &[]).text();
    assert!(text.contains("past the end of its buffer"), "{text}");
    println!("{text}");
}

/// Ex 16.4's and 16.5's planted mistakes.
#[path = "planted_rma_io.rs"]
mod planted_rma_io;
