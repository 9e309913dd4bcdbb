//! Lab: the heat field saved as one file by every rank at once (MPI-IO, your ex 16.5),
//! against a file per rank (each rank writes its block, synced, renamed: chapter 8's way
//! with its shards); then the one file read back at one rank fewer, checked bit for bit.
//!
//! Run: `make run CH=16 BIN=field_io SOLUTION=1` (or `NP=3`, `NP=7`; your code without
//! SOLUTION=1). Expect: a table with, per format, the files, the bytes, and the slowest
//! rank's save and load times (best of 3); then the one file loaded at NP - 1 ranks (at 1
//! when NP = 1) equal to the serial solver's field, bit for bit. Files go to
//! `target/workbook/ch16-io/`; every write is synced, as a checkpoint's must be.

use ch04::field::Field;
use ch04::problem::{solve_serial, Boundary, Problem};
use ch16::exchanges::{solve, Exchange, Parts};
use ch16::grid::Block;
use ch16::heat_file::{load_field, save_field};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tabled::Tabled;
use toolkit::report::{out_dir, rank_count, table, Timing};

/// The field: 2048 x 2048 doubles (32 MiB), after a few steps.
const PROBLEM: Problem = Problem {
    rows: 2048,
    cols: 2048,
    boundary: Boundary::Periodic,
};
const STEPS: usize = 3;
const RUNS: usize = 3;

#[derive(Tabled)]
struct Row {
    format: &'static str,
    files: usize,
    #[tabled(rename = "MiB")]
    mib: String,
    #[tabled(rename = "save ms")]
    save: String,
    #[tabled(rename = "load ms")]
    load: String,
}

/// The slowest rank's seconds of `f`, best of [`RUNS`] (every rank calls it).
fn timed<T>(world: &SimpleCommunicator, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = (f64::INFINITY, None);
    for _ in 0..RUNS {
        world.barrier();
        let start = Instant::now();
        let out = f();
        let slowest = Timing::over_ranks(world, start.elapsed().as_secs_f64()).max;
        if slowest < best.0 {
            best = (slowest, Some(out));
        }
    }
    (best.0, best.1.expect("RUNS > 0"))
}

/// Chapter 8's way: this rank's owned cells in a file of its own, written to a temporary
/// file, synced, renamed.
fn save_own_file(dir: &Path, q: i32, n: i32, field: &Field) -> std::io::Result<()> {
    let (file, tmp) = (
        own_file(dir, q, n),
        dir.join(format!("block-{q}-of-{n}.tmp")),
    );
    let mut f = std::fs::File::create(&tmp)?;
    let bytes: Vec<u8> = field.owned().iter().flat_map(|x| x.to_le_bytes()).collect();
    f.write_all(&bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}

fn own_file(dir: &Path, q: i32, n: i32) -> PathBuf {
    dir.join(format!("block-{q}-of-{n}.bin"))
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let parts = Parts::yours();
    let (rank, size) = (world.rank(), world.size());
    let dir = out_dir().join("ch16-io");
    std::fs::create_dir_all(&dir).expect("target/workbook/ch16-io");
    let path = dir.join("field.bin");
    let solved =
        solve(&world, &PROBLEM, STEPS, Exchange::Packed, &parts).unwrap_or_else(|w| panic!("{w}"));
    let (block, field) = (&solved.block, &solved.field);
    let write = ch16::io::write_field;
    toolkit::gate::unless_todo(&world, || {
        let _ = ch16::io::block_view(block);
    })
    .unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "field_io", &task));
    let (one_save, saved) = timed(&world, || save_field(&world, block, field, &path, write));
    saved.unwrap_or_else(|w| panic!("{w}"));
    let read = ch16::io::read_block;
    let (one_load, _) = timed(&world, || {
        load_field(&world, block, &path, read).map(|_| ())
    });
    let (own_save, _) = timed(&world, || {
        save_own_file(&dir, rank, size, field).expect("own file")
    });
    let (own_load, _) = timed(&world, || {
        std::fs::read(own_file(&dir, rank, size)).expect("own file")
    });
    let mib = (PROBLEM.rows * PROBLEM.cols * 8) as f64 / (1 << 20) as f64;
    let ms = |s: f64| format!("{:.1}", s * 1e3);
    let rows = [
        Row {
            format: "one file (MPI-IO, collective)",
            files: 1,
            mib: format!("{mib:.1}"),
            save: ms(one_save),
            load: ms(one_load),
        },
        Row {
            format: "a file per rank (chapter 8's way)",
            files: size as usize,
            mib: format!("{mib:.1}"),
            save: ms(own_save),
            load: ms(own_load),
        },
    ];
    if rank == 0 {
        let (height, width, ranks) = (PROBLEM.rows, PROBLEM.cols, rank_count(size as usize));
        println!("{height} x {width} field after {STEPS} steps, {ranks}, each time the slowest rank's, best of {RUNS}:");
        println!("{}", table(rows));
    }
    // The one file at one rank fewer: a communicator of the first NP - 1 ranks.
    let fewer = (size - 1).max(1);
    let color = if rank < fewer {
        Color::with_value(0)
    } else {
        Color::undefined()
    };
    if let Some(sub) = world.split_by_color(color) {
        let block = Block::new(&sub, &PROBLEM).unwrap_or_else(|w| panic!("{w}"));
        let loaded = load_field(&sub, &block, &path, read).unwrap_or_else(|w| panic!("{w}"));
        let serial = solve_serial(&PROBLEM, STEPS).0;
        let mine = block.rows.clone().enumerate().all(|(r, gi)| {
            let want = &serial.owned_row(gi)[block.cols.clone()];
            want.iter()
                .zip(loaded.owned_row(r))
                .all(|(a, b)| a.to_bits() == b.to_bits())
        });
        let mut all = 0i32;
        sub.all_reduce_into(
            &i32::from(mine),
            &mut all,
            mpi::collective::SystemOperation::min(),
        );
        if sub.rank() == 0 {
            let verdict = if all == 1 { "bit for bit" } else { "NOT EQUAL" };
            let (by, at) = (rank_count(size as usize), rank_count(fewer as usize));
            println!("the one file, saved by {by}, loaded by {at}: equals the serial solver's field {verdict}");
        }
    }
}
