//! Checks of ex 4.2 (pack and unpack a column) on random block shapes and columns, ghost
//! columns included. Every cell holds a value naming its padded position, so a wrong
//! value is reported as the cell it came from. Runs at 1 rank: packing is local.
//!
//! Run: `make check CH=04` (your code) or `cargo test -p ch04-halo-exchange --features solution`.

use ch04::field::Field;
use ch04::pack::{pack_column, unpack_column};
use proptest::prelude::*;
use toolkit::lockstep::property;
use toolkit::mpi_test;

/// A field whose padded cell (i, j) holds `i * 10000 + j`.
fn numbered(rows: usize, cols: usize) -> Field {
    let mut f = Field::zeros(rows, cols);
    for i in 0..rows + 2 {
        for j in 0..cols + 2 {
            let k = f.idx(i, j);
            f.data[k] = (i * 10000 + j) as f64;
        }
    }
    f
}

/// The padded cell a value of [`numbered`] came from, or what the test wrote.
pub fn cell(v: f64) -> String {
    if v < 0.0 {
        return format!("column value {} of the buffer", -v - 1.0);
    }
    format!("cell ({}, {})", v as usize / 10000, v as usize % 10000)
}

/// Block shape and a padded column in `0..=cols+1`.
pub fn shapes() -> impl Strategy<Value = (usize, usize, usize)> {
    (1usize..=12, 1usize..=12).prop_flat_map(|(r, c)| (Just(r), Just(c), 0..=c + 1))
}

pub fn pack_ok(rows: usize, cols: usize, j: usize) -> Result<(), String> {
    let f = numbered(rows, cols);
    let mut out = vec![-1.0; rows];
    pack_column(&f, j, &mut out);
    for (r, &v) in out.iter().enumerate() {
        if v != (((r + 1) * 10000) + j) as f64 {
            // Which cell it copied instead, for the classic slips: a row or a column off.
            let held =
                (v >= 0.0 && v.fract() == 0.0).then_some((v as usize / 10000, v as usize % 10000));
            let why = match held {
                Some((i, jj)) if i == r && jj == j => {
                    ": one row up: row 0 is the ghost row, the block's own rows are 1..=rows \
                     (start at f.idx(1, j))"
                }
                Some((1, jj)) if r > 0 && jj == j + r => {
                    ": the next cell along row 1: a column's cells are a whole row apart in \
                     memory (step by the row's length, f.stride())"
                }
                Some((i, jj)) if i == r + 1 && jj != j => {
                    ": the right row, another column: j counts the ghost column 0 too"
                }
                _ => "",
            };
            return Err(format!(
                "pack_column(j = {j}) of a {rows} x {cols} block: out[{r}] holds {} but must \
                 hold cell ({}, {j}){why}",
                cell(v),
                r + 1
            ));
        }
    }
    if f != numbered(rows, cols) {
        return Err("pack_column changed the field".into());
    }
    Ok(())
}

pub fn unpack_ok(rows: usize, cols: usize, j: usize) -> Result<(), String> {
    let mut f = numbered(rows, cols);
    let column: Vec<f64> = (0..rows).map(|r| -(r as f64) - 1.0).collect();
    unpack_column(&mut f, j, &column);
    let want = numbered(rows, cols);
    for i in 0..rows + 2 {
        for jj in 0..cols + 2 {
            let (k, ours) = (f.idx(i, jj), (1..=rows).contains(&i) && jj == j);
            let expected = if ours { column[i - 1] } else { want.data[k] };
            if f.data[k] != expected {
                return Err(format!(
                    "unpack_column(j = {j}) of a {rows} x {cols} block: cell ({i}, {jj}) \
                     holds {} but must hold {}",
                    cell(f.data[k]),
                    cell(expected)
                ));
            }
        }
    }
    Ok(())
}

mpi_test! {
    fn ex4_2_pack_unpack(world at &[1]) {
        property(world, "pack_column copies a column into a buffer")
            .cases(64)
            .check(shapes(), |&(rows, cols, j)| pack_ok(rows, cols, j))?;
        property(world, "unpack_column copies a buffer into a column")
            .cases(64)
            .check(shapes(), |&(rows, cols, j)| unpack_ok(rows, cols, j))
    }
}
