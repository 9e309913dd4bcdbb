//! Given: MPI 4's persistent collectives, found in the installed MPI, never assumed.
//!
//! `MPI_Allreduce_init` (MPI 4.0) does for a collective what `MPI_Send_init` does for a
//! message: the allreduce is set up once (its algorithm chosen, its buffers recorded) and
//! started as often as wanted. MPICH 4 has it under that name; Open MPI 4.1 has it as
//! `MPIX_Allreduce_init`, an extension (`pcollreq` in `ompi_info`'s MPI extensions),
//! declared in `mpi-ext.h` rather than `mpi.h`, so rsmpi's bindings do not see it; Open
//! MPI 5 has the MPI 4 name. The library is asked by symbol at run time (`dlsym`), so one
//! program runs on each and says which it found.

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};

/// `MPI_Allreduce_init`'s C signature.
type AllreduceInit = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    c_int,
    ffi::MPI_Datatype,
    ffi::MPI_Op,
    ffi::MPI_Comm,
    ffi::MPI_Info,
    *mut ffi::MPI_Request,
) -> c_int;

/// The names a persistent allreduce goes by, the standard's first.
const NAMES: [&CStr; 2] = [c"MPI_Allreduce_init", c"MPIX_Allreduce_init"];

/// The persistent allreduce of this MPI, with the name it was found under.
fn find() -> Option<(&'static str, AllreduceInit)> {
    NAMES.iter().find_map(|name| {
        // SAFETY: dlsym with RTLD_DEFAULT only looks the name up in the loaded libraries.
        let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        // SAFETY: a non-null symbol of that name is MPI's function of that signature.
        let f = (!f.is_null()).then(|| unsafe { std::mem::transmute::<_, AllreduceInit>(f) });
        f.map(|f| (name.to_str().expect("ASCII"), f))
    })
}

/// One line on what this MPI has: `Ok(name)` of its persistent allreduce, or `Err` with
/// why there is none.
pub fn persistent_collectives() -> Result<&'static str, String> {
    find().map(|(name, _)| name).ok_or_else(|| {
        "this MPI has no persistent collectives (neither MPI_Allreduce_init, MPI 4.0, nor \
         Open MPI's MPIX_Allreduce_init): the lab times the blocking allreduce alone"
            .to_string()
    })
}

/// A persistent sum over the ranks of one `f64`, set up once, started per call. The
/// buffers are boxed so their addresses, which MPI keeps, never move.
pub struct PersistentSum {
    buffers: Box<[f64; 2]>,
    request: ffi::MPI_Request,
}

impl PersistentSum {
    /// Sets up the sum over `comm` (collective: every rank of `comm` calls it, in the same
    /// order as its other collectives). `None` when this MPI has no persistent allreduce.
    pub fn new(comm: &SimpleCommunicator) -> Option<PersistentSum> {
        let (_, init) = find()?;
        let mut buffers = Box::new([0.0f64; 2]);
        // SAFETY: reads a constant the MPI library exports.
        let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: one double in, one double out, both in the box this value owns until
        // `Drop` has freed the request; `comm` is a live communicator.
        let rc = unsafe {
            let (send, recv) = buffers.split_at_mut(1);
            let (s, r) = (send.as_ptr().cast(), recv.as_mut_ptr().cast());
            let (sum, info) = (ffi::RSMPI_SUM, ffi::RSMPI_INFO_NULL);
            init(
                s,
                r,
                1,
                ffi::RSMPI_DOUBLE,
                sum,
                comm.as_raw(),
                info,
                &mut request,
            )
        };
        assert_eq!(rc, 0, "the persistent allreduce's init failed ({rc})");
        Some(PersistentSum { buffers, request })
    }

    /// The sum of `x` over the ranks: start the request, wait for it (collective).
    pub fn sum(&mut self, x: f64) -> f64 {
        self.buffers[0] = x;
        // SAFETY: an inactive persistent request of this value, started then completed
        // before its buffers are touched again.
        let rc = unsafe {
            ffi::MPI_Start(&mut self.request);
            ffi::MPI_Wait(&mut self.request, ffi::RSMPI_STATUS_IGNORE)
        };
        assert_eq!(rc, 0, "the persistent allreduce failed ({rc})");
        self.buffers[1]
    }
}

impl Drop for PersistentSum {
    fn drop(&mut self) {
        // SAFETY: the request is inactive (every `sum` waited for it), freed once.
        unsafe { ffi::MPI_Request_free(&mut self.request) };
    }
}
