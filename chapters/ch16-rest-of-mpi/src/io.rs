//! Exercise 16.5: the heat field written as one file by every rank at once (a file view
//! of each rank's block, one collective write), and read back at any rank count.
//!
//! Check: `make check CH=16` (tests `ex16_5_*`: the file your ranks write holds the
//! global field in row-major order, cell by cell, at 1 to 8 ranks; a file written by one
//! process reads back into every rank's block at 1 to 8 ranks).
#![allow(unused_variables)] // the stub does not use its arguments yet
#![allow(unused_imports)] // imported for your answer: unused until you write it

use crate::file::{BlockOfFile, SharedFile};
use crate::grid::Block;
use crate::heat_file::HEADER;
use ch04::field::Field;

// ANCHOR: view
/// This rank's block of the file's global array, what its file view selects: the global
/// `[rows, cols]` of the grid (`block.decomp.problem`), this block's `[rows, cols]`, and
/// where it starts, `[first row, first column]` (`block.rows`, `block.cols`).
pub fn block_view(block: &Block) -> BlockOfFile {
    // TODO(ex 16.5): BlockOfFile { global, local, start }
    todo!("ex 16.5: the file view of this rank's block")
}
// ANCHOR_END: view

// ANCHOR: write
/// Writes this rank's owned cells (`field.owned()`, no ghosts) into `file`: its view set
/// at byte [`HEADER`], then one collective `write_all`.
pub fn write_field(file: &mut SharedFile, block: &Block, field: &Field) -> Result<(), String> {
    // TODO(ex 16.5): set_view(HEADER, &block_view(block)), then write_all
    todo!("ex 16.5: write this rank's block through its view")
}
// ANCHOR_END: write

// ANCHOR: read
/// Reads this rank's block from `file`: the same view, one collective `read_all` into a
/// buffer of the block's cells, then those cells placed into a field of the block's
/// shape (`Field::zeros`; owned cell `(r, c)` is padded `(r + 1, c + 1)`).
pub fn read_block(file: &mut SharedFile, block: &Block) -> Result<Field, String> {
    // TODO(ex 16.5): set_view, read_all, then fill the owned cells row by row
    todo!("ex 16.5: read this rank's block through its view")
}
// ANCHOR_END: read
