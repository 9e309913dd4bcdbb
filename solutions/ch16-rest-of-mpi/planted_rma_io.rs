//! Chapter 16's planted mistakes of ex 16.4 (one-sided RMA) and ex 16.5 (MPI-IO), a module
//! of `planted_mistakes.rs`: puts into the wrong slot; an exposure epoch not posted to
//! every neighbour that puts (a deadlock, named); the padded field written through the
//! view, and a view outside the grid (both refused on every rank alike).

use super::{one_case, with};
use crate::common::exchange_property;
use ch04::field::Field;
use ch04::halo::{Halo, Side, SIDES};
use ch04::problem::{Boundary, Problem};
use ch04::topology::Neighbours;
use ch16::exchanges::Exchange;
use ch16::file::SharedFile;
use ch16::grid::Block;
use ch16::heat_file::{save_field, WriteFn, HEADER};
use ch16::inbox::Inbox;
use ch16::window::Window;
use mpi::topology::Rank;
use mpi::traits::*;
use toolkit::planted::{launch_self, named};
use toolkit::testing::run_body;

/// Ex 16.4, mistake 1: each edge put into the neighbour's slot of the side it was sent
/// towards (my north edge into my north neighbour's north slot).
fn same_slot(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    let mut epoch = window.fence();
    for side in SIDES {
        if let Some(rank) = nb.of(side) {
            epoch.put(&halo.send[side as usize], rank, inbox.offset(side));
        }
    }
    epoch.close();
    for side in SIDES {
        let (at, n) = (inbox.offset(side), halo.recv[side as usize].len());
        halo.recv[side as usize].copy_from_slice(&window.local()[at..at + n]);
    }
}

// ANCHOR: posts_to_its_column
/// Ex 16.4, mistake 2: the exposure epoch is posted to the north and south neighbours
/// only; the west and east ones put into this rank too, and their access epochs never
/// see its post.
fn posts_to_its_column(window: &mut Window, nb: &Neighbours, halo: &mut Halo, inbox: &Inbox) {
    let all: Vec<Rank> = SIDES.iter().filter_map(|&s| nb.of(s)).collect();
    let column: Vec<Rank> = [Side::North, Side::South]
        .iter()
        .filter_map(|&s| nb.of(s))
        .collect();
    let mut epoch = window.post_start(&column, &all);
    ch16::rma::put_edges(&mut epoch, nb, halo, inbox);
    epoch.close();
}
// ANCHOR_END: posts_to_its_column

toolkit::mpi_test! {
    fn puts_into_the_wrong_slot_are_named(world at &[4]) {
        let parts = with(|p| p.fence = same_slot);
        named(exchange_property(world, Exchange::Fence, parts), "put_edges: each edge goes into the neighbour's inbox slot")
    }
}

#[test]
#[ignore = "planted mistake: started by an_epoch_never_posted_to_is_named"]
fn planted_posts_to_its_column() {
    run_body("planted_posts_to_its_column", |world| {
        one_case(
            world,
            Exchange::Pscw,
            with(|p| p.pscw = posts_to_its_column),
        )
    });
}

#[test]
fn an_epoch_never_posted_to_is_named() {
    let out = launch_self(
        "planted_posts_to_its_column",
        4,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = out.text();
    assert!(!out.success() && !out.timed_out, "{text}");
    assert!(
        text.contains("DEADLOCK?") && text.contains("MPI_Win_"),
        "{text}"
    );
    println!("{text}");
}

// ANCHOR: ghosts_written
/// Ex 16.5, mistake 1: the whole padded field written, ghosts included: more doubles than
/// the view selects.
fn ghosts_written(file: &mut SharedFile, block: &Block, field: &Field) -> Result<(), String> {
    file.set_view(HEADER, &ch16::io::block_view(block))?;
    file.write_all(&field.data)
}
// ANCHOR_END: ghosts_written

/// Ex 16.5, mistake 2: the view's start given as [column, row].
fn start_swapped(file: &mut SharedFile, block: &Block, field: &Field) -> Result<(), String> {
    let mut view = ch16::io::block_view(block);
    view.start = [block.cols.start, block.rows.start];
    file.set_view(HEADER, &view)?;
    file.write_all(&field.owned())
}

/// Saves a fixed 12 x 16 field at the world's ranks with `write`.
fn save_with(world: &mpi::topology::SimpleCommunicator, write: WriteFn) -> Result<(), String> {
    let problem = Problem {
        rows: 12,
        cols: 16,
        boundary: Boundary::Fixed,
    };
    let block = Block::new(world, &problem)?;
    let path = toolkit::report::out_dir()
        .join("ch16-io")
        .join(format!("planted-{}.bin", world.size()));
    std::fs::create_dir_all(path.parent().expect("a folder")).ok();
    save_field(world, &block, &block.field, &path, write)
}

toolkit::mpi_test! {
    fn a_view_that_does_not_cover_the_data_is_refused(world at &[3]) {
        named(save_with(world, ghosts_written), "the view must cover exactly the data")
    }

    fn a_view_that_does_not_fit_the_grid_is_refused(world at &[4]) {
        named(save_with(world, start_swapped), "does not lie inside")
    }
}
