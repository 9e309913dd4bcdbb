//! Given: `MPI_Sendrecv` between cells of one field, as a safe function.
//!
//! In C, `MPI_Sendrecv(&f[idx(1,1)], 1, column, ...)` takes a pointer and trusts it: a
//! datatype that reaches past the array, or a receive that lands on the cells being sent,
//! is undefined behaviour that may go unnoticed for months. Rust will not let one field be
//! borrowed for reading (the send) and for writing (the receive) at once, so the call
//! needs `unsafe` somewhere. Here is the one place, and before it the checks that make it
//! sound: each side of the shift names its cells ([`Cells`]: a padded row, or a padded
//! column described by your datatype), the datatype must cover exactly one column of this
//! field, and the cells sent and the cells received must not overlap. A misuse is refused
//! in one line that names it, before MPI sees it.

use ch04::field::Field;
use mpi::datatype::UserDatatype;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{CartesianCommunicator, Rank};
use mpi::Tag;

// ANCHOR: cells
/// Cells of a field, in padded indices (chapter 4's [`Field`]: owned cells are rows
/// `1..=rows`, columns `1..=cols`; 0 and `rows + 1` / `cols + 1` are the ghosts).
#[derive(Clone, Copy)]
pub enum Cells<'t> {
    /// Padded row `i`, columns `1..=cols`: contiguous, sent as `cols` doubles.
    Row(usize),
    /// Padded column `j`, rows `1..=rows`: strided, sent as one element of the datatype,
    /// which must be a column of this field (ex 16.1's `column_type`).
    Column(usize, &'t UserDatatype),
}

/// One shift of a halo exchange: what this rank sends to whom, and what it receives from
/// whom, with the tag both messages carry. `None`: no partner (a fixed edge).
pub struct Shift<'t> {
    /// The cells sent.
    pub send: Cells<'t>,
    /// The rank they go to.
    pub to: Option<Rank>,
    /// The cells the message received is written into.
    pub recv: Cells<'t>,
    /// The rank it comes from.
    pub from: Option<Rank>,
    /// The tag of both messages.
    pub tag: Tag,
}
// ANCHOR_END: cells

/// Sends `shift.send` of `f` to `shift.to` and receives into `shift.recv` of `f` from
/// `shift.from`, in one `MPI_Sendrecv` (a missing partner is `MPI_PROC_NULL`: that half
/// does nothing). Panics with a one-line reason on cells outside the field, a datatype that
/// is not a column of it, or cells sent and received that overlap.
pub fn sendrecv_cells(cart: &CartesianCommunicator, f: &mut Field, shift: Shift) {
    let (send_at, send_count, send_type) = place(f, shift.send, "sent");
    let (recv_at, recv_count, recv_type) = place(f, shift.recv, "received");
    if let Some(both) = overlap(f, shift.send, shift.recv) {
        panic!(
            "sendrecv_cells: the cells sent and the cells received overlap ({both}): MPI \
             requires the send and receive buffers of MPI_Sendrecv to be disjoint. Send an \
             owned edge and receive into the ghost layer on the other side"
        );
    }
    // SAFETY: reads a constant the MPI library exports.
    let null = unsafe { ffi::RSMPI_PROC_NULL };
    let data = f.data.as_mut_ptr();
    // SAFETY: `place` checked that each side's cells lie inside `f.data` (a row's `cols`
    // doubles; a column type that spans exactly one column from padded row 1), and
    // `overlap` that no cell is both sent and received, so MPI reads cells nobody writes
    // during the call. `f` is borrowed mutably for the whole call.
    let rc = unsafe {
        ffi::MPI_Sendrecv(
            data.add(send_at).cast_const().cast(),
            send_count,
            send_type,
            shift.to.unwrap_or(null),
            shift.tag,
            data.add(recv_at).cast(),
            recv_count,
            recv_type,
            shift.from.unwrap_or(null),
            shift.tag,
            cart.as_raw(),
            ffi::RSMPI_STATUS_IGNORE,
        )
    };
    assert_eq!(rc, 0, "MPI_Sendrecv failed ({rc})");
}

/// Where `cells` start in `f.data`, and the count and datatype that describe them.
fn place(f: &Field, cells: Cells, what: &str) -> (usize, i32, ffi::MPI_Datatype) {
    match cells {
        Cells::Row(i) => {
            assert!(
                i <= f.rows + 1,
                "sendrecv_cells: padded row {i} {what} is outside a block of {} rows (padded \
                 rows are 0..={})",
                f.rows,
                f.rows + 1
            );
            // SAFETY: reads a constant the MPI library exports.
            (f.idx(i, 1), f.cols as i32, unsafe { ffi::RSMPI_DOUBLE })
        }
        Cells::Column(j, column) => {
            assert!(
                j <= f.cols + 1,
                "sendrecv_cells: padded column {j} {what} is outside a block of {} columns \
                 (padded columns are 0..={})",
                f.cols,
                f.cols + 1
            );
            check_column(f, column);
            (f.idx(1, j), 1, column.as_raw())
        }
    }
}

/// Refuses a datatype that is not one column of `f`: `rows` doubles, `stride` apart.
fn check_column(f: &Field, column: &UserDatatype) {
    let (mut size, mut lb, mut extent) = (0, 0, 0);
    // SAFETY: local queries of a committed datatype rsmpi owns; the outputs are ours.
    unsafe {
        ffi::MPI_Type_size(column.as_raw(), &mut size);
        ffi::MPI_Type_get_extent(column.as_raw(), &mut lb, &mut extent);
    }
    let (values, span) = (size as usize / 8, (lb + extent) as usize / 8);
    let want_span = (f.rows - 1) * f.stride() + 1;
    assert!(
        size as usize == 8 * f.rows && lb == 0 && span == want_span,
        "sendrecv_cells: the column datatype holds {values} doubles spanning {span}, but a \
         column of this {} x {} block is {} doubles spanning {want_span}: one per owned row, \
         a padded row (stride cols + 2 = {}) apart. Make it with \
         UserDatatype::vector(rows, 1, cols + 2, ...)",
        f.rows,
        f.cols,
        f.rows,
        f.stride()
    );
}

/// The cells both sent and received, if any, in words.
fn overlap(f: &Field, send: Cells, recv: Cells) -> Option<String> {
    let owned_row = |i: usize| (1..=f.rows).contains(&i);
    let owned_col = |j: usize| (1..=f.cols).contains(&j);
    match (send, recv) {
        (Cells::Row(a), Cells::Row(b)) if a == b => Some(format!("row {a}")),
        (Cells::Column(a, _), Cells::Column(b, _)) if a == b => Some(format!("column {a}")),
        (Cells::Row(i), Cells::Column(j, _)) | (Cells::Column(j, _), Cells::Row(i))
            if owned_row(i) && owned_col(j) =>
        {
            Some(format!("row {i} and column {j} share a cell"))
        }
        _ => None,
    }
}
