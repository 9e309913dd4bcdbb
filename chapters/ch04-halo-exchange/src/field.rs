//! Given: a rank's block of the temperature field, with one layer of ghost cells.
//!
//! ```text
//!   padded column:  0   1 ........ cols  cols+1
//!   row 0         [ g   g  ......   g     g ]   <- ghost row: the north neighbour's last row
//!   row 1         [ g | a  ......   a  |  g ]
//!    ...          [ g | a  owned    a  |  g ]   <- g: ghost column (west / east neighbour)
//!   row rows      [ g | a  ......   a  |  g ]
//!   row rows+1    [ g   g  ......   g     g ]   <- ghost row: the south neighbour's first row
//! ```
//! Stored row-major: a row is contiguous, a column is strided by `cols + 2`. Indices in
//! this module are *padded*: owned cells are rows `1..=rows`, columns `1..=cols`.

// ANCHOR: field
/// A block of `rows x cols` owned cells surrounded by one ring of ghost cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Owned rows (without ghosts).
    pub rows: usize,
    /// Owned columns (without ghosts).
    pub cols: usize,
    /// `(rows + 2) * (cols + 2)` values, row-major, ghosts included.
    pub data: Vec<f64>,
}

impl Field {
    /// A field of zeros, ghosts included.
    pub fn zeros(rows: usize, cols: usize) -> Field {
        Field {
            rows,
            cols,
            data: vec![0.0; (rows + 2) * (cols + 2)],
        }
    }

    /// Distance in `data` between a cell and the one below it: `cols + 2`.
    pub fn stride(&self) -> usize {
        self.cols + 2
    }

    /// Position in `data` of padded cell `(i, j)`.
    pub fn idx(&self, i: usize, j: usize) -> usize {
        i * self.stride() + j
    }
    // ANCHOR_END: field

    /// Padded row `i`, ghosts at both ends included (contiguous).
    pub fn row(&self, i: usize) -> &[f64] {
        let w = self.stride();
        &self.data[i * w..(i + 1) * w]
    }

    /// Padded row `i`, mutable.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        let w = self.stride();
        &mut self.data[i * w..(i + 1) * w]
    }

    /// The owned cells of owned row `r` (0-based, no ghosts): `cols` values.
    pub fn owned_row(&self, r: usize) -> &[f64] {
        &self.row(r + 1)[1..=self.cols]
    }

    /// The owned cells, row after row, without ghosts: `rows * cols` values.
    pub fn owned(&self) -> Vec<f64> {
        (0..self.rows)
            .flat_map(|r| self.owned_row(r))
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Field;

    #[test]
    fn rows_are_contiguous_and_owned_cells_skip_the_ghosts() {
        let mut f = Field::zeros(2, 3);
        for (k, x) in f.data.iter_mut().enumerate() {
            *x = k as f64;
        }
        assert_eq!(f.stride(), 5);
        assert_eq!(f.idx(1, 1), 6);
        assert_eq!(f.owned_row(1), &[11.0, 12.0, 13.0]);
        assert_eq!(f.owned(), vec![6.0, 7.0, 8.0, 11.0, 12.0, 13.0]);
    }
}
