//! Given: MPI-IO as safe types: one file shared by the ranks of a communicator, and a
//! *file view* that says which parts of the file are this rank's.
//!
//! `MPI_File_open` opens one file on every rank of a communicator (collective). A view
//! (`MPI_File_set_view`) makes the file, for this rank, a sequence of the elements its
//! *filetype* selects, from a displacement on: with a subarray type (`MPI_Type_create_subarray`)
//! of a global 2-D array, each rank sees only its block, and one collective write
//! (`MPI_File_write_all`) puts every rank's block where it belongs in one row-major file.
//! The library may merge the ranks' pieces into large contiguous writes (two-phase I/O).
//!
//! In C, a view is a datatype and a count is trusted: a buffer shorter than the view
//! leaves holes in the file, a longer one runs past the block into the next view's
//! repetition. Here [`SharedFile::set_view`] refuses a block outside the global array, and
//! [`SharedFile::write_all`]/[`SharedFile::read_all`] refuse a buffer that is not exactly
//! the view's cells, each in one line, and on every rank alike: the ranks agree on the
//! refusal first, so that no rank is left alone in the collective call. The file is
//! closed (collectively) when dropped. Chapter 8's one-file checkpoint uses the byte
//! calls (`write_bytes_at_all`, `read_bytes_at_all`) of this file.

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ffi::CString;
use std::path::Path;
use toolkit::lockstep::agree;

// ANCHOR: shared_file
/// A file open on every rank of a communicator.
pub struct SharedFile {
    fh: ffi::MPI_File,
    /// A duplicate of the communicator the file was opened on: the ranks agree on every
    /// refusal before a collective call, so that no rank enters it alone.
    comm: SimpleCommunicator,
    /// This rank's current view (`None`: the default view, bytes). The file keeps it: its
    /// datatype is freed only after the file is closed or given another view.
    view: Option<View>,
}

/// A rank's part of a global row-major 2-D array of doubles, as a filetype.
struct View {
    ty: ffi::MPI_Datatype,
    cells: usize,
}

/// A rank's block of a global row-major 2-D array: what `MPI_Type_create_subarray` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOfFile {
    /// The global array: [rows, columns] (`sizes`).
    pub global: [usize; 2],
    /// This rank's block: [rows, columns] (`subsizes`).
    pub local: [usize; 2],
    /// Where the block starts in the global array: [row, column] (`starts`).
    pub start: [usize; 2],
}
// ANCHOR_END: shared_file

/// MPI's message for an error code, in one line.
fn error_text(rc: i32) -> String {
    let mut text = vec![0u8; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len = 0;
    // SAFETY: the buffer holds MPI_MAX_ERROR_STRING characters, as the call requires.
    unsafe { ffi::MPI_Error_string(rc, text.as_mut_ptr().cast(), &mut len) };
    String::from_utf8_lossy(&text[..len as usize]).into_owned()
}

impl SharedFile {
    /// Opens `path` on every rank of `comm` (collective), to write (created if missing)
    /// or to read. An error is one line naming the file and MPI's reason.
    pub fn open<C>(comm: &C, path: &Path, write: bool) -> Result<SharedFile, String>
    where
        C: Communicator + AsRaw<Raw = ffi::MPI_Comm>,
    {
        let comm = comm.duplicate();
        let name = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| format!("{}: a file name with a NUL byte", path.display()))?;
        let mode = match write {
            true => ffi::MPI_MODE_CREATE | ffi::MPI_MODE_WRONLY,
            false => ffi::MPI_MODE_RDONLY,
        };
        // SAFETY: reads a constant the MPI library exports.
        let mut fh = unsafe { ffi::RSMPI_FILE_NULL };
        // SAFETY: a live communicator, a NUL-terminated name, a handle MPI writes. A file's
        // errors are returned (MPI's default for files), not fatal.
        let rc = unsafe {
            let info = ffi::RSMPI_INFO_NULL;
            ffi::MPI_File_open(comm.as_raw(), name.as_ptr(), mode as i32, info, &mut fh)
        };
        match rc {
            0 => Ok(SharedFile {
                fh,
                comm,
                view: None,
            }),
            rc => Err(format!(
                "cannot open {}: {}",
                path.display(),
                error_text(rc)
            )),
        }
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        let mut size: ffi::MPI_Offset = 0;
        // SAFETY: a file this value opened; `size` is ours.
        unsafe { ffi::MPI_File_get_size(self.fh, &mut size) };
        size as u64
    }

    /// Writes `bytes` at byte `offset` of the file (the default view), every rank at once:
    /// a rank with nothing to write passes an empty slice. Collective.
    pub fn write_bytes_at_all(&mut self, offset: u64, bytes: &[u8]) -> Result<(), String> {
        assert!(
            self.view.is_none(),
            "write_bytes_at_all: a view is set; bytes go before it"
        );
        // SAFETY: `bytes` is a valid buffer of its length for the call.
        let rc = unsafe {
            let (ptr, n, t) = (
                bytes.as_ptr().cast(),
                bytes.len() as i32,
                ffi::RSMPI_UINT8_T,
            );
            let status = ffi::RSMPI_STATUS_IGNORE;
            ffi::MPI_File_write_at_all(self.fh, offset as ffi::MPI_Offset, ptr, n, t, status)
        };
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_write_at_all: {}", error_text(rc)))
    }

    /// Reads `out.len()` bytes at byte `offset` (the default view). Collective.
    pub fn read_bytes_at_all(&mut self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        assert!(
            self.view.is_none(),
            "read_bytes_at_all: a view is set; bytes go before it"
        );
        // SAFETY: `out` is a valid buffer of its length for the call.
        let rc = unsafe {
            let (ptr, n, t) = (
                out.as_mut_ptr().cast(),
                out.len() as i32,
                ffi::RSMPI_UINT8_T,
            );
            let status = ffi::RSMPI_STATUS_IGNORE;
            ffi::MPI_File_read_at_all(self.fh, offset as ffi::MPI_Offset, ptr, n, t, status)
        };
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_read_at_all: {}", error_text(rc)))
    }

    /// From byte `disp` on, this rank sees only its `block` of the file's global array, as
    /// doubles (`MPI_Type_create_subarray`, then `MPI_File_set_view`; collective: every rank
    /// sets its own view at once). A block outside the array is refused on every rank alike
    /// (the ranks agree first), in one line. The file keeps the view's datatype until it
    /// is closed or given another view.
    pub fn set_view(&mut self, disp: u64, block: &BlockOfFile) -> Result<(), String> {
        let view =
            agree(&self.comm, View::block(block).map(|_| ())).and_then(|_| View::block(block))?;
        let native = c"native";
        // SAFETY: a committed filetype of doubles, the etype MPI_DOUBLE, a live file.
        let rc = unsafe {
            let (d, info) = (ffi::RSMPI_DOUBLE, ffi::RSMPI_INFO_NULL);
            ffi::MPI_File_set_view(
                self.fh,
                disp as ffi::MPI_Offset,
                d,
                view.ty,
                native.as_ptr(),
                info,
            )
        };
        self.view = Some(view);
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_set_view: {}", error_text(rc)))
    }

    /// Writes `cells` through the view, one collective call (`MPI_File_write_all`).
    /// Refuses, in one line, a buffer that is not exactly the view's cells.
    pub fn write_all(&mut self, cells: &[f64]) -> Result<(), String> {
        agree(&self.comm, self.check_covers(cells.len(), "write_all"))?;
        // SAFETY: `cells` holds exactly the view's doubles (checked).
        let rc = unsafe {
            let (ptr, n, d) = (cells.as_ptr().cast(), cells.len() as i32, ffi::RSMPI_DOUBLE);
            ffi::MPI_File_write_all(self.fh, ptr, n, d, ffi::RSMPI_STATUS_IGNORE)
        };
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_write_all: {}", error_text(rc)))
    }

    /// Reads the view's cells into `cells`, one collective call (`MPI_File_read_all`).
    pub fn read_all(&mut self, cells: &mut [f64]) -> Result<(), String> {
        agree(&self.comm, self.check_covers(cells.len(), "read_all"))?;
        // SAFETY: `cells` holds exactly the view's doubles (checked).
        let rc = unsafe {
            let (ptr, n, d) = (
                cells.as_mut_ptr().cast(),
                cells.len() as i32,
                ffi::RSMPI_DOUBLE,
            );
            ffi::MPI_File_read_all(self.fh, ptr, n, d, ffi::RSMPI_STATUS_IGNORE)
        };
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_read_all: {}", error_text(rc)))
    }

    /// Makes every rank's writes durable (`MPI_File_sync`, collective).
    pub fn sync(&mut self) -> Result<(), String> {
        // SAFETY: a file this value opened.
        let rc = unsafe { ffi::MPI_File_sync(self.fh) };
        (rc == 0)
            .then_some(())
            .ok_or_else(|| format!("MPI_File_sync: {}", error_text(rc)))
    }

    fn check_covers(&self, n: usize, call: &str) -> Result<(), String> {
        match self.view.as_ref().map(|v| v.cells) {
            Some(cells) if cells == n => Ok(()),
            Some(cells) => Err(format!(
                "{call}: the buffer holds {n} doubles but this rank's file view selects {cells}: \
                 the view must cover exactly the data (the block's owned cells, no ghosts)"
            )),
            None => Err(format!("{call}: no file view is set: set_view first")),
        }
    }
}

impl Drop for SharedFile {
    fn drop(&mut self) {
        // SAFETY: a file this value opened, closed once, by every rank that opened it; its
        // view's datatype is freed after this, when the field drops.
        unsafe { ffi::MPI_File_close(&mut self.fh) };
    }
}

impl View {
    /// The filetype of `b` (C order, doubles). Refuses a block outside the array.
    fn block(b: &BlockOfFile) -> Result<View, String> {
        let BlockOfFile {
            global,
            local,
            start,
        } = *b;
        for axis in 0..2 {
            if local[axis] == 0 || start[axis] + local[axis] > global[axis] {
                return Err(format!(
                    "set_view: a block of {local:?} at {start:?} does not lie inside a \
                     {global:?} array (axis {axis}: {} + {} > {}, or empty): start is \
                     [first row, first column] of the block in the global array",
                    start[axis], local[axis], global[axis]
                ));
            }
        }
        let as_i32 = |v: [usize; 2]| v.map(|x| x as i32);
        let (g, l, s) = (as_i32(global), as_i32(local), as_i32(start));
        // SAFETY: reads a constant the MPI library exports.
        let mut ty = unsafe { ffi::RSMPI_DATATYPE_NULL };
        // SAFETY: three arrays of 2 ints, checked to describe a block inside the array; the
        // new type is committed, and freed in `Drop`.
        unsafe {
            let (order, d) = (ffi::MPI_ORDER_C as i32, ffi::RSMPI_DOUBLE);
            ffi::MPI_Type_create_subarray(2, g.as_ptr(), l.as_ptr(), s.as_ptr(), order, d, &mut ty);
            ffi::MPI_Type_commit(&mut ty);
        }
        Ok(View {
            ty,
            cells: local[0] * local[1],
        })
    }
}

impl Drop for View {
    fn drop(&mut self) {
        // SAFETY: a type this value made and committed, freed once.
        unsafe { ffi::MPI_Type_free(&mut self.ty) };
    }
}
