//! Starting an SPMD program: every rank runs the same code, told apart by its rank.
//!
//! [`init`] is the first line of every lab: started without mpirun it re-launches itself
//! under mpirun with `NP` ranks (default 4); under mpirun it initialises MPI and arms the
//! fail-fast rules: a panic on any rank prints `rank R: <message>` and ends the whole job,
//! and a rank whose mpirun dies goes with it.
//!
//! Thread levels. The harness runs one thread of its own per rank, the watchdog, which
//! never calls MPI. That is what `MPI_THREAD_FUNNELED` allows ("the process may be
//! multi-threaded, but only the main thread makes MPI calls"), so FUNNELED is what
//! [`init`] asks for. A chapter whose threads call MPI asks for more with [`init_with`];
//! if the library grants less, every rank refuses to run with a message saying so. Only
//! the main thread (the one that called `MPI_Init_thread`), or any thread under
//! `MPI_THREAD_MULTIPLE`, ever calls `MPI_Abort`; any other thread ends its process
//! without calling MPI, and the launcher ends the rest of the job.

use crate::job::level_name;
pub use crate::job::{abort_job, say, world_rank};
use crate::launch::{self, Job};
use crate::watchdog::case_context;
use mpi::environment::{Threading, Universe};

/// Initialise MPI for a lab binary (asking for FUNNELED), re-launching under mpirun when
/// needed. Never returns in the process that re-launches: it exits with the job's status.
pub fn init() -> Universe {
    init_with(Threading::Funneled)
}

/// [`init`] for a program that needs the thread level `needed` (e.g. `Multiple` when
/// several threads call MPI). Refuses to run if the library grants less.
pub fn init_with(needed: Threading) -> Universe {
    if !launch::under_mpirun() {
        std::process::exit(relaunch());
    }
    start_rank_with(needed)
}

/// Initialise MPI on a rank already started by mpirun (FUNNELED) and arm the fail-fast
/// rules.
pub fn start_rank() -> Universe {
    start_rank_with(Threading::Funneled)
}

/// [`start_rank`] asking for the thread level `needed`.
// ANCHOR: start_rank
pub fn start_rank_with(needed: Threading) -> Universe {
    // SAFETY: prctl on our own process: die with the launcher, no orphan ranks.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    crate::sharing::own_session();
    crate::intercept::keep_linked();
    let (universe, granted) = mpi::initialize_with_threading(needed.max(Threading::Funneled))
        .expect("MPI was already initialised in this process");
    use mpi::traits::Communicator;
    crate::job::started(universe.world().rank(), granted);
    crate::slow_links::check_at_start(universe.world().size());
    crate::stragglers::check_at_start(universe.world().size());
    install_panic_hook();
    crate::errors::install();
    if granted < needed {
        say(&format!(
            "rank {}: this program needs {} but the MPI library granted only {}: \
             use an MPI built with thread support (Open MPI and MPICH from Debian are)",
            universe.world().rank(),
            level_name(needed),
            level_name(granted)
        ));
        abort_job(2);
    }
    if granted >= Threading::Funneled {
        crate::watchdog::start();
    }
    universe
}
// ANCHOR_END: start_rank

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
    let count = crate::report::rank_count(ranks as usize);
    eprintln!("[workbook] {name}: not started by mpirun; re-launching with {count} (NP={ranks})");
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

/// A panic on one rank would leave the others blocked forever (unwinding finalises MPI
/// while they wait). Instead: say which rank, where and why, then end the whole job.
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
        let msg = crate::panics::message(&msg);
        let place = crate::panics::place(info.location());
        let hint = crate::library_panics::hint(info.location(), &msg)
            .map(|h| format!("\n  hint: {h}"))
            .unwrap_or_default();
        say(&format!(
            "rank {rank}: panicked at {place}: {msg}{hint}{}",
            case_context()
        ));
        say(&format!(
            "rank {rank}: ending the whole job (a panic on one rank would hang the others)"
        ));
        abort_job(101);
    }));
}
// ANCHOR_END: panic_hook
