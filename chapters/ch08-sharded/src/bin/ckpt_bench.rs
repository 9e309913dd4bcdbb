//! Benchmark: a sharded checkpoint as a file per rank with a manifest (`--checkpoint-format
//! shards`) against one file written and read with MPI-IO (`one-file`), side by side, at
//! N = 2 and 4 ranks (one mpirun each, started by this program).
//!
//! Run: `make bench CH=08` (release build). Per rank count and size (the lab's MLP, P =
//! 26122, and a flat buffer of 4 Mi parameters: 48 MiB of parameters, m and v), each
//! format saves the same ZeRO-2 state (one unit, each rank its shard; the values are
//! generated here), then loads it back at N ranks and at N - 1 (resharded), and the two
//! formats' loads are compared element for element. Columns: the files and bytes on disk,
//! and the slowest rank's time of a save (each ends durable: fsync, or `MPI_File_sync`)
//! and of a load (every check included), the best of ROUNDS, each with the time of its
//! hashing alone (the checksums it computes, done apart). The files are in the page
//! cache when loaded: a load measures the calls and copies, not the disk. Writes
//! target/workbook/ch08/ckpt_bench.csv.

use ch08::ckpt_read::{self, Slice};
use ch08::one_file::{part_sum, Want};
use ch08::sharded_ckpt::{save_in, CheckpointFormat, ToSave, FLAT_UNIT};
use ch08::shards::Layout;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tabled::Tabled;
use toolkit::bench::{at_rank_counts, load_average, print_row, rows, unbind_ranks};
use toolkit::report::{print_and_save, Timing};
use trainer_kit::ckpt::fnv1a;

const RANKS: [u32; 2] = [2, 4];
const ROUNDS: usize = 5;
/// The lab's MLP, and a flat buffer large enough for the bytes to matter.
const SIZES: [usize; 2] = [26_122, 4 << 20];

#[derive(Serialize, Deserialize, Tabled)]
struct Row {
    #[tabled(rename = "N")]
    n: usize,
    #[tabled(rename = "P")]
    p: usize,
    #[tabled(rename = "format")]
    format: String,
    #[tabled(rename = "files")]
    files: usize,
    #[tabled(rename = "bytes")]
    bytes: u64,
    #[tabled(rename = "save ms")]
    save_ms: String,
    #[tabled(rename = "save hashing ms")]
    save_hash_ms: String,
    #[tabled(rename = "load at N ms")]
    load_ms: String,
    #[tabled(rename = "load hashing ms")]
    load_hash_ms: String,
    #[tabled(rename = "load at N-1 ms")]
    reshard_ms: String,
}

fn main() {
    if toolkit::launch::under_mpirun() {
        let universe = toolkit::spmd::start_rank();
        inner(&universe.world());
        return;
    }
    println!(
        "ranks not bound to cores ({}), load average {:.2}",
        unbind_ranks(),
        load_average()
    );
    let mut all: Vec<Row> = vec![];
    for (np, lines) in at_rank_counts(&RANKS, Duration::from_secs(300)) {
        all.extend(rows::<Row>(&lines).unwrap_or_else(|e| panic!("NP={np}: {e}")));
    }
    let path = print_and_save(&all, "ch08/ckpt_bench.csv").expect("write csv");
    println!(
        "save, load: the slowest rank's time, the best of {ROUNDS} rounds; a save ends with \
         its files durable; a load checks every checksum; load at N-1: the first N-1 ranks \
         load it (resharded); both formats' loads equal, element for element"
    );
    println!("wrote {}", path.display());
}

/// The formats, in the table's order, with their names.
const FORMATS: [(CheckpointFormat, &str); 2] = [
    (CheckpointFormat::Shards, "file per rank + manifest"),
    (CheckpointFormat::OneFile, "one file, MPI-IO"),
];

fn inner(world: &SimpleCommunicator) {
    let (rank, n) = (world.rank() as usize, world.size() as usize);
    let sizes = toolkit::bench::sized(&SIZES[..], &SIZES[..1]);
    let rounds = toolkit::bench::sized(ROUNDS, 1);
    let mut pid = std::process::id();
    world.process_at_rank(0).broadcast_into(&mut pid);
    let base = toolkit::report::out_dir().join(format!("ch08/ckpt_bench-{pid}"));
    let mut out = vec![];
    for &p in sizes {
        let layout = Layout::new(p, n, rank).expect("a layout");
        // This rank's shard of the parameters, m and v: values generated from the index.
        let gen = |k: usize| -> Vec<f32> {
            let f = |i: usize| {
                if i < p {
                    ((i * 7 + k) % 1000) as f32 * 1e-3
                } else {
                    0.0
                }
            };
            layout.mine.clone().map(f).collect()
        };
        let (values, m, v) = (gen(0), gen(1), gen(2));
        let unit = ToSave {
            name: FLAT_UNIT,
            layout: &layout,
            values: &values,
            m: &m,
            v: &v,
        };
        let (model, units) = (format!("synthetic, P = {p}"), [(FLAT_UNIT.to_string(), p)]);
        let mut loaded: Vec<Vec<Slice>> = vec![];
        for (format, name) in FORMATS {
            let dir = base.join(format!("{p}-{format:?}"));
            let save = best(world, rounds, || {
                save_in(format, world, &dir, &model, 7, std::slice::from_ref(&unit)).unwrap()
            });
            let mut got = vec![];
            let load = best(world, rounds, || {
                let want = Want {
                    layout: &layout,
                    all_values: false,
                };
                got = ckpt_read::load(format, world, &dir, &model, &units, &[want])
                    .unwrap()
                    .1;
            });
            let reshard = at_n_minus_1(world, p, rounds, &|comm, l| {
                let want = Want {
                    layout: l,
                    all_values: false,
                };
                ckpt_read::load(format, comm, &dir, &model, &units, &[want]).unwrap();
            });
            let (files, bytes) = on_disk(&dir);
            let (save_hash, load_hash) = hashing(world, format, &unit, rounds);
            out.push(Row {
                n,
                p,
                format: name.into(),
                files,
                bytes,
                save_ms: format!("{:.2}", 1e3 * save),
                save_hash_ms: format!("{:.2}", 1e3 * save_hash),
                load_ms: format!("{:.2}", 1e3 * load),
                load_hash_ms: format!("{:.2}", 1e3 * load_hash),
                reshard_ms: reshard.map_or("-".into(), |s| format!("{:.2}", 1e3 * s)),
            });
            loaded.push(got);
        }
        assert_eq!(
            loaded[0], loaded[1],
            "rank {rank}: the two formats load different states"
        );
    }
    world.barrier();
    if rank == 0 {
        std::fs::remove_dir_all(&base).ok();
        out.iter().for_each(print_row);
    }
}

/// The slowest rank's seconds of `f` (collective), the best of `rounds`.
fn best(world: &SimpleCommunicator, rounds: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        world.barrier();
        let t0 = Instant::now();
        f();
        best = best.min(Timing::over_ranks(world, t0.elapsed().as_secs_f64()).max);
    }
    best
}

/// The hashing a save and a load at N do, alone (the slowest rank's seconds, the best of
/// `rounds`): the shards' FNV-1a, byte by byte, twice over each file it writes (the
/// container's checksum and the manifest's) and twice over every file it reads (a load
/// checks all N shards); the one file's element hashes over this rank's part, once.
fn hashing(
    world: &SimpleCommunicator,
    format: CheckpointFormat,
    u: &ToSave,
    rounds: usize,
) -> (f64, f64) {
    let real = u.layout.real();
    let own = real.start - u.layout.mine.start..real.end - u.layout.mine.start;
    let arrays = [&u.values[own.clone()], &u.m[own.clone()], &u.v[own]];
    let mut sink = 0u64;
    let mut hash = |times: usize| match format {
        CheckpointFormat::Shards => {
            let bytes: Vec<u8> = arrays
                .iter()
                .flat_map(|a| a.iter().flat_map(|x| x.to_le_bytes()))
                .collect();
            best(world, rounds, || {
                (0..2 * times).for_each(|_| sink ^= fnv1a(&bytes))
            })
        }
        CheckpointFormat::OneFile => best(world, rounds, || {
            arrays
                .iter()
                .enumerate()
                .for_each(|(k, a)| sink ^= part_sum(0, k, real.start, a))
        }),
    };
    let out = (hash(1), hash(world.size() as usize));
    std::hint::black_box(sink);
    out
}

/// [`best`] of `load` on the first N - 1 ranks (None at N = 1), with their layouts of P.
fn at_n_minus_1(
    world: &SimpleCommunicator,
    p: usize,
    rounds: usize,
    load: &dyn Fn(&SimpleCommunicator, &Layout),
) -> Option<f64> {
    let m = world.size() as usize - 1;
    let color = match (world.rank() as usize) < m {
        true => Color::with_value(0),
        false => Color::undefined(),
    };
    let comm = world.split_by_color(color);
    let mut s = 0.0;
    if let Some(comm) = &comm {
        let l = Layout::new(p, m, comm.rank() as usize).expect("a layout");
        s = best(comm, rounds, || load(comm, &l));
    }
    world.process_at_rank(0).broadcast_into(&mut s);
    (m > 0).then_some(s)
}

/// The files in `dir` and their bytes.
fn on_disk(dir: &Path) -> (usize, u64) {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    let bytes = files
        .iter()
        .map(|f| f.metadata().map_or(0, |m| m.len()))
        .sum();
    (files.len(), bytes)
}
