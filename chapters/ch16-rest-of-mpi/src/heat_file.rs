//! Given: the heat field as one file, written by every rank at once and readable at any
//! rank count: a 24-byte header (`CH16HEAT`, then the global rows and columns as
//! little-endian u64), then the global field's owned cells, row after row, as doubles.
//!
//! [`save_field`] writes to `PATH.tmp`, syncs it, and renames it over `PATH` only once
//! every rank's write is done and the file closed: a save cut short leaves the previous
//! file whole.
//! Every rank agrees on each step's outcome, so an error is the same one line everywhere
//! and no rank is left waiting in a collective the others skipped.

use crate::file::SharedFile;
use crate::grid::Block;
use ch04::field::Field;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::{Path, PathBuf};
use toolkit::lockstep::agree;

/// The file's first 8 bytes.
pub const MAGIC: [u8; 8] = *b"CH16HEAT";
/// Bytes before the first cell: the magic, the rows, the columns.
pub const HEADER: u64 = 24;

/// Ex 16.5's write: this rank's owned cells through its view, collectively.
pub type WriteFn = fn(&mut SharedFile, &Block, &Field) -> Result<(), String>;
/// Ex 16.5's read: this rank's block from the file (owned cells; ghosts zero).
pub type ReadFn = fn(&mut SharedFile, &Block) -> Result<Field, String>;

/// The header of a `rows x cols` field.
pub fn header(rows: usize, cols: usize) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend((rows as u64).to_le_bytes());
    h.extend((cols as u64).to_le_bytes());
    h
}

fn tmp_of(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Writes `head` at the start of `file` and syncs it (rank 0, every rank's cells written).
fn write_header(file: &Path, head: &[u8]) -> Result<(), String> {
    use std::io::{Seek, SeekFrom, Write};
    let at = |e: std::io::Error| format!("{}: {e}", file.display());
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .map_err(at)?;
    f.seek(SeekFrom::Start(0)).map_err(at)?;
    f.write_all(head).map_err(at)?;
    f.sync_all().map_err(at)
}

/// Saves `field` (this rank's block of `block`) into `path` with `write` (ex 16.5).
/// Collective over `world`, the ranks of `block.cart`.
pub fn save_field(
    world: &SimpleCommunicator,
    block: &Block,
    field: &Field,
    path: &Path,
    write: WriteFn,
) -> Result<(), String> {
    let (root, tmp) = (world.rank() == 0, tmp_of(path));
    if root {
        std::fs::remove_file(&tmp).ok(); // an earlier save cut short
    }
    let opened = {
        world.barrier();
        SharedFile::open(&block.cart, &tmp, true)
    };
    let mut file = match opened {
        Ok(file) => agree(world, Ok(())).map(|_| file)?,
        Err(why) => return Err(agree(world, Err(why)).unwrap_err()),
    };
    agree(world, write(&mut file, block, field))?;
    agree(world, file.sync())?;
    // MPI_File_close is collective but not a barrier: a rank may return from it while
    // another still writes its part. The barrier makes every rank's close, and so every
    // write, come before the rename (and before anyone reads the file).
    drop(file);
    world.barrier();
    let p = &block.decomp.problem;
    let finished = match root {
        true => write_header(&tmp, &header(p.rows, p.cols)).and_then(|_| {
            std::fs::rename(&tmp, path).map_err(|e| format!("renaming {}: {e}", tmp.display()))
        }),
        false => Ok(()),
    };
    agree(world, finished)
}

/// Reads this rank's block of the field in `path` with `read` (ex 16.5), after checking
/// the header against this run's grid and the file's size. Collective over `world`.
pub fn load_field(
    world: &SimpleCommunicator,
    block: &Block,
    path: &Path,
    read: ReadFn,
) -> Result<Field, String> {
    let mut file = match SharedFile::open(&block.cart, path, false) {
        Ok(file) => agree(world, Ok(())).map(|_| file)?,
        Err(why) => return Err(agree(world, Err(why)).unwrap_err()),
    };
    let mut head = vec![0u8; HEADER as usize];
    agree(world, file.read_bytes_at_all(0, &mut head))?;
    let p = &block.decomp.problem;
    let want = HEADER + 8 * (p.rows * p.cols) as u64;
    let fits = if head[..8] != MAGIC {
        Err(format!("{}: not a chapter-16 field file", path.display()))
    } else if head != header(p.rows, p.cols) || file.size() != want {
        let dim = |k: usize| u64::from_le_bytes(head[k..k + 8].try_into().expect("8 bytes"));
        Err(format!(
            "{}: a {} x {} field in {} bytes, but this run's grid is {} x {} ({want} bytes)",
            path.display(),
            dim(8),
            dim(16),
            file.size(),
            p.rows,
            p.cols
        ))
    } else {
        Ok(())
    };
    agree(world, fits)?;
    let mut got = Err(String::new());
    let verdict = match read(&mut file, block) {
        Ok(field) => {
            got = Ok(field);
            Ok(())
        }
        Err(why) => Err(why),
    };
    agree(world, verdict)?;
    got
}
