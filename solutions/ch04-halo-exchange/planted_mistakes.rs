//! Mistakes a learner makes in this chapter, planted on purpose, and what the checks say
//! about them. Each `planted_*` function runs a real exercise property against a wrong
//! part; it is `#[ignore]`d and started only by the test below it, under mpirun, through
//! `launch_self`. The assertions pin the message a learner will see.
//!
//! Run: `cargo test -p ch04-halo-exchange --features solution --test planted_mistakes --
//! --nocapture` to read the messages.

#[path = "../../chapters/ch04-halo-exchange/tests/common/mod.rs"]
mod common;
use ch04::field::Field;
use ch04::halo::{Halo, SIDES};
use ch04::problem::{Boundary, Problem};
use ch04::solver::{Parts, Variant};
use ch04::stencil::update_all;
use ch04::topology::Neighbours;
use common::{cases, ref_exchange, reference_parts, solver_property, Case};
use mpi::topology::CartesianCommunicator;
use mpi::traits::*;
use proptest::strategy::Just;
use toolkit::lockstep::property;
use toolkit::testing::{launch_self, run_body};

// ANCHOR: unpacked_column
/// Mistake 1: a column "packed" as if it were contiguous: `rows` values from where the
/// column starts, which is a piece of a row.
fn unpacked_column(f: &Field, j: usize, out: &mut [f64]) {
    let start = f.idx(1, j);
    out.copy_from_slice(&f.data[start..start + out.len()]);
}
// ANCHOR_END: unpacked_column

#[test]
#[ignore = "planted mistake: started by a_column_sent_without_packing_is_caught"]
fn planted_unpacked_column() {
    run_body("planted_unpacked_column", |world| {
        let parts = Parts {
            pack: unpacked_column,
            sendrecv: ref_exchange,
            ..reference_parts()
        };
        solver_property(world, Variant::Sendrecv, parts)
    });
}

#[test]
fn a_column_sent_without_packing_is_caught() {
    let out = launch_self("planted_unpacked_column", 2, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(text.contains("minimal failing case"), "{text}");
    let beside = |side: &str| text.contains(&format!("next to its {side}"));
    assert!(
        beside("west") || beside("east") || text.contains("and east"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: north_first
/// Mistake 2: every rank sends to the north first, then receives from the south. The
/// messages are buffered below the eager limit; beyond it (rows of 8 KiB here) each send
/// waits for a receive, and on a periodic axis nobody is free to receive.
fn everyone_sends_north_first(cart: &CartesianCommunicator, nb: &Neighbours, halo: &mut Halo) {
    for side in SIDES {
        let (to, from) = (side, side.opposite());
        if let Some(d) = nb.of(to) {
            let out = &halo.send[to as usize][..];
            cart.process_at_rank(d).send_with_tag(out, to.tag());
        }
        if let Some(s) = nb.of(from) {
            let into = &mut halo.recv[from as usize][..];
            cart.process_at_rank(s)
                .receive_into_with_tag(into, to.tag());
        }
    }
}
// ANCHOR_END: north_first

#[test]
#[ignore = "planted mistake: started by sending_north_first_deadlocks_and_is_named"]
fn planted_north_first() {
    run_body("planted_north_first", |world| {
        let parts = Parts {
            blocking: everyone_sends_north_first,
            ..reference_parts()
        };
        let problem = Problem {
            rows: 1024,
            cols: 1024,
            boundary: Boundary::Periodic,
        };
        let case = Case { problem, steps: 1 };
        property(
            world,
            "the Blocking solver equals the serial solver bit for bit",
        )
        .check(Just(case), |case| {
            common::matches_serial(world, case, Variant::Blocking, &parts)
        })
    });
}

#[test]
fn sending_north_first_deadlocks_and_is_named() {
    let out = launch_self("planted_north_first", 3, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = out.text();
    let mpich = toolkit::launch::flavor() == Ok(toolkit::launch::Flavor::Mpich);
    if out.success() && mpich {
        // Rows of 8 KiB keep the grid small enough for CI; MPICH still sends them eagerly.
        println!("skipped: MPICH buffers 8 KiB messages (eager), so sending first does not deadlock; Open MPI's eager limit here is ~4 KiB");
        return;
    }
    assert!(!out.success() && !out.timed_out, "{text}");
    for rank in 0..3u32 {
        let north = (rank + 2) % 3;
        let call = format!("blocked in MPI_Send(dest={north} tag=40 8192 bytes)");
        let lines = out.rank_lines(rank);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("DEADLOCK?") && l.contains(&call)),
            "{text}"
        );
    }
    println!("{text}");
}

// ANCHOR: boundary_before_wait
/// Mistake 3: the whole block updated while the edges are still in flight: the boundary
/// cells read ghosts that still hold the previous step's values (or none yet).
fn boundary_before_wait(
    cart: &CartesianCommunicator,
    nb: &Neighbours,
    halo: &mut Halo,
    src: &mut Field,
    dst: &mut Field,
) {
    halo.pack_from(src);
    let (send, recv) = (&halo.send, &mut halo.recv);
    mpi::request::scope(|scope| {
        let mut requests = vec![];
        for (side, (out, into)) in SIDES.iter().zip(send.iter().zip(recv.iter_mut())) {
            if let Some(r) = nb.of(*side) {
                let p = cart.process_at_rank(r);
                let tag = side.opposite().tag();
                requests.push(p.immediate_receive_into_with_tag(scope, &mut into[..], tag));
                requests.push(p.immediate_send_with_tag(scope, &out[..], side.tag()));
            }
        }
        update_all(src, dst); // WRONG: interior AND boundary, before the wait
        for request in requests {
            request.wait();
        }
    });
    halo.unpack_into(src, nb);
}
// ANCHOR_END: boundary_before_wait

#[test]
#[ignore = "planted mistake: started by the_boundary_before_the_wait_is_caught"]
fn planted_boundary_before_wait() {
    run_body("planted_boundary_before_wait", |world| {
        let parts = Parts {
            overlapped: boundary_before_wait,
            ..reference_parts()
        };
        let name = "the Overlapped solver equals the serial solver bit for bit";
        property(world, name).check(cases(), |case| {
            common::matches_serial(world, case, Variant::Overlapped, &parts)
        })
    });
}

#[test]
fn the_boundary_before_the_wait_is_caught() {
    let out = launch_self("planted_boundary_before_wait", 2, &[]);
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(text.contains("minimal failing case"), "{text}");
    assert!(text.contains("a cell of the block next to its"), "{text}");
    println!("{text}");
}
