//! Lab: thread levels, bindings and threads per rank: what a hybrid program must know
//! before it starts its threads.
//!
//! Run: `make run CH=05 SOLUTION=1` (NP=1 to 4; `make run CH=05` runs your ex 5.1).
//! Expect: the thread level requested (MPI_THREAD_FUNNELED, what the harness asks for)
//! and the one granted; what each program of the chapter needs and whether it may run
//! (your ex 5.1 decides); then one row per rank: host, local rank, the CPUs mpirun let it
//! run on (its affinity), and the threads it would start (cores / ranks on the node). On
//! a 2-core machine Open MPI binds 1 or 2 ranks to one core each and leaves 3 or more
//! unbound (oversubscribed): a lone rank is allowed only CPU 0.

use ch05::levels::require;
use ch05::machine::{allowed_cpus, cpu_list, node_local};
use ch05::threading::{level_name, what_it_allows};
use mpi::environment::Threading;
use mpi::traits::*;
use tabled::Tabled;
use toolkit::report::host_cores;
use toolkit::report::table;

#[derive(Tabled)]
struct Need {
    program: &'static str,
    needs: &'static str,
    verdict: String,
}

#[derive(Tabled)]
struct Place {
    rank: i32,
    host: String,
    #[tabled(rename = "local rank")]
    local: String,
    #[tabled(rename = "allowed CPUs")]
    cpus: String,
    #[tabled(rename = "threads (cores / local ranks)")]
    threads: usize,
}

fn main() {
    let universe = toolkit::init(); // asks for MPI_THREAD_FUNNELED
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    // ANCHOR: granted
    let granted = mpi::environment::threading_support(); // MPI_Query_thread
                                                         // ANCHOR_END: granted
    let (local, local_size) = node_local(&world);
    let cores = host_cores();
    let cpus = allowed_cpus();
    let threads = (cores / local_size as usize).max(1);
    let host = mpi::environment::processor_name().unwrap_or_else(|_| "?".into());
    // Every rank describes itself in one line; rank 0 collects them in rank order.
    let mine = format!(
        "{host}\t{local} of {local_size}\t{}\t{threads}",
        cpu_list(&cpus)
    );
    if rank != 0 {
        world.process_at_rank(0).send(mine.as_bytes());
        return;
    }
    let mut lines = vec![mine];
    for r in 1..size {
        let (bytes, _) = world.process_at_rank(r).receive_vec::<u8>();
        lines.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    println!(
        "thread level requested: {}, granted: {} ({})",
        level_name(Threading::Funneled),
        level_name(granted),
        what_it_allows(granted)
    );
    let programs = [
        ("threads (this lab)", Threading::Funneled, "FUNNELED"),
        (
            "hybrid: threads compute, main thread talks",
            Threading::Funneled,
            "FUNNELED",
        ),
        (
            "per-thread exchange (ex 5.4)",
            Threading::Multiple,
            "MULTIPLE",
        ),
    ];
    let mut refusals = vec![];
    let needs = programs.map(|(program, level, needs)| Need {
        program,
        needs,
        verdict: match require(level, granted) {
            Ok(()) => "may run".into(),
            Err(why) => {
                refusals.push(format!("{program}: {why}"));
                "refused (below)".into()
            }
        },
    });
    println!("\n{}", table(needs));
    for why in refusals {
        println!("{why}");
    }
    let places = lines.iter().enumerate().map(|(r, l)| {
        let f: Vec<&str> = l.split('\t').collect();
        Place {
            rank: r as i32,
            host: f[0].into(),
            local: f[1].into(),
            cpus: f[2].into(),
            threads: f[3].parse().unwrap_or(0),
        }
    });
    println!("\n{}", table(places));
    let per_node = threads * local_size as usize;
    println!(
        "\n{cores} cores on this node, {} on it: {threads} thread(s) per rank \
         ({} threads in all{})",
        toolkit::report::rank_count(local_size as usize),
        per_node.max(local_size as usize),
        if local_size as usize > cores {
            ": more ranks than cores, they take turns"
        } else {
            ""
        }
    );
    if cpus.len() < threads {
        println!(
            "note: each rank may run on {} CPU(s) only (mpirun bound it): its {threads} threads \
             would share them. Unbind with OMPI_MCA_hwloc_base_binding_policy=none (Open MPI; \
             mpirun --bind-to none), or give each rank {threads} cores: --map-by slot:pe={threads}",
            cpus.len()
        );
    }
}
