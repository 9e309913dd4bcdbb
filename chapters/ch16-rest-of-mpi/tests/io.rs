//! Checks of ex 16.5 (MPI-IO): the file your ranks write holds the global field in
//! row-major order after its header, cell by cell (every owned cell labelled with its
//! global position, the file read back by rank 0 with plain file reads); and a file
//! written by one process (plain writes) reads back into every rank's block. On random
//! grids at 1 to 8 ranks.
//!
//! Run: `make check CH=16` (your code) or `cargo test -p ch16-rest-of-mpi --features solution`.

use crate::common::heat::{cases, refused_rightly, Case};
use crate::common::RANKS;
use ch04::field::Field;
use ch16::file::BlockOfFile;
use ch16::grid::Block;
use ch16::heat_file::{header, load_field, save_field, HEADER};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;
use toolkit::lockstep::{agree, property};
use toolkit::mpi_test;

/// Cases per launch (each writes and reads a file).
const CASES: u32 = 12;

/// The file of this test at this rank count (the counts run one after another).
fn file(test: &str, world: &SimpleCommunicator) -> PathBuf {
    let dir = toolkit::report::out_dir().join("ch16-io");
    std::fs::create_dir_all(&dir).ok();
    dir.join(format!("{test}-{}.bin", world.size()))
}

/// The label of global cell `(gi, gj)` of a `cols`-wide grid: its row-major index + 1.
fn label(cols: usize, gi: usize, gj: usize) -> f64 {
    (gi * cols + gj + 1) as f64
}

/// What a wrong value in the file or a block is, in words.
fn value(cols: usize, x: f64) -> String {
    match x >= 1.0 && x.fract() == 0.0 {
        true => {
            let k = x as usize - 1;
            format!("the value of global cell ({}, {})", k / cols, k % cols)
        }
        false => format!("{x:e}, no cell's value (nothing was written there)"),
    }
}

/// This rank's block, every owned cell labelled.
fn labelled(block: &Block, cols: usize) -> Field {
    let mut f = Field::zeros(block.rows.len(), block.cols.len());
    for (r, gi) in block.rows.clone().enumerate() {
        for (c, gj) in block.cols.clone().enumerate() {
            let at = f.idx(r + 1, c + 1);
            f.data[at] = label(cols, gi, gj);
        }
    }
    f
}

/// The file in `path`, as rank 0 reads it with plain file reads, against the global
/// grid's labels.
fn file_holds_the_field(path: &PathBuf, rows: usize, cols: usize) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let want = HEADER as usize + 8 * rows * cols;
    if bytes.len() < HEADER as usize || bytes[..HEADER as usize] != header(rows, cols)[..] {
        return Err(format!(
            "the file's first {HEADER} bytes are not its header: were cells written over it? \
             (the view starts at byte HEADER)"
        ));
    }
    if bytes.len() != want {
        return Err(format!(
            "the file holds {} bytes; a {rows} x {cols} field after its header is {want}",
            bytes.len()
        ));
    }
    let cells = bytes[HEADER as usize..].chunks(8);
    for (k, b) in cells.enumerate() {
        let x = f64::from_le_bytes(b.try_into().expect("8 bytes"));
        if x != (k + 1) as f64 {
            let (i, j) = (k / cols, k % cols);
            return Err(format!(
                "the file's cell ({i}, {j}) (byte {}) holds {}: each rank's view must be its \
                 block of the global grid, starting at [its first row, its first column], \
                 and write_all writes its owned cells only, row after row",
                HEADER as usize + 8 * k,
                value(cols, x)
            ));
        }
    }
    Ok(())
}

/// Ex 16.5's write at this rank count: every rank writes its labelled block.
fn writes(world: &SimpleCommunicator, case: &Case) -> Result<(), String> {
    let p = &case.problem;
    let block = match Block::new(world, p) {
        Ok(block) => block,
        Err(why) => return refused_rightly(&why, p, world.size()),
    };
    let path = file("write", world);
    save_field(
        world,
        &block,
        &labelled(&block, p.cols),
        &path,
        ch16::io::write_field,
    )?;
    let mine = match world.rank() {
        0 => file_holds_the_field(&path, p.rows, p.cols),
        _ => Ok(()),
    };
    agree(world, mine)
}

/// Ex 16.5's read at this rank count, of a file rank 0 wrote with plain writes.
fn reads(world: &SimpleCommunicator, case: &Case) -> Result<(), String> {
    let p = &case.problem;
    let block = match Block::new(world, p) {
        Ok(block) => block,
        Err(why) => return refused_rightly(&why, p, world.size()),
    };
    let path = file("read", world);
    if world.rank() == 0 {
        let mut bytes = header(p.rows, p.cols);
        (0..p.rows * p.cols).for_each(|k| bytes.extend(((k + 1) as f64).to_le_bytes()));
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    world.barrier();
    let got = load_field(world, &block, &path, ch16::io::read_block)?;
    let want = labelled(&block, p.cols);
    let rank = world.rank();
    let wrong = (0..block.rows.len())
        .flat_map(|r| (0..block.cols.len()).map(move |c| (r, c)))
        .find(|&(r, c)| got.owned_row(r)[c] != want.owned_row(r)[c]);
    let mine = match wrong {
        None if got.rows == want.rows && got.cols == want.cols => Ok(()),
        None => Err(format!(
            "read_block returned a {} x {} field for a {} x {} block",
            got.rows, got.cols, want.rows, want.cols
        )),
        Some((r, c)) => Err(format!(
            "rank {rank}'s owned cell ({r}, {c}) (global ({}, {})) read {}: the view is this \
             rank's block, and the cells read fill the owned cells row after row (padded \
             (r + 1, c + 1))",
            block.rows.start + r,
            block.cols.start + c,
            value(p.cols, got.owned_row(r)[c])
        )),
    };
    agree(world, mine)
}

/// Ex 16.5's view of this rank's block against the block's own ranges.
fn views(world: &SimpleCommunicator, case: &Case) -> Result<(), String> {
    let p = &case.problem;
    let block = match Block::new(world, p) {
        Ok(block) => block,
        Err(why) => return refused_rightly(&why, p, world.size()),
    };
    let got = ch16::io::block_view(&block);
    let want = BlockOfFile {
        global: [p.rows, p.cols],
        local: [block.rows.len(), block.cols.len()],
        start: [block.rows.start, block.cols.start],
    };
    let mine = match got == want {
        true => Ok(()),
        false => Err(format!(
            "rank {}'s block is rows {:?} and columns {:?} of a {} x {} grid: your \
             block_view gave {got:?}, but its view is {want:?} (sizes, subsizes and starts in \
             C order: rows first)",
            world.rank(),
            block.rows,
            block.cols,
            p.rows,
            p.cols
        )),
    };
    agree(world, mine)
}

// ANCHOR: ex16_5
mpi_test! {
    fn ex16_5_the_view_of_each_block(world at RANKS) {
        property(world, "block_view describes this rank's block of the global grid")
            .cases(CASES)
            .check(cases(), |case| views(world, case))
    }
}

mpi_test! {
    fn ex16_5_the_file_holds_the_global_field_in_order(world at RANKS) {
        property(world, "the ranks' file holds the global field, row-major, after its header")
            .cases(CASES)
            .check(cases(), |case| writes(world, case))
    }
}

mpi_test! {
    fn ex16_5_a_file_reads_back_at_any_rank_count(world at RANKS) {
        property(world, "a file written by one process reads back into every rank's block")
            .cases(CASES)
            .check(cases(), |case| reads(world, case))
    }
}
// ANCHOR_END: ex16_5
