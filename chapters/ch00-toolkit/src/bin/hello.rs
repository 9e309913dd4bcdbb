//! SPMD hello: every rank runs this same program and reports who it is.
//!
//! Run: `make run CH=00` (or `cargo run -p ch00-toolkit --bin hello`, which re-launches
//! itself under mpirun with NP=4 ranks). Expect one table row per rank: its rank, the
//! size of the job, the host, its local rank among the ranks on that host (found with
//! `split_shared`) and the thread level MPI granted. Rank 0 prints; it gathered the rows,
//! and ends with one line per node listing its ranks (one node here; two or more when a
//! hostfile or Slurm spreads the job: see the book's "Running on a cluster").

use mpi::traits::*;
use tabled::Tabled;

#[derive(Tabled)]
struct Row {
    rank: i32,
    size: i32,
    host: String,
    #[tabled(rename = "local rank")]
    local_rank: i32,
    #[tabled(rename = "local size")]
    local_size: i32,
    pid: u32,
}

/// Host names are at most this long in the gathered table.
const HOST_LEN: usize = 32;

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());

    // ANCHOR: local_rank
    // Ranks that share memory (one host) form a communicator of their own: its rank is the
    // "local rank", the number that picks a GPU or a set of cores on that host.
    let node = world.split_shared(rank);
    let (local_rank, local_size) = (node.rank(), node.size());
    // ANCHOR_END: local_rank

    // ANCHOR: gather
    // Every rank contributes a fixed-size record; rank 0 receives them in rank order.
    let mut host = [0u8; HOST_LEN];
    let name = mpi::environment::processor_name().unwrap_or_default();
    for (dst, src) in host.iter_mut().zip(name.bytes()) {
        *dst = src;
    }
    let mine = [local_rank, local_size, std::process::id() as i32];
    let root = world.process_at_rank(0);
    if rank == 0 {
        let mut hosts = vec![0u8; HOST_LEN * size as usize];
        let mut records = vec![0i32; 3 * size as usize];
        root.gather_into_root(&host[..], &mut hosts[..]);
        root.gather_into_root(&mine[..], &mut records[..]);
        // ANCHOR_END: gather
        let rows = (0..size as usize).map(|r| Row {
            rank: r as i32,
            size,
            host: String::from_utf8_lossy(&hosts[r * HOST_LEN..(r + 1) * HOST_LEN])
                .trim_end_matches('\0')
                .to_string(),
            local_rank: records[3 * r],
            local_size: records[3 * r + 1],
            pid: records[3 * r + 2] as u32,
        });
        let rows: Vec<Row> = rows.collect();
        println!("{}", toolkit::report::table(&rows));
        println!(
            "thread level granted: {:?}",
            mpi::environment::threading_support()
        );
        // Self-check: on each host, local ranks are 0..local_size, each exactly once.
        let mut seen: Vec<(String, i32)> = rows
            .iter()
            .map(|r| (r.host.clone(), r.local_rank))
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(
            seen.len(),
            rows.len(),
            "two ranks on one host share a local rank"
        );
        println!("hello: {size} ranks answered; local ranks are distinct on every host");
        // Which node each rank is on: a job spread by a hostfile or Slurm shows them all.
        let mut hosts: Vec<&str> = rows.iter().map(|r| r.host.as_str()).collect();
        hosts.sort();
        hosts.dedup();
        for host in &hosts {
            let on = rows.iter().filter(|r| r.host == *host);
            let on: Vec<String> = on.map(|r| r.rank.to_string()).collect();
            println!("node {host}: ranks {}", on.join(", "));
        }
    } else {
        root.gather_into(&host[..]);
        root.gather_into(&mine[..]);
    }
}
