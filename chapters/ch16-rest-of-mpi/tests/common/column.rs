//! The check of ex 16.1's column type on its own: MPI packs a column of a field whose
//! cells hold their own index (`MPI_Pack` with your type), and each value packed must be
//! the cell of that column.

use ch04::field::Field;
use mpi::datatype::UserDatatype;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use proptest::prelude::*;
use toolkit::lockstep::property;

/// Ex 16.1's `column_type`.
pub type ColumnTypeFn = fn(&Field) -> UserDatatype;

/// The property: on random blocks (1 to 30 rows and columns), `column_type` packs exactly
/// padded column `j`, for every `j` from the west ghost to the east ghost.
pub fn column_property(
    world: &SimpleCommunicator,
    column_type: ColumnTypeFn,
) -> Result<(), String> {
    let shapes = (1usize..=30, 1usize..=30).prop_flat_map(|(r, c)| (Just(r), Just(c), 0..=c + 1));
    property(world, "column_type packs exactly one padded column")
        .cases(60)
        .check(shapes, |&(rows, cols, j)| {
            picks_the_column(column_type, rows, cols, j)
        })
}

/// What MPI packs from padded column `j` of `f` with your type: `Err` when the type's
/// size or reach is not a column's.
fn packed_by_mpi(column_type: ColumnTypeFn, f: &Field, j: usize) -> Result<Vec<f64>, String> {
    let column = column_type(f);
    let (mut size, mut lb, mut extent) = (0, 0, 0);
    // SAFETY: local queries of a committed datatype; the outputs are ours.
    unsafe {
        ffi::MPI_Type_size(column.as_raw(), &mut size);
        ffi::MPI_Type_get_extent(column.as_raw(), &mut lb, &mut extent);
    }
    let (values, (rows, cols)) = (size as usize / 8, (f.rows, f.cols));
    if values != rows {
        return Err(format!(
            "column_type of a {rows} x {cols} block holds {values} doubles, but a column \
             has one per owned row: {rows} (count = rows, blocklength = 1)"
        ));
    }
    let (lb, reach) = (aint(lb), aint(lb + extent) / 8);
    let (start, end) = (f.idx(1, j) as i64, f.idx(1, j) as i64 + reach);
    if lb < 0 || end > f.data.len() as i64 {
        return Err(format!(
            "column_type of a {rows} x {cols} block reaches {} doubles past padded cell \
             (1, {j}), beyond the field's {} values: the stride is one padded row, cols + \
             2 = {}",
            end - start,
            f.data.len(),
            f.stride()
        ));
    }
    let mut out = vec![0.0f64; rows];
    let mut position = 0;
    // SAFETY: the type's reach from (1, j) lies inside `f.data` (checked above) and `out`
    // holds its `size` bytes.
    unsafe {
        let from = f.data.as_ptr().add(f.idx(1, j)).cast();
        let into = out.as_mut_ptr().cast();
        let me = ffi::RSMPI_COMM_SELF;
        ffi::MPI_Pack(from, 1, column.as_raw(), into, size, &mut position, me);
    }
    Ok(out)
}

/// An `MPI_Aint` (an `isize` in Open MPI's header, an `i64` in MPICH's) as an `i64`.
#[allow(clippy::unnecessary_cast)]
fn aint(x: ffi::MPI_Aint) -> i64 {
    x as i64
}

/// Your type packs exactly padded column `j` of a field whose cells hold their own index.
pub fn picks_the_column(
    column_type: ColumnTypeFn,
    rows: usize,
    cols: usize,
    j: usize,
) -> Result<(), String> {
    let mut f = Field::zeros(rows, cols);
    for (k, x) in f.data.iter_mut().enumerate() {
        *x = k as f64;
    }
    let got = packed_by_mpi(column_type, &f, j)?;
    for (r, &x) in got.iter().enumerate() {
        let want = f.idx(r + 1, j);
        if x != want as f64 {
            let (i, c) = (x as usize / f.stride(), x as usize % f.stride());
            return Err(format!(
                "column_type of a {rows} x {cols} block: its value {r} is padded cell ({i}, \
                 {c}), but the column's value {r} is padded cell ({}, {j}). Consecutive values \
                 of a column are one padded row apart: stride cols + 2 = {}",
                r + 1,
                f.stride()
            ));
        }
    }
    Ok(())
}
