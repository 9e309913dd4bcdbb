//! The PMPI wrappers of one-sided communication and MPI-IO (chapter 16), written like
//! [`crate::wrappers`]'s: each notes the call it is in, so that the watchdog names a rank
//! stuck in one. The calls that wait for other ranks: a fence (every rank of the window),
//! the end of an access epoch (`MPI_Win_complete` waits for its targets' posts) and of an
//! exposure epoch (`MPI_Win_wait` waits for its origins' completes), making and freeing a
//! window, and the collective file calls.
#![allow(non_snake_case)]

use crate::intercept::{enter, Kind};
use crate::wrappers::bytes;
use mpi::ffi::{self, MPI_Comm, MPI_Datatype, MPI_File, MPI_Group, MPI_Info, MPI_Offset};
use mpi::ffi::{MPI_Aint, MPI_Status, MPI_Win};
use std::os::raw::{c_char, c_int, c_void};

type Fields = [i64; 4];

fn at_offset(f: &Fields) -> String {
    format!("offset {} bytes, {} bytes", f[0], f[1])
}

// one-sided: the calls that wait for other ranks
wrap!(MPI_Win_fence => PMPI_Win_fence(a: c_int, w: MPI_Win) []
    |_| "a fence: every rank of the window must reach its fence (an epoch another rank left open, or never opened, keeps this one here)".to_string());
wrap!(MPI_Win_start => PMPI_Win_start(g: MPI_Group, a: c_int, w: MPI_Win) []
    |_| "opening an access epoch: waiting for its targets' MPI_Win_post".to_string());
wrap!(MPI_Win_complete => PMPI_Win_complete(w: MPI_Win) []
    |_| "closing an access epoch: waiting for its targets' MPI_Win_post (a target that never posts to this rank leaves it here)".to_string());
wrap!(MPI_Win_wait => PMPI_Win_wait(w: MPI_Win) []
    |_| "closing an exposure epoch: waiting for every origin of its MPI_Win_post to call MPI_Win_complete (an origin that never opened its access epoch to this rank leaves it here)".to_string());
wrap!(MPI_Win_allocate => PMPI_Win_allocate(size: MPI_Aint, unit: c_int, i: MPI_Info,
    c: MPI_Comm, base: *mut c_void, w: *mut MPI_Win)
    [size as i64] |f| format!("making a window of {} bytes (collective)", f[0]));
wrap!(MPI_Win_create => PMPI_Win_create(base: *mut c_void, size: MPI_Aint, unit: c_int,
    i: MPI_Info, c: MPI_Comm, w: *mut MPI_Win)
    [size as i64] |f| format!("making a window of {} bytes (collective)", f[0]));
wrap!(MPI_Win_free => PMPI_Win_free(w: *mut MPI_Win) []
    |_| "freeing a window (collective)".to_string());

// MPI-IO: the collective calls
wrap!(MPI_File_open => PMPI_File_open(c: MPI_Comm, name: *const c_char, mode: c_int,
    i: MPI_Info, fh: *mut MPI_File) [] |_| "opening a file (collective)".to_string());
wrap!(MPI_File_close => PMPI_File_close(fh: *mut MPI_File) []
    |_| "closing a file (collective)".to_string());
wrap!(MPI_File_set_view => PMPI_File_set_view(fh: MPI_File, disp: MPI_Offset,
    e: MPI_Datatype, t: MPI_Datatype, rep: *const c_char, i: MPI_Info)
    [disp] |f| format!("setting a file view at {} bytes (collective)", f[0]));
wrap!(MPI_File_write_at_all => PMPI_File_write_at_all(fh: MPI_File, at: MPI_Offset,
    b: *const c_void, n: c_int, t: MPI_Datatype, s: *mut MPI_Status)
    [at, bytes(n, t)] at_offset);
wrap!(MPI_File_read_at_all => PMPI_File_read_at_all(fh: MPI_File, at: MPI_Offset,
    b: *mut c_void, n: c_int, t: MPI_Datatype, s: *mut MPI_Status)
    [at, bytes(n, t)] at_offset);
wrap!(MPI_File_write_all => PMPI_File_write_all(fh: MPI_File, b: *const c_void, n: c_int,
    t: MPI_Datatype, s: *mut MPI_Status)
    [bytes(n, t)] |f| format!("{} bytes through the file view (collective)", f[0]));
wrap!(MPI_File_read_all => PMPI_File_read_all(fh: MPI_File, b: *mut c_void, n: c_int,
    t: MPI_Datatype, s: *mut MPI_Status)
    [bytes(n, t)] |f| format!("{} bytes through the file view (collective)", f[0]));
