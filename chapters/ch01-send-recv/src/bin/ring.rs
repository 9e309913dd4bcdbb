//! Token ring: a message makes one lap 0 -> 1 -> ... -> size-1 -> 0 (ex 1.1).
//!
//! Run: `make run CH=01` (your code; it stops at `not yet implemented: ex 1.1` until you
//! have written `pass_token`) or `make run CH=01 SOLUTION=1`. Any NP works, NP=1 too.
//! Expect: a table of the ranks (each its own process, with its own pid and memory, and
//! its two neighbours), the path the token took, and a table of lap times for three
//! token sizes: small tokens cost a latency per hop, large ones bytes / bandwidth.

use ch01::neighbours;
use ch01::ring::pass_token;
use mpi::traits::*;
use tabled::Tabled;

/// Laps timed per token size.
const LAPS: usize = 10;
/// Token sizes in f64 elements: 8 B, 8 KiB, 8 MiB.
const SIZES: [usize; 3] = [1, 1 << 10, 1 << 20];

#[derive(Tabled)]
struct Layout {
    rank: i32,
    pid: i32,
    left: i32,
    right: i32,
}

#[derive(Tabled)]
struct Lap {
    #[tabled(rename = "token bytes")]
    bytes: usize,
    #[tabled(rename = "lap (us)")]
    lap_us: String,
    #[tabled(rename = "per hop (us)")]
    hop_us: String,
}

fn main() {
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, size) = (world.rank(), world.size());
    let root = world.process_at_rank(0);

    // Every rank is a separate process: its own pid, its own memory. Rank 0 learns the
    // others' facts only by receiving them (here with a gather).
    let (left, right) = neighbours(rank, size);
    let mine = [std::process::id() as i32, left, right];
    let mut all = vec![0i32; 3 * size as usize];
    if rank == 0 {
        root.gather_into_root(&mine[..], &mut all[..]);
        let layout = (0..size).map(|r| {
            let f = &all[3 * r as usize..3 * r as usize + 3];
            Layout {
                rank: r,
                pid: f[0],
                left: f[1],
                right: f[2],
            }
        });
        println!("{}", toolkit::report::table(layout));
    } else {
        root.gather_into(&mine[..]);
    }

    // ANCHOR: lap
    // One lap with a token of 8 numbers; every rank reports where its copy came from.
    let token: Vec<f64> = (0..8).map(|i| 100.0 + i as f64).collect();
    let (got, from) = pass_token(&world, &token);
    assert_eq!(got, token, "rank {rank}: the token changed on its way");
    assert_eq!(
        from, left,
        "rank {rank}: the token came from {from}, not from {left}"
    );
    // ANCHOR_END: lap
    let mut froms = vec![0i32; size as usize];
    if rank == 0 {
        root.gather_into_root(&from, &mut froms[..]);
        // Follow the reported hops from rank 0: who received the token from whom.
        let mut path = vec!["0".to_string()];
        let (mut at, mut seen) = (0, vec![false; size as usize]);
        while let Some(next) = (0..size).find(|&r| froms[r as usize] == at && !seen[r as usize]) {
            seen[next as usize] = true;
            path.push(next.to_string());
            at = next;
        }
        if size == 1 {
            path = vec!["0 (alone: no message sent)".into()];
        }
        println!("token path: {}", path.join(" -> "));
    } else {
        root.gather_into(&from);
    }

    let mut laps = vec![];
    for n in SIZES {
        let token = vec![rank as f64; n];
        pass_token(&world, &token); // warm-up lap
        world.barrier();
        let start = mpi::time();
        for _ in 0..LAPS {
            let (got, _) = pass_token(&world, &token);
            assert_eq!(
                got.len(),
                n,
                "rank {rank}: a token of {n} came back as {}",
                got.len()
            );
        }
        let lap = (mpi::time() - start) / LAPS as f64;
        let hops = size.max(1) as f64;
        laps.push(Lap {
            bytes: 8 * n,
            lap_us: format!("{:.1}", lap * 1e6),
            hop_us: format!("{:.1}", lap * 1e6 / hops),
        });
    }
    if rank == 0 {
        println!("{}", toolkit::report::table(laps));
        println!("ring: {size} ranks, every token came back intact (timed on rank 0; noisy)");
        println!("{}", toolkit::report::oversubscription_note(size as usize));
    }
}
