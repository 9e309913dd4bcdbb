//! Starting an SPMD program: every rank runs the same code, told apart by its rank.
//!
//! [`init`] is the first line of every lab: started without mpirun it re-launches itself
//! under mpirun with `NP` ranks (default 4); under mpirun it initialises MPI and arms the
//! fail-fast rules: a panic on any rank prints `rank R: <message>` and aborts the whole
//! job, and a rank whose mpirun dies goes with it.

use crate::launch::{self, Job};
use mpi::environment::Universe;
use std::sync::atomic::{AtomicI32, Ordering};

/// This process's rank in `MPI_COMM_WORLD`, once MPI is initialised (-1 before).
static WORLD_RANK: AtomicI32 = AtomicI32::new(-1);

/// Initialise MPI for a lab binary, re-launching under mpirun when needed.
///
/// Never returns in the process that re-launches: it exits with the job's status.
pub fn init() -> Universe {
    if !launch::under_mpirun() {
        std::process::exit(relaunch());
    }
    start_rank()
}

/// Initialise MPI on a rank already started by mpirun and arm the fail-fast rules.
pub fn start_rank() -> Universe {
    // Die with the launcher: no orphan ranks if mpirun is killed.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    crate::intercept::keep_linked();
    let universe = mpi::initialize().expect("MPI was already initialised in this process");
    use mpi::traits::Communicator;
    WORLD_RANK.store(universe.world().rank(), Ordering::SeqCst);
    install_panic_hook();
    crate::watchdog::start();
    universe
}

/// Re-runs this executable under mpirun with `NP` ranks and returns its exit code.
fn relaunch() -> i32 {
    let exe = std::env::current_exe().expect("cannot find my own executable");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = exe
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ranks = match std::env::var("NP") {
        Err(_) => 4,
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                eprintln!("[workbook] {name}: NP={v:?} is not a number of ranks: use NP=1 or more (e.g. NP=4)");
                return 2;
            }
        },
    };
    eprintln!(
        "[workbook] {name}: not started by mpirun; re-launching with {ranks} ranks (NP={ranks})"
    );
    match Job::new(exe.to_string_lossy())
        .ranks(ranks)
        .args(args)
        .run_inherit()
    {
        Ok(code) => code,
        Err(e) => {
            eprintln!("[workbook] {name}: {e}");
            1
        }
    }
}

/// The rank of this process in `MPI_COMM_WORLD`, or `None` before MPI starts.
pub fn world_rank() -> Option<i32> {
    let r = WORLD_RANK.load(Ordering::SeqCst);
    (r >= 0).then_some(r)
}

/// Prints one line to stderr in a single write, so that the launcher's rank tags and the
/// other ranks' output cannot cut it in pieces.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// Ends the whole job at once, from any rank. Used on panics and by the watchdog.
pub fn abort_job(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // The launcher forwards our output asynchronously; MPICH's abort can kill the
    // forwarder before it has read our last lines. A moment's grace keeps them.
    std::thread::sleep(std::time::Duration::from_millis(300));
    if mpi::environment::is_initialized() && !mpi::environment::is_finalized() {
        unsafe { mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, code) };
    }
    std::process::exit(code)
}

/// A panic on one rank would leave the others blocked forever (unwinding finalises MPI
/// while they wait). Instead: say which rank and why, then abort every rank.
// ANCHOR: panic_hook
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let rank = world_rank().unwrap_or(-1);
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(no message)".to_string()
        };
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        say(&format!(
            "rank {rank}: panicked{}: {msg}",
            place.unwrap_or_default()
        ));
        say(&format!(
            "rank {rank}: aborting the whole job (a panic on one rank would hang the others)"
        ));
        abort_job(101);
    }));
}
// ANCHOR_END: panic_hook
