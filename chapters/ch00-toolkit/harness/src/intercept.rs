//! Which MPI call is this rank blocked in? The PMPI profiling interface answers it.
//!
//! The MPI standard (section 15.2, "Profiling Interface") gives every function two names:
//! `MPI_Send` and `PMPI_Send`. A program may define its own `MPI_Send`; the linker then
//! binds every call in the program (rsmpi's included) to it, and our version forwards to
//! the library's `PMPI_Send`. Here each wrapper records the call it is in (name, peer,
//! tag, bytes, since when) in one global slot, so the watchdog can name it when a case
//! hangs. The cost is a mutex lock per call, small next to any MPI call.
//!
//! Only blocking calls are wrapped: a deadlock is always a rank stuck in one of them.
#![allow(non_snake_case)]

use mpi::ffi::{self, MPI_Comm, MPI_Datatype, MPI_Message, MPI_Op, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};
use std::sync::Mutex;
use std::time::Instant;

/// One blocking MPI call in progress on this rank.
#[derive(Clone, Debug)]
pub struct Call {
    /// The MPI function, e.g. `"MPI_Recv"`.
    pub name: &'static str,
    /// What it waits for, e.g. `"source=1 tag=0 400 bytes"`.
    pub detail: String,
    /// When it started.
    pub since: Instant,
}

static CURRENT: Mutex<Option<Call>> = Mutex::new(None);

/// The blocking MPI call this rank is in right now, if any.
pub fn current_call() -> Option<Call> {
    CURRENT.lock().ok().and_then(|c| c.clone())
}

/// Size in bytes of `count` elements of `datatype`.
fn bytes(count: c_int, datatype: MPI_Datatype) -> i64 {
    let mut size: c_int = 0;
    unsafe { ffi::PMPI_Type_size(datatype, &mut size) };
    i64::from(count) * i64::from(size)
}

/// A peer rank as a reader wants to see it.
fn peer(rank: c_int) -> String {
    let any = unsafe { ffi::RSMPI_ANY_SOURCE };
    if rank == any {
        "any".into()
    } else {
        rank.to_string()
    }
}

/// A tag as a reader wants to see it.
fn tag(tag: c_int) -> String {
    if tag == unsafe { ffi::RSMPI_ANY_TAG } {
        "any".into()
    } else {
        tag.to_string()
    }
}

/// Records `name` as the current call while `f` runs.
fn enter<R>(name: &'static str, detail: impl FnOnce() -> String, f: impl FnOnce() -> R) -> R {
    let call = Call {
        name,
        detail: detail(),
        since: Instant::now(),
    };
    if let Ok(mut slot) = CURRENT.lock() {
        *slot = Some(call);
    }
    let result = f();
    if let Ok(mut slot) = CURRENT.lock() {
        *slot = None;
    }
    result
}

/// Defines `MPI_X` that records itself and forwards to `PMPI_X`.
// ANCHOR: wrap
macro_rules! wrap {
    ($name:ident => $pname:ident ( $($arg:ident : $ty:ty),* ) $detail:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            enter(stringify!($name), || $detail, || unsafe { ffi::$pname($($arg),*) })
        }
    };
}
// ANCHOR_END: wrap

type Buf = *const c_void;
type BufMut = *mut c_void;
type Counts = *const c_int;

// point-to-point
wrap!(MPI_Send => PMPI_Send(b: Buf, n: c_int, t: MPI_Datatype, dest: c_int, tg: c_int, c: MPI_Comm)
    format!("dest={dest} tag={tg} {} bytes", bytes(n, t)));
wrap!(MPI_Ssend => PMPI_Ssend(b: Buf, n: c_int, t: MPI_Datatype, dest: c_int, tg: c_int, c: MPI_Comm)
    format!("dest={dest} tag={tg} {} bytes", bytes(n, t)));
// ANCHOR: wrap_recv
wrap!(MPI_Recv => PMPI_Recv(b: BufMut, n: c_int, t: MPI_Datatype, src: c_int, tg: c_int,
    c: MPI_Comm, s: *mut MPI_Status)
    format!("source={} tag={} up to {} bytes", peer(src), tag(tg), bytes(n, t)));
// ANCHOR_END: wrap_recv
wrap!(MPI_Probe => PMPI_Probe(src: c_int, tg: c_int, c: MPI_Comm, s: *mut MPI_Status)
    format!("source={} tag={}", peer(src), tag(tg)));
wrap!(MPI_Mprobe => PMPI_Mprobe(src: c_int, tg: c_int, c: MPI_Comm, m: *mut MPI_Message,
    s: *mut MPI_Status)
    format!("source={} tag={}", peer(src), tag(tg)));
wrap!(MPI_Sendrecv => PMPI_Sendrecv(sb: Buf, sn: c_int, st: MPI_Datatype, dest: c_int, stg: c_int,
    rb: BufMut, rn: c_int, rt: MPI_Datatype, src: c_int, rtg: c_int, c: MPI_Comm,
    s: *mut MPI_Status)
    format!("dest={dest} source={} {} bytes out, up to {} in", peer(src), bytes(sn, st),
        bytes(rn, rt)));
wrap!(MPI_Sendrecv_replace => PMPI_Sendrecv_replace(b: BufMut, n: c_int, t: MPI_Datatype,
    dest: c_int, stg: c_int, src: c_int, rtg: c_int, c: MPI_Comm, s: *mut MPI_Status)
    format!("dest={dest} source={} {} bytes", peer(src), bytes(n, t)));
wrap!(MPI_Wait => PMPI_Wait(r: *mut MPI_Request, s: *mut MPI_Status)
    "one non-blocking request".to_string());
wrap!(MPI_Waitall => PMPI_Waitall(n: c_int, r: *mut MPI_Request, s: *mut MPI_Status)
    format!("{n} non-blocking requests"));
wrap!(MPI_Waitany => PMPI_Waitany(n: c_int, r: *mut MPI_Request, i: *mut c_int,
    s: *mut MPI_Status)
    format!("any of {n} non-blocking requests"));
wrap!(MPI_Waitsome => PMPI_Waitsome(n: c_int, r: *mut MPI_Request, o: *mut c_int, i: *mut c_int,
    s: *mut MPI_Status)
    format!("some of {n} non-blocking requests"));

// collectives
wrap!(MPI_Barrier => PMPI_Barrier(c: MPI_Comm) String::new());
wrap!(MPI_Bcast => PMPI_Bcast(b: BufMut, n: c_int, t: MPI_Datatype, root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(n, t)));
wrap!(MPI_Reduce => PMPI_Reduce(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(n, t)));
wrap!(MPI_Allreduce => PMPI_Allreduce(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    format!("{} bytes", bytes(n, t)));
wrap!(MPI_Gather => PMPI_Gather(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(sn, st)));
wrap!(MPI_Gatherv => PMPI_Gatherv(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: Counts,
    d: Counts, rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(sn, st)));
wrap!(MPI_Scatter => PMPI_Scatter(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(rn, rt)));
wrap!(MPI_Scatterv => PMPI_Scatterv(sb: Buf, sn: Counts, d: Counts, st: MPI_Datatype, rb: BufMut,
    rn: c_int, rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    format!("root={root} {} bytes", bytes(rn, rt)));
wrap!(MPI_Allgather => PMPI_Allgather(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut,
    rn: c_int, rt: MPI_Datatype, c: MPI_Comm)
    format!("{} bytes", bytes(sn, st)));
wrap!(MPI_Allgatherv => PMPI_Allgatherv(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut,
    rn: Counts, d: Counts, rt: MPI_Datatype, c: MPI_Comm)
    format!("{} bytes", bytes(sn, st)));
wrap!(MPI_Alltoall => PMPI_Alltoall(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, c: MPI_Comm)
    format!("{} bytes to each rank", bytes(sn, st)));
wrap!(MPI_Alltoallv => PMPI_Alltoallv(sb: Buf, sn: Counts, sd: Counts, st: MPI_Datatype,
    rb: BufMut, rn: Counts, rd: Counts, rt: MPI_Datatype, c: MPI_Comm)
    String::new());
wrap!(MPI_Scan => PMPI_Scan(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    format!("{} bytes", bytes(n, t)));
wrap!(MPI_Exscan => PMPI_Exscan(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    format!("{} bytes", bytes(n, t)));
wrap!(MPI_Reduce_scatter_block => PMPI_Reduce_scatter_block(sb: Buf, rb: BufMut, n: c_int,
    t: MPI_Datatype, op: MPI_Op, c: MPI_Comm)
    format!("{} bytes per rank", bytes(n, t)));

/// Referencing one wrapper makes the linker keep this object file, so the wrappers
/// replace the library's symbols in every binary that calls [`crate::init`].
pub(crate) fn keep_linked() {
    std::hint::black_box(MPI_Recv as *const ());
}
