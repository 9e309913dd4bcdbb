//! The PMPI wrappers: each `MPI_X` here notes itself in the calling thread's slot of the
//! recorder ([`crate::intercept`]) and forwards to the library's `PMPI_X`.
//!
//! Wrapped: the blocking point-to-point calls and collectives (a deadlock is always a
//! thread stuck in one of them), and the communicator constructors, which are collective
//! too and hang when one rank does not call them. The point-to-point wrappers, and
//! `MPI_Isend`/`MPI_Irecv`, also feed the message trace ([`crate::trace`]) while a lab has
//! it on; the collectives that move data (`; tally`) feed the tally ([`crate::tally`]).
//! The sends (`; slow`) wait first when they go over a slow link ([`crate::slow_links`]);
//! the collectives (`; arrive`) wait when this rank is a straggler
//! ([`crate::stragglers`]), then note their arrival ([`crate::arrivals`]) and their place
//! in the flight recorder ([`crate::flight`]).
#![allow(non_snake_case)]

use crate::intercept::{enter, Kind};
use mpi::ffi::MPI_Status;
use mpi::ffi::{self, MPI_Comm, MPI_Datatype, MPI_Info, MPI_Message, MPI_Op, MPI_Request};
use std::os::raw::{c_int, c_void};

/// Size in bytes of `count` elements of `datatype` (a local query, no communication).
pub(crate) fn bytes(count: c_int, datatype: MPI_Datatype) -> i64 {
    let mut size: c_int = 0;
    // SAFETY: a valid datatype handle from the caller's own MPI call; `size` is ours.
    unsafe { ffi::PMPI_Type_size(datatype, &mut size) };
    i64::from(count) * i64::from(size)
}

/// `MPI_ANY_SOURCE` / `MPI_ANY_TAG` are stored as this, printed as `any`.
const ANY: i64 = i64::MIN;

fn peer(rank: c_int) -> i64 {
    // SAFETY: reads a constant the MPI library exports.
    wildcard(rank, unsafe { ffi::RSMPI_ANY_SOURCE })
}

fn tag(tag: c_int) -> i64 {
    // SAFETY: reads a constant the MPI library exports.
    wildcard(tag, unsafe { ffi::RSMPI_ANY_TAG })
}

fn wildcard(v: c_int, any: c_int) -> i64 {
    if v == any {
        ANY
    } else {
        v.into()
    }
}

/// A peer or tag as a reader wants to see it.
fn show(v: i64) -> String {
    if v == ANY {
        "any".into()
    } else {
        v.to_string()
    }
}

/// Defines `MPI_X` that notes itself and forwards to `PMPI_X`; with `; trace {..}`, it
/// also runs that block first while the message trace ([`crate::trace`]) is on; with
/// `; tally bytes`, it notes its name and bytes in the tally ([`crate::tally`]).
// ANCHOR: wrap
macro_rules! wrap {
    ($name:ident => $pname:ident ( $($arg:ident : $ty:ty),* )
     [$($field:expr),*] $describe:expr $(; retag $tagarg:ident)?
     $(; slow $dest:ident $sbytes:expr, $comm:ident)? $(; trace $trace:block)?
     $(; tally $tally:expr)? $(; arrive $acomm:ident $abytes:expr)?) => {
        #[doc = concat!("`", stringify!($name), "`: notes the call in the recorder, then forwards to `",
            stringify!($pname), "`.")]
        #[doc = ""]
        #[doc = "# Safety"]
        #[doc = ""]
        #[doc = concat!("The contract of `", stringify!($name), "` in the MPI standard: every handle ",
            "is valid and every buffer or out-pointer is valid for the counts and datatypes given; ",
            "the MPI program calls it, not Rust code.")]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> c_int {
            // A planted fault (WORKBOOK_FAULT, see crate::faults): skip, or a wrong tag.
            if crate::faults::skip(stringify!($name)) {
                return ffi::MPI_SUCCESS as c_int;
            }
            $(let $tagarg = crate::faults::tag(stringify!($name), $tagarg);)?
            // A slow link (WORKBOOK_SLOW_LINK, see crate::slow_links): the sender waits.
            $(crate::slow_links::wait_before_send($dest, $sbytes, $comm);)?
            $(if crate::trace::is_on() $trace)?
            $(crate::tally::note(stringify!($name), $tally);)?
            static KIND: Kind = Kind { name: stringify!($name), describe: $describe };
            let fields = || {
                let mut f = [0i64; 4];
                for (slot, v) in f.iter_mut().zip([$(i64::from($field)),*]) {
                    *slot = v;
                }
                f
            };
            $(crate::arrivals::arrive(&KIND, fields, $abytes, $acomm);)?
            // SAFETY: the caller's arguments, passed on unchanged to the library.
            enter(&KIND, fields, || unsafe { ffi::$pname($($arg),*) })
        }
    };
}
// ANCHOR_END: wrap

type Buf = *const c_void;
type BufMut = *mut c_void;
type Counts = *const c_int;
type Fields = [i64; 4];

fn to_peer(f: &Fields) -> String {
    format!("dest={} tag={} {} bytes", f[0], show(f[1]), f[2])
}
fn from_peer(f: &Fields) -> String {
    format!(
        "source={} tag={} up to {} bytes",
        show(f[0]),
        show(f[1]),
        f[2]
    )
}
fn probe(f: &Fields) -> String {
    format!("source={} tag={}", show(f[0]), show(f[1]))
}
fn rooted(f: &Fields) -> String {
    format!("root={} {} bytes", f[0], f[1])
}
fn sized(f: &Fields) -> String {
    format!("{} bytes", f[0])
}
fn requests(f: &Fields) -> String {
    match f[0] {
        1 => "one non-blocking request".to_string(),
        n => format!("{n} non-blocking requests"),
    }
}
fn nothing(_: &Fields) -> String {
    String::new()
}
fn split(f: &Fields) -> String {
    format!("color={} key={}", f[0], f[1])
}

// point-to-point
wrap!(MPI_Send => PMPI_Send(b: Buf, n: c_int, t: MPI_Datatype, dest: c_int, tg: c_int, c: MPI_Comm)
    [dest, tg, bytes(n, t)] to_peer; retag tg; slow dest bytes(n, t), c; trace { sent(dest, bytes(n, t), b) });
wrap!(MPI_Ssend => PMPI_Ssend(b: Buf, n: c_int, t: MPI_Datatype, dest: c_int, tg: c_int, c: MPI_Comm)
    [dest, tg, bytes(n, t)] to_peer; retag tg; slow dest bytes(n, t), c; trace { sent(dest, bytes(n, t), b) });
// ANCHOR: wrap_recv
wrap!(MPI_Recv => PMPI_Recv(b: BufMut, n: c_int, t: MPI_Datatype, src: c_int, tg: c_int,
    c: MPI_Comm, s: *mut MPI_Status)
    [peer(src), tag(tg), bytes(n, t)] from_peer; trace { received(src, bytes(n, t), b) });
// ANCHOR_END: wrap_recv
wrap!(MPI_Probe => PMPI_Probe(src: c_int, tg: c_int, c: MPI_Comm, s: *mut MPI_Status)
    [peer(src), tag(tg)] probe);
wrap!(MPI_Mprobe => PMPI_Mprobe(src: c_int, tg: c_int, c: MPI_Comm, m: *mut MPI_Message,
    s: *mut MPI_Status)
    [peer(src), tag(tg)] probe);
wrap!(MPI_Sendrecv => PMPI_Sendrecv(sb: Buf, sn: c_int, st: MPI_Datatype, dest: c_int, stg: c_int,
    rb: BufMut, rn: c_int, rt: MPI_Datatype, src: c_int, rtg: c_int, c: MPI_Comm,
    s: *mut MPI_Status)
    [dest, peer(src), bytes(sn, st), bytes(rn, rt)]
    |f| format!("dest={} source={} {} bytes out, up to {} in", f[0], show(f[1]), f[2], f[3]);
    retag stg; slow dest bytes(sn, st), c; trace { sent(dest, bytes(sn, st), sb); received(src, bytes(rn, rt), rb) });
wrap!(MPI_Sendrecv_replace => PMPI_Sendrecv_replace(b: BufMut, n: c_int, t: MPI_Datatype,
    dest: c_int, stg: c_int, src: c_int, rtg: c_int, c: MPI_Comm, s: *mut MPI_Status)
    [dest, peer(src), bytes(n, t)]
    |f| format!("dest={} source={} {} bytes", f[0], show(f[1]), f[2]);
    retag stg; slow dest bytes(n, t), c; trace { sent(dest, bytes(n, t), b); received(src, bytes(n, t), b) });
wrap!(MPI_Wait => PMPI_Wait(r: *mut MPI_Request, s: *mut MPI_Status) [1] requests);
wrap!(MPI_Waitall => PMPI_Waitall(n: c_int, r: *mut MPI_Request, s: *mut MPI_Status)
    [n] requests);
wrap!(MPI_Waitany => PMPI_Waitany(n: c_int, r: *mut MPI_Request, i: *mut c_int,
    s: *mut MPI_Status)
    [n] |f| format!("any of {} non-blocking requests", f[0]));
wrap!(MPI_Waitsome => PMPI_Waitsome(n: c_int, r: *mut MPI_Request, o: *mut c_int, i: *mut c_int,
    s: *mut MPI_Status)
    [n] |f| format!("some of {} non-blocking requests", f[0]));

/// The non-blocking calls return at once, so the recorder does not note them (a thread
/// is never blocked in one); the message trace does.
///
/// # Safety
/// The caller's MPI_Isend arguments, valid as MPI requires; passed on unchanged.
#[no_mangle]
pub unsafe extern "C" fn MPI_Isend(
    b: Buf,
    n: c_int,
    t: MPI_Datatype,
    dest: c_int,
    tg: c_int,
    c: MPI_Comm,
    r: *mut MPI_Request,
) -> c_int {
    if crate::trace::is_on() {
        sent(dest, bytes(n, t), b);
    }
    let tg = crate::faults::tag("MPI_Isend", tg);
    crate::slow_links::wait_before_send(dest, bytes(n, t), c);
    // SAFETY: the caller's arguments, passed on unchanged to the library (the tag changed
    // only by a planted fault).
    unsafe { ffi::PMPI_Isend(b, n, t, dest, tg, c, r) }
}

/// See [`MPI_Isend`].
///
/// # Safety
/// The caller's MPI_Irecv arguments, valid as MPI requires; passed on unchanged.
#[no_mangle]
pub unsafe extern "C" fn MPI_Irecv(
    b: BufMut,
    n: c_int,
    t: MPI_Datatype,
    src: c_int,
    tg: c_int,
    c: MPI_Comm,
    r: *mut MPI_Request,
) -> c_int {
    if crate::trace::is_on() {
        received(src, bytes(n, t), b);
    }
    // SAFETY: the caller's arguments, passed on unchanged to the library.
    unsafe { ffi::PMPI_Irecv(b, n, t, src, tg, c, r) }
}

fn sent(dest: c_int, bytes: i64, buf: Buf) {
    crate::trace::note(true, peer(dest), bytes, buf as usize);
}

fn received(src: c_int, bytes: i64, buf: BufMut) {
    crate::trace::note(false, peer(src), bytes, buf as usize);
}

// collectives
wrap!(MPI_Barrier => PMPI_Barrier(c: MPI_Comm) [] nothing; arrive c 0);
wrap!(MPI_Bcast => PMPI_Bcast(b: BufMut, n: c_int, t: MPI_Datatype, root: c_int, c: MPI_Comm)
    [root, bytes(n, t)] rooted;
    tally bytes(n, t); arrive c bytes(n, t));
wrap!(MPI_Reduce => PMPI_Reduce(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    root: c_int, c: MPI_Comm)
    [root, bytes(n, t)] rooted;
    tally bytes(n, t); arrive c bytes(n, t));
wrap!(MPI_Allreduce => PMPI_Allreduce(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    [bytes(n, t)] sized;
    tally bytes(n, t); arrive c bytes(n, t));
wrap!(MPI_Gather => PMPI_Gather(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    [root, bytes(sn, st)] rooted; arrive c bytes(sn, st));
wrap!(MPI_Gatherv => PMPI_Gatherv(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: Counts,
    d: Counts, rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    [root, bytes(sn, st)] rooted; arrive c bytes(sn, st));
wrap!(MPI_Scatter => PMPI_Scatter(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    [root, bytes(rn, rt)] rooted; arrive c bytes(rn, rt));
wrap!(MPI_Scatterv => PMPI_Scatterv(sb: Buf, sn: Counts, d: Counts, st: MPI_Datatype, rb: BufMut,
    rn: c_int, rt: MPI_Datatype, root: c_int, c: MPI_Comm)
    [root, bytes(rn, rt)] rooted; arrive c bytes(rn, rt));
wrap!(MPI_Allgather => PMPI_Allgather(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut,
    rn: c_int, rt: MPI_Datatype, c: MPI_Comm)
    [bytes(sn, st)] sized;
    tally bytes(sn, st); arrive c bytes(sn, st));
wrap!(MPI_Allgatherv => PMPI_Allgatherv(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut,
    rn: Counts, d: Counts, rt: MPI_Datatype, c: MPI_Comm)
    [bytes(sn, st)] sized; arrive c bytes(sn, st));
wrap!(MPI_Alltoall => PMPI_Alltoall(sb: Buf, sn: c_int, st: MPI_Datatype, rb: BufMut, rn: c_int,
    rt: MPI_Datatype, c: MPI_Comm)
    [bytes(sn, st)] |f| format!("{} bytes to each rank", f[0]); arrive c bytes(sn, st));
wrap!(MPI_Alltoallv => PMPI_Alltoallv(sb: Buf, sn: Counts, sd: Counts, st: MPI_Datatype,
    rb: BufMut, rn: Counts, rd: Counts, rt: MPI_Datatype, c: MPI_Comm)
    [] nothing; arrive c 0);
wrap!(MPI_Scan => PMPI_Scan(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    [bytes(n, t)] sized; arrive c bytes(n, t));
wrap!(MPI_Exscan => PMPI_Exscan(sb: Buf, rb: BufMut, n: c_int, t: MPI_Datatype, op: MPI_Op,
    c: MPI_Comm)
    [bytes(n, t)] sized; arrive c bytes(n, t));
wrap!(MPI_Reduce_scatter_block => PMPI_Reduce_scatter_block(sb: Buf, rb: BufMut, n: c_int,
    t: MPI_Datatype, op: MPI_Op, c: MPI_Comm)
    [bytes(n, t)] |f| format!("{} bytes per rank", f[0]);
    tally bytes(n, t); arrive c bytes(n, t));
wrap!(MPI_Neighbor_alltoallv => PMPI_Neighbor_alltoallv(sb: Buf, sn: Counts, sd: Counts,
    st: MPI_Datatype, rb: BufMut, rn: Counts, rd: Counts, rt: MPI_Datatype, c: MPI_Comm)
    [] |_| "with every neighbour of the topology".to_string());

// communicator constructors: collective over the old communicator
wrap!(MPI_Comm_split => PMPI_Comm_split(c: MPI_Comm, color: c_int, key: c_int,
    out: *mut MPI_Comm)
    [color, key] split);
wrap!(MPI_Comm_split_type => PMPI_Comm_split_type(c: MPI_Comm, kind: c_int, key: c_int,
    info: MPI_Info, out: *mut MPI_Comm)
    [kind, key] |f| format!("type={} key={}", f[0], f[1]));
wrap!(MPI_Comm_dup => PMPI_Comm_dup(c: MPI_Comm, out: *mut MPI_Comm) [] nothing);
wrap!(MPI_Comm_create => PMPI_Comm_create(c: MPI_Comm, g: ffi::MPI_Group, out: *mut MPI_Comm)
    [] nothing);
wrap!(MPI_Cart_create => PMPI_Cart_create(c: MPI_Comm, ndims: c_int, dims: Counts,
    periods: Counts, reorder: c_int, out: *mut MPI_Comm)
    [ndims] |f| format!("{} dimensions", f[0]));

/// Referencing one wrapper makes the linker keep this object file, so the wrappers
/// replace the library's symbols in every binary that calls `crate::init`.
pub(crate) fn keep_linked() {
    std::hint::black_box(MPI_Recv as *const ());
}
