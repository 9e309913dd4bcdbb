//! Exercise 16.5: solution. Compiled instead of the stub by `--features solution`.

use crate::file::{BlockOfFile, SharedFile};
use crate::grid::Block;
use crate::heat_file::HEADER;
use ch04::field::Field;

// ANCHOR: view
/// This rank's block as a file view.
pub fn block_view(block: &Block) -> BlockOfFile {
    let p = &block.decomp.problem;
    BlockOfFile {
        global: [p.rows, p.cols],
        local: [block.rows.len(), block.cols.len()],
        start: [block.rows.start, block.cols.start],
    }
}
// ANCHOR_END: view

// ANCHOR: write
/// Writes this rank's owned cells through its view.
pub fn write_field(file: &mut SharedFile, block: &Block, field: &Field) -> Result<(), String> {
    file.set_view(HEADER, &block_view(block))?;
    file.write_all(&field.owned())
}
// ANCHOR_END: write

// ANCHOR: read
/// Reads this rank's block through its view.
pub fn read_block(file: &mut SharedFile, block: &Block) -> Result<Field, String> {
    file.set_view(HEADER, &block_view(block))?;
    let (rows, cols) = (block.rows.len(), block.cols.len());
    let mut cells = vec![0.0; rows * cols];
    file.read_all(&mut cells)?;
    let mut field = Field::zeros(rows, cols);
    for (r, row) in cells.chunks(cols).enumerate() {
        field.row_mut(r + 1)[1..=cols].copy_from_slice(row);
    }
    Ok(field)
}
// ANCHOR_END: read
