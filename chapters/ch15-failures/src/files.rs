//! Given: a sharded checkpoint's files. Each rank writes its own shard,
//! `DIR/shard-Q-of-N-step-S.ckpt`, atomically (a temporary file, written, synced, renamed);
//! then [`publish`], a collective, checks that every rank's shard is on disk whole and
//! only then has rank 0 replace `DIR/manifest.ckpt`, the same atomic way: the step, N and
//! each shard's length. A checkpoint exists when the manifest names it, so a save cut
//! short anywhere (a writer killed mid-file, a rank that died) leaves the previous one
//! whole. Loading ([`load`]) reads the manifest, then this rank's shard, its checksum
//! checked. The containers are the trainer kit's (`trainer_kit::ckpt`).
//!
//! The writer is slowed or killed on request ([`Pace`]): the checks and the lab use it to
//! make a save take long enough to overlap training, or to die half-way.

use crate::model::Snapshot;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use trainer_kit::ckpt::{Format, Reader, Writer};

const SHARD: Format = Format {
    magic: *b"CH15SHRD",
    version: 1,
};
const MANIFEST: Format = Format {
    magic: *b"CH15MANI",
    version: 1,
};

/// How a writer goes: a pause after each MiB written (0: full speed), and the byte count
/// after which it kills its whole process with SIGKILL (a crash in the middle of a save).
#[derive(Clone, Debug, Default)]
pub struct Pace {
    /// Pause after each MiB.
    pub per_mib: Duration,
    /// Die (SIGKILL this process) once this many bytes of the file are written.
    pub die_after: Option<u64>,
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

/// Shard writers running now in this process.
pub fn writers_running() -> usize {
    RUNNING.load(Ordering::SeqCst)
}

/// The most shard writers that ran at once in this process.
pub fn most_writers_at_once() -> usize {
    MOST.load(Ordering::SeqCst)
}

/// Empties `dir` (made if missing): a fresh checkpoint folder. One process.
pub fn empty_folder(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
}

/// [`empty_folder`] for a job (collective): once every rank is done with the old folder
/// (a last load may still read it), rank 0 empties it; every rank returns once it exists.
pub fn fresh_folder(world: &SimpleCommunicator, dir: &Path) -> PathBuf {
    world.barrier();
    if world.rank() == 0 {
        empty_folder(dir);
    }
    world.barrier();
    dir.to_path_buf()
}

/// Rank `q`'s shard of the checkpoint of step `step` saved by `n` ranks.
pub fn shard_file(dir: &Path, q: usize, n: usize, step: u64) -> PathBuf {
    dir.join(format!("shard-{q}-of-{n}-step-{step}.ckpt"))
}

/// The checkpoint's manifest.
pub fn manifest_file(dir: &Path) -> PathBuf {
    dir.join("manifest.ckpt")
}

/// Counts a writer as running while it lives.
struct Running;
impl Running {
    fn start() -> Running {
        let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
        MOST.fetch_max(now, Ordering::SeqCst);
        Running
    }
}
impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Writes `bytes` to `file` atomically: `file.tmp`, written by MiB at `pace`, synced,
/// renamed over `file`.
fn write_atomic(file: &Path, bytes: &[u8], pace: &Pace) -> std::io::Result<()> {
    let tmp = file.with_extension("ckpt.tmp");
    let mut out = fs::File::create(&tmp)?;
    let mut written = 0u64;
    for chunk in bytes.chunks(1 << 20) {
        if pace.die_after.is_some_and(|at| written >= at) {
            // SAFETY: raising a signal on our own process.
            unsafe { libc::raise(libc::SIGKILL) };
        }
        out.write_all(chunk)?;
        written += chunk.len() as u64;
        std::thread::sleep(pace.per_mib);
    }
    out.sync_all()?;
    fs::rename(&tmp, file)?;
    fs::File::open(file.parent().unwrap_or(Path::new(".")))?.sync_all()
}

/// Writes this rank's shard of `snap` (rank `q` of `n`) into `dir`; its length in bytes.
/// Touches no MPI: a writer thread may call it.
pub fn write_shard(
    dir: &Path,
    q: usize,
    n: usize,
    snap: &Snapshot,
    pace: &Pace,
) -> Result<u64, String> {
    let _running = Running::start();
    let mut body = Writer::default();
    body.u64(snap.step);
    body.u64(snap.offset);
    let len = snap.params.len() as i64;
    body.tensor("params", &[len], &snap.params);
    body.tensor("m", &[len], &snap.m);
    body.tensor("v", &[len], &snap.v);
    let bytes = SHARD.seal(&body.bytes);
    let file = shard_file(dir, q, n, snap.step);
    write_atomic(&file, &bytes, pace).map_err(|e| format!("writing {}: {e}", file.display()))?;
    Ok(bytes.len() as u64)
}

/// Makes the checkpoint of `step` the one that exists, on every rank of `world`
/// (collective): each rank checks its shard (`wrote`: what its writer returned) is on disk
/// at that length; the ranks agree; if all are, rank 0 replaces the manifest, and each
/// rank removes its own files of other steps. On an error no manifest is written and the
/// previous checkpoint stays; every rank returns the error.
pub fn publish(
    world: &SimpleCommunicator,
    dir: &Path,
    step: u64,
    wrote: Result<u64, String>,
) -> Result<(), String> {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let file = shard_file(dir, q, n, step);
    let mine = wrote.and_then(|len| match fs::metadata(&file) {
        Ok(meta) if meta.len() == len => Ok(len),
        Ok(meta) => Err(format!("rank {q}: its shard of step {step} has {} of {len} bytes on disk", meta.len())),
        Err(_) => Err(format!(
            "rank {q}: its shard of step {step} is not on disk yet: the manifest was to be written before the shard (join the writer before publish)"
        )),
    });
    let mut lengths = vec![0u64; n];
    world.all_gather_into(&mine.clone().unwrap_or(u64::MAX), &mut lengths[..]);
    if let Some(bad) = lengths.iter().position(|&l| l == u64::MAX) {
        return Err(mine.err().unwrap_or_else(|| {
            format!("rank {q}: rank {bad}'s shard of step {step} is not whole: no manifest written, the previous checkpoint stays")
        }));
    }
    let mut result = Ok(());
    if q == 0 {
        let mut body = Writer::default();
        body.u64(step);
        body.u64(n as u64);
        lengths.iter().for_each(|&l| body.u64(l));
        let bytes = MANIFEST.seal(&body.bytes);
        result = write_atomic(&manifest_file(dir), &bytes, &Pace::default())
            .map_err(|e| format!("rank 0: writing the manifest: {e}"));
    }
    world.barrier(); // the manifest names `step` when publish returns, on every rank
    remove_other_steps(dir, q, n, step);
    result
}

/// Removes rank `q`'s shard files (and left-over `.tmp` files) of steps other than `step`.
fn remove_other_steps(dir: &Path, q: usize, n: usize, step: u64) {
    let keep = shard_file(dir, q, n, step);
    let prefix = format!("shard-{q}-of-{n}-step-");
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && entry.path() != keep {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The step of the checkpoint in `dir` and the number of ranks that saved it (None: none).
pub fn saved_step(dir: &Path) -> Result<Option<(u64, usize)>, String> {
    let file = manifest_file(dir);
    let Ok(bytes) = fs::read(&file) else {
        return Ok(None);
    };
    let body = MANIFEST
        .unseal(&bytes)
        .map_err(|e| format!("{}: {e:?}", file.display()))?;
    let mut r = Reader::new(body);
    let (step, n) = (r.u64(), r.u64());
    step.zip(n)
        .map(|(s, n)| Some((s, n as usize)))
        .ok_or(format!("{}: cut short", file.display()))
}

/// Rank `q`'s shard of the checkpoint in `dir`, for a job of `n` ranks; None when there is
/// none. Single-process: any program may read a checkpoint.
pub fn load(dir: &Path, q: usize, n: usize) -> Result<Option<Snapshot>, String> {
    let Some((step, saved_n)) = saved_step(dir)? else {
        return Ok(None);
    };
    if saved_n != n {
        return Err(format!(
            "the checkpoint of step {step} was saved by {saved_n} ranks, this job has {n}"
        ));
    }
    let file = shard_file(dir, q, n, step);
    let bytes = fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let body = SHARD
        .unseal(&bytes)
        .map_err(|e| format!("{}: {e:?}", file.display()))?;
    let mut r = Reader::new(body);
    let cut = || format!("{}: cut short", file.display());
    let (s, offset) = (r.u64().ok_or_else(cut)?, r.u64().ok_or_else(cut)?);
    let mut vec = || r.tensor::<f32>().map(|t| t.2).ok_or_else(cut);
    let (params, m, v) = (vec()?, vec()?, vec()?);
    Ok(Some(Snapshot {
        step: s,
        offset,
        params,
        m,
        v,
    }))
}

/// The synchronous save: this rank's shard written on the calling thread, then
/// [`publish`]ed. Training waits for all of it.
pub fn save_sync(
    world: &SimpleCommunicator,
    dir: &Path,
    snap: &Snapshot,
    pace: &Pace,
) -> Result<(), String> {
    let (q, n) = (world.rank() as usize, world.size() as usize);
    let wrote = write_shard(dir, q, n, snap, pace);
    publish(world, dir, snap.step, wrote)
}
