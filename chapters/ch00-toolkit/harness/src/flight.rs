//! The flight recorder: the last collectives this rank entered, each with its sequence
//! number on its communicator ("the 17th collective on WORLD").
//!
//! MPI matches collectives by order alone: the 17th collective a rank calls on a
//! communicator meets the 17th of every other rank there. When one rank skips a broadcast,
//! or calls its collectives in another order, the job hangs (or worse, reduces the wrong
//! buffers), and the blocked calls alone do not say where the ranks parted. So each
//! collective wrapper ([`crate::wrappers`], via [`crate::arrivals::arrive`]) notes its
//! call here before the library sees it: the communicator, the sequence number there, the
//! call and its numbers (root, bytes), the last [`KEPT`] of them, with no text made. When
//! the watchdog reports a hang, each rank prints [`report_lines`], and the launcher
//! compares every rank's lines ([`crate::diagnose`]) to name the first collective on which
//! the ranks disagree, or the rank that never arrived. PyTorch's NCCL flight recorder
//! (`TORCH_NCCL_TRACE_BUFFER_SIZE`) keeps the same record for the same reason.
//!
//! A communicator is named the same on every rank: `WORLD` (the test's world,
//! [`crate::job::test_world`]), or the world ranks it holds
//! (`ranks 0, 2` or `ranks 0-3`); found once per communicator (local calls only) and
//! forgotten by `MPI_Comm_free`, whose handle the library may reuse.
//! `WORKBOOK_RECORD=0` switches it off with the recorder of blocked calls.

use crate::intercept::Kind;
use mpi::ffi;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// How many of its last collectives a rank keeps, all communicators together.
pub const KEPT: usize = 64;
/// How many of them a report shows per communicator.
pub const SHOWN: usize = 6;
/// How many communicators a report shows (the most recently used first).
const COMMS_SHOWN: usize = 3;

/// One collective as it was entered.
struct Entry {
    /// Which communicator: a number per communicator this process has had.
    id: u64,
    comm: Arc<str>,
    /// 1 for the first collective on `comm`.
    seq: u64,
    kind: &'static Kind,
    fields: [i64; 4],
}

/// A communicator alive now: its number, its name, how many collectives it has had.
struct Comm {
    id: u64,
    name: Arc<str>,
    count: u64,
}

#[derive(Default)]
struct Recorder {
    /// The communicators alive now, by handle.
    comms: HashMap<i32, Comm>,
    /// How many communicators this process has had.
    made: u64,
    last: VecDeque<Entry>,
}

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);

/// Notes the collective `kind` (with the numbers `fields` gives) on `comm`.
pub(crate) fn note(kind: &'static Kind, fields: impl FnOnce() -> [i64; 4], comm: ffi::MPI_Comm) {
    if !crate::intercept::is_recording() {
        return;
    }
    let fields = fields();
    let mut guard = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let r = guard.get_or_insert_with(Recorder::default);
    let key = key_of(comm);
    if !r.comms.contains_key(&key) {
        // Two communicators alive with the same ranks (two copies of WORLD) are told
        // apart by their order of creation, the same on every rank of them.
        let base = name_of(comm);
        let twins = r
            .comms
            .values()
            .filter(|c| c.name.starts_with(&base))
            .count();
        let name = match twins {
            0 => base,
            n => format!("{base} (copy {})", n + 1),
        };
        r.made += 1;
        let id = r.made;
        let name = name.into();
        r.comms.insert(key, Comm { id, name, count: 0 });
    }
    let c = r.comms.get_mut(&key).expect("inserted above");
    c.count += 1;
    let entry = Entry {
        id: c.id,
        comm: c.name.clone(),
        seq: c.count,
        kind,
        fields,
    };
    if r.last.len() == KEPT {
        r.last.pop_front();
    }
    r.last.push_back(entry);
}

/// This rank's last collectives, one line per communicator still alive (most recent
/// first):
/// `rank 3: flight on WORLD: #15 MPI_Allreduce(4096 bytes) | #16 MPI_Bcast(root=0 8 bytes)`.
/// Empty when none was recorded. Never blocks for long: the watchdog calls it.
pub fn report_lines(rank: i32) -> Vec<String> {
    let mut guard = None;
    for _ in 0..100 {
        if let Ok(g) = RECORDER.try_lock() {
            guard = Some(g);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let Some(Some(r)) = guard.as_deref() else {
        return vec![];
    };
    // The communicators of the last entries that are still alive (a freed one's name
    // may be a new one's now), most recent first.
    let alive = |id: u64| r.comms.values().any(|c| c.id == id);
    let mut order: Vec<(u64, &Arc<str>)> = vec![];
    for e in r.last.iter().rev() {
        if alive(e.id) && !order.iter().any(|o| o.0 == e.id) {
            order.push((e.id, &e.comm));
        }
    }
    order.truncate(COMMS_SHOWN);
    let line = |(id, comm): (u64, &Arc<str>)| {
        let mine: Vec<&Entry> = r.last.iter().filter(|e| e.id == id).collect();
        let shown = mine[mine.len().saturating_sub(SHOWN)..].iter();
        let calls: Vec<String> = shown
            .map(|e| {
                format!(
                    "#{} {}({})",
                    e.seq,
                    e.kind.name,
                    (e.kind.describe)(&e.fields)
                )
            })
            .collect();
        format!("rank {rank}: flight on {comm}: {}", calls.join(" | "))
    };
    order.into_iter().map(line).collect()
}

/// `MPI_Comm_free`: forgets the communicator (the library may give its handle to the next
/// one), then the library's `PMPI_Comm_free`.
///
/// # Safety
/// The caller's argument, a valid pointer to a communicator handle, as MPI requires.
#[no_mangle]
pub unsafe extern "C" fn MPI_Comm_free(comm: *mut ffi::MPI_Comm) -> std::os::raw::c_int {
    if !comm.is_null() {
        // SAFETY: `comm` points to the caller's valid handle.
        let key = key_of(unsafe { *comm });
        let mut guard = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = guard.as_mut() {
            r.comms.remove(&key);
        }
    }
    // SAFETY: the caller's argument, passed on unchanged to the library.
    unsafe { ffi::PMPI_Comm_free(comm) }
}

/// Referencing the wrapper keeps this object file in every binary that starts MPI
/// through the toolkit, so its `MPI_Comm_free` replaces the library's.
pub(crate) fn keep_linked() {
    std::hint::black_box(MPI_Comm_free as *const ());
}

/// A number for the handle `comm` while it lives: its Fortran handle (`MPI_Comm_c2f`,
/// a local lookup), since the C handle is a pointer in Open MPI and an integer in MPICH.
/// rsmpi's shim, as MPICH defines `MPI_Comm_c2f` as a macro, with no `PMPI_` function.
fn key_of(comm: ffi::MPI_Comm) -> i32 {
    // SAFETY: a valid communicator handle from the caller's MPI call.
    unsafe { ffi::RSMPI_Comm_c2f(comm) }
}

/// `WORLD`, or the world ranks `comm` holds, the same text on each of them.
fn name_of(comm: ffi::MPI_Comm) -> String {
    let mut result = 0;
    let world = crate::job::test_world();
    // SAFETY: local queries on the caller's valid communicator; the out-values are ours,
    // the groups made here are freed here.
    unsafe {
        ffi::PMPI_Comm_compare(comm, world, &mut result);
        if result == ffi::MPI_IDENT as i32 {
            return "WORLD".into();
        }
        let (mut group, mut world_group, mut size) = (std::mem::zeroed(), std::mem::zeroed(), 0);
        ffi::PMPI_Comm_group(comm, &mut group);
        ffi::PMPI_Comm_group(world, &mut world_group);
        ffi::PMPI_Group_size(group, &mut size);
        let ranks: Vec<i32> = (0..size).collect();
        let mut in_world = vec![0i32; size as usize];
        ffi::PMPI_Group_translate_ranks(
            group,
            size,
            ranks.as_ptr(),
            world_group,
            in_world.as_mut_ptr(),
        );
        ffi::PMPI_Group_free(&mut group);
        ffi::PMPI_Group_free(&mut world_group);
        let copy = if result == ffi::MPI_CONGRUENT as i32 {
            "a copy of WORLD, "
        } else {
            ""
        };
        let in_world: Vec<usize> = in_world.iter().map(|&r| r as usize).collect();
        format!("{copy}ranks {}", crate::desync::rank_list(&in_world))
    }
}
