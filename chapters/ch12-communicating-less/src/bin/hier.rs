//! Lab: the flat allreduce against the two hierarchical ones on this machine, next to the
//! cost model's prediction.
//!
//! Run: `make run CH=12` (4 ranks as 2 emulated nodes of 2; `SOLUTION=1` for the answers;
//! `NP=6` for another job; `ARGS='--nodes 3'` for another layout, `ARGS='--nodes shared'`
//! for the real nodes, `ARGS=--help` for the list; `CLUSTER=netns make run CH=12
//! SOLUTION=1 ARGS='--nodes shared'` on the two-node namespace cluster). It fits alpha and
//! beta of every pair of ranks (chapter 10's matrix) and takes the median of the pairs
//! inside a node and of those between nodes (`ch12::links`), then times, per vector size,
//! MPI_Allreduce, chapter 3's ring and ex 12.1 and 12.2 (the median over the repetitions
//! of the slowest rank's time), each checked against MPI_Allreduce first, and prints the
//! model's times for the same layout with the two measured link classes. A last table is
//! the model alone with a TCP link between nodes (`--inter-us`, `--inter-gbps`: assumed,
//! not measured). A bad flag (`--nodes 0`) is refused in one line before MPI starts, more
//! emulated nodes than ranks once the job has started. It needs ex 12.1, 12.2 and
//! chapter 3's ex 3.1 and 3.2; until they are written it says which is missing.

use ch03::cost::median_of_runs as timed;
use ch03::ops::Op;
use ch12::busy::allreduce_busy;
use ch12::hier::allreduce_leaders;
use ch12::hier_flags::{help, parse};
use ch12::links::measure_links;
use ch12::model::{crossover, predict, Cards, Links, Schedule};
use ch12::nodes::NodeGroups;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use toolkit::compare::close_sums;
use toolkit::gate::unless_todo;
use toolkit::report::rank_count;

/// The vector sizes timed, in bytes.
const SIZES: [usize; 4] = [1 << 10, 16 << 10, 256 << 10, 4 << 20];

fn us(seconds: f64) -> String {
    format!("{:>10.1}", seconds * 1e6)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return print!("{}", help());
    }
    let flags = parse(&args).unwrap_or_else(|why| {
        eprintln!("hier: {why}");
        std::process::exit(2);
    });
    let universe = toolkit::init();
    let world = universe.world();
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let say = |line: &str| {
        if rank == 0 {
            println!("{line}");
        }
    };
    let groups = match NodeGroups::new(&world, flags.nodes) {
        Ok(g) => g,
        Err(why) => return say(&format!("hier: {why}")),
    };
    let (q, n) = (groups.sizes[0], groups.nodes());
    let busy = groups.uniform();
    say(&format!("hier: {} as {}", rank_count(p), groups.describe()));
    // Check every schedule once on a small vector, and find the unwritten exercises.
    let xs: Vec<f32> = (0..1000)
        .map(|i| ((i * 7 + rank * 13) % 17) as f32 - 8.0)
        .collect();
    let mut want = vec![0f32; xs.len()];
    world.all_reduce_into(&xs[..], &mut want[..], SystemOperation::sum());
    let sums = vec![8.0 * p as f64; xs.len()];
    let check = |got: Vec<f32>| close_sums("result", &got, &want, &sums, p);
    let checks = unless_todo(&world, || {
        let mut all = vec![check(ch03::allreduce_ring(&world, &xs, Op::Sum))];
        all.push(check(allreduce_leaders(&groups, &xs)));
        if busy {
            all.push(check(allreduce_busy(&groups, &xs)));
        }
        all
    });
    let checks = match checks {
        Ok(c) => c,
        Err(task) => toolkit::gate::stop_unfinished(&world, "hier", &task),
    };
    if let Some(Err(why)) = checks.into_iter().find(|c| c.is_err()) {
        return say(&format!("hier: rank 0: {why}"));
    }
    say("every schedule matches MPI_Allreduce on a vector of 1000 f32");
    if p == 1 {
        return say("1 rank: no link to time and nothing to model; run with NP=4 (the default)");
    }
    // Every pair's link, fitted as chapter 10's matrix does, split into the two classes.
    let measured = measure_links(&world, groups.place.node, 20);
    let here = measured.links;
    for (class, link, pairs) in [
        ("inside a node", here.intra, measured.intra_pairs),
        ("between nodes", here.inter, measured.inter_pairs),
    ] {
        say(&format!(
            "link {class}: alpha {:.2} µs, beta {:.2} GB/s (median of {pairs} pair{})",
            link.alpha * 1e6,
            link.beta / 1e9,
            if pairs == 1 { "" } else { "s" }
        ));
    }
    say(&format!(
        "\ntimes in µs (median of {} repetitions, slowest rank); model: {} of {q}, the \
         two measured link classes",
        flags.reps,
        nodes_text(n)
    ));
    say(&format!(
        "{:>9}{:>10}{:>10}{:>10}{:>10} |{:>10}{:>10}{:>10}",
        "bytes", "MPI", "ring", "leaders", "busy", "m:flat", "m:leaders", "m:busy"
    ));
    for bytes in SIZES {
        let xs = vec![1.0f32; bytes / 4];
        let mut out = vec![0f32; xs.len()];
        let reps = flags.reps;
        let mpi = timed(&world, reps, || {
            world.all_reduce_into(&xs[..], &mut out[..], SystemOperation::sum())
        });
        let ring = timed(&world, reps, || {
            ch03::allreduce_ring(&world, &xs, Op::Sum);
        });
        let lead = timed(&world, reps, || {
            allreduce_leaders(&groups, &xs);
        });
        let busy_t = match busy {
            true => us(timed(&world, reps, || {
                allreduce_busy(&groups, &xs);
            })),
            false => format!("{:>10}", "n/a"),
        };
        let model: Vec<String> = Schedule::ALL
            .iter()
            .map(|&s| us(predict(s, &here, q, n, bytes)))
            .collect();
        say(&format!(
            "{bytes:>9}{}{}{}{busy_t} |{}",
            us(mpi),
            us(ring),
            us(lead),
            model.concat()
        ));
    }
    if !busy {
        say("busy: n/a, ex 12.2 needs nodes of equal size");
    }
    let tcp = Links {
        intra: here.intra,
        inter: flags.inter(),
        cards: flags.cards,
    };
    say(&format!(
        "\nthe model alone, {} of {q}, with TCP between nodes (assumed: alpha {:.1} µs, \
         beta {:.2} GB/s{})",
        nodes_text(n),
        flags.inter().alpha * 1e6,
        flags.inter().beta / 1e9,
        match flags.cards {
            Cards::OnePerNode => "",
            Cards::OnePerRank => "; a network card per rank",
        }
    ));
    let ladder: Vec<usize> = (0..=24).step_by(2).map(|k| 8usize << k).collect();
    for s in [Schedule::Leaders, Schedule::Busy] {
        let line = |links: &Links| match crossover(s, links, q, n, &ladder) {
            Some(b) => format!("wins from {b} bytes"),
            None => format!("loses at {} bytes", ladder[ladder.len() - 1]),
        };
        say(&format!(
            "  {:<8} against the flat ring: with the measured links {}; with the assumed TCP {}",
            s.name(),
            line(&here),
            line(&tcp)
        ));
    }
    let at = ladder[ladder.len() - 1];
    let times: Vec<String> = Schedule::ALL
        .iter()
        .map(|&s| format!("{} {:.1} ms", s.name(), predict(s, &tcp, q, n, at) * 1e3))
        .collect();
    say(&format!("  at {at} bytes with TCP: {}", times.join(", ")));
}

/// `1 node`, `2 nodes`.
fn nodes_text(n: usize) -> String {
    match n {
        1 => "1 node".into(),
        n => format!("{n} nodes"),
    }
}
