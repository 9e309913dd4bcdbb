//! Lab: ring or tree when one link of the network is slow. The slow_link lab slows the
//! sends of our own code; here the network itself is slow, below MPI, so MPI_Allreduce's
//! own algorithms pay for the link too, and forcing the library's tree instead of its
//! ring is the cure a job would try (NCCL's `NCCL_ALGO=Tree`).
//!
//! Run: `make run CH=10 BIN=ring_or_tree SOLUTION=1` (4 ranks on this machine: no slow
//! link, the plain crossover). On four nodes with the link node-b - node-c slowed by tc
//! (root; rank r runs on node r, so that link joins ranks 1 and 2):
//!
//! ```text
//! WB_NODES=4 scripts/cluster/netns.sh run bash -c 'scripts/cluster/netns.sh link \
//!   node-b node-c rate=1gbit && make run CH=10 BIN=ring_or_tree SOLUTION=1'
//! ```
//!
//! The lab launches its job twice: first chapter 3's ring and binomial tree (your ex 3.1,
//! 3.2 and chapter 2's ex 2.2, 2.3) beside MPI_Allreduce forced to Open MPI's ring, then
//! MPI_Allreduce forced to its binomial tree (a reduce, then a broadcast). Expect: the
//! link matrix, then at 1 KiB to 4 MiB the four times, ours beside the model's (chapter
//! 10's `model.rs` on the measured links), the faster of each pair, and the size from
//! which the ring wins, predicted and measured. Under MPICH the second launch is left out
//! (MPICH 4.0 has no ring and no tree to force).

mod worker;

use ch10::matrix::{matrix_table, PairFit, LARGE};
use ch10::model::{ring_beats_tree_from, ring_time, tree_time, Links};
use ch10::AlphaBeta;
use std::collections::BTreeMap;
use toolkit::gate::UNFINISHED;
use toolkit::launch::{flavor, under_mpirun, Flavor, Job};

/// What the launches measured: (label, bytes) -> seconds, and the links' fits.
#[derive(Default)]
struct Measured {
    times: BTreeMap<(String, usize), f64>,
    fits: Vec<PairFit>,
}

/// Open MPI's settings that force MPI_Allreduce's algorithm: 4 (the ring), or 2 (a
/// reduce, then a broadcast) with the binomial tree (5, 6) for both.
fn forced(tree: bool) -> Vec<(&'static str, &'static str)> {
    let mut env = vec![("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")];
    match tree {
        false => env.push(("OMPI_MCA_coll_tuned_allreduce_algorithm", "4")),
        true => env.extend([
            ("OMPI_MCA_coll_tuned_allreduce_algorithm", "2"),
            ("OMPI_MCA_coll_tuned_reduce_algorithm", "5"),
            ("OMPI_MCA_coll_tuned_bcast_algorithm", "6"),
        ]),
    }
    env
}

/// One launch at `p` ranks; what rank 0 printed, parsed into `into` (MPI_Allreduce's
/// times under `mpi_label`). A launch that stops at an unfinished exercise passes its
/// line on and ends the lab with the same status.
fn launch(p: u32, ours: bool, env: &[(&str, &str)], mpi_label: &str, into: &mut Measured) {
    let exe = std::env::current_exe().expect("own path");
    let mut job = Job::new(exe.to_string_lossy()).ranks(p).args(["--worker"]);
    if ours {
        job = job.args(["--ours"]);
    }
    for (k, v) in env {
        job = job.env(k, *v);
    }
    let out = job
        .run()
        .unwrap_or_else(|e| panic!("ring_or_tree: cannot launch: {e}"));
    if !out.success() {
        if out.status.and_then(|s| s.code()) == Some(UNFINISHED) {
            out.rank_lines(0).iter().for_each(|l| println!("{l}"));
            std::process::exit(UNFINISHED);
        }
        panic!(
            "ring_or_tree: the launch at {p} ranks failed:\n{}",
            out.text()
        );
    }
    for line in out.rank_lines(0) {
        match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["t", label, bytes, secs] => {
                let label = if label == "mpi" { mpi_label } else { label };
                into.times.insert(
                    (label.into(), bytes.parse().unwrap()),
                    secs.parse().unwrap(),
                );
            }
            ["link", a, b, alpha, beta] => into.fits.push(PairFit {
                a: a.parse().unwrap(),
                b: b.parse().unwrap(),
                link: AlphaBeta {
                    alpha: alpha.parse().unwrap(),
                    beta: beta.parse().unwrap(),
                },
            }),
            _ => {}
        }
    }
}

/// Where `ring` starts to be no slower than `tree` for good: "from 1 KiB" (every size),
/// "between 64 KiB and 128 KiB" (the last size it loses at, then the first of the sizes
/// it wins at from there on), or "at no size measured".
fn ring_wins_from(
    sizes: &[usize],
    ring: impl Fn(usize) -> f64,
    tree: impl Fn(usize) -> f64,
) -> String {
    match sizes.iter().rposition(|&b| ring(b) > tree(b)) {
        None => format!("at every size, from {}", kib(sizes[0])),
        Some(i) if i + 1 < sizes.len() => {
            format!("between {} and {}", kib(sizes[i]), kib(sizes[i + 1]))
        }
        Some(_) => "at no size measured".to_string(),
    }
}

fn kib(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--worker") {
        return worker::run(std::env::args().any(|a| a == "--ours"));
    }
    if under_mpirun() {
        println!("ring_or_tree launches its own jobs: run it without mpirun (make run CH=10 BIN=ring_or_tree)");
        return;
    }
    toolkit::bench::unbind_ranks();
    let p: u32 = std::env::var("NP")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    let ompi = flavor() == Ok(Flavor::OpenMpi);
    println!("ring_or_tree: {p} rank{}", if p == 1 { "" } else { "s" });
    println!("{}", toolkit::report::oversubscription_note(p as usize));
    if p < 2 {
        return println!("1 rank has no link: run with NP=4 (the default)");
    }
    let mut m = Measured::default();
    let (ring, tree) = ("MPI ring", "MPI tree");
    let ring_env = if ompi { forced(false) } else { vec![] };
    launch(p, true, &ring_env, if ompi { ring } else { "MPI" }, &mut m);
    if ompi {
        launch(p, false, &forced(true), tree, &mut m);
    }
    let p = p as usize;
    println!(
        "\none-way time of a {} KiB message, µs:\n{}",
        LARGE >> 10,
        matrix_table(&m.fits, p)
    );
    let mut by_large: Vec<AlphaBeta> = m.fits.iter().map(|f| f.link).collect();
    by_large.sort_by(|x, y| x.predict(LARGE as f64).total_cmp(&y.predict(LARGE as f64)));
    let links = Links {
        fast: by_large[(by_large.len() - 1) / 2],
        slow: m.fits.iter().map(|f| (f.a, f.b, f.link)).collect(),
    };
    let sizes = worker::sizes();
    let t = |label: &str, b: usize| m.times[&(label.to_string(), b)] * 1e3;
    let faster = |r: f64, t: f64| if r <= t { "ring" } else { "tree" };
    println!("allreduce, ms per call (model: chapter 10's, on each pair's own link):");
    print!(
        "{:>9} {:>8} {:>8} {:>8} {:>8} {:>7}",
        "per rank", "ring", "(model)", "tree", "(model)", "faster"
    );
    println!(
        "{}",
        if ompi {
            format!(" {:>9} {:>9} {:>7}", ring, tree, "faster")
        } else {
            format!(" {:>9}", "MPI")
        }
    );
    for &b in &sizes {
        let (r, tr) = (t("ring", b), t("tree", b));
        let (rm, tm) = (ring_time(&links, p, b) * 1e3, tree_time(&links, p, b) * 1e3);
        print!(
            "{:>9} {r:>8.3} {rm:>8.3} {tr:>8.3} {tm:>8.3} {:>7}",
            kib(b),
            faster(r, tr)
        );
        match ompi {
            true => println!(
                " {:>9.3} {:>9.3} {:>7}",
                t(ring, b),
                t(tree, b),
                faster(t(ring, b), t(tree, b))
            ),
            false => println!(" {:>9.3}", t("MPI", b)),
        }
    }
    let predicted = match ring_beats_tree_from(&links, p) {
        Some(b) => format!("from {:.0} KiB", b as f64 / 1024.0),
        None => "at no size up to 1 GiB: the tree wins at every size".to_string(),
    };
    println!("\nthe ring beats the tree for good, bytes per rank:");
    println!("  the model:               {predicted}");
    let ours = ring_wins_from(&sizes, |b| t("ring", b), |b| t("tree", b));
    println!("  measured, ours:          {ours}");
    if ompi {
        let mpi = ring_wins_from(&sizes, |b| t(ring, b), |b| t(tree, b));
        println!("  measured, MPI_Allreduce: {mpi}");
    }
}
