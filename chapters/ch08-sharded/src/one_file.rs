//! Given: a sharded checkpoint as one file, written and read by every rank at once with
//! MPI-IO (chapter 16's `SharedFile`): `--checkpoint-format one-file`.
//!
//! `DIR/one-file.ckpt` is a header, then the data in the model's own order. The header is
//! the trainer kit's container (magic, version, length, body, FNV-1a): the model's name,
//! the step, N (the ranks that saved it), and for each unit its name, P_l and three
//! checksums (of its parameters, m and v). The data is, unit after unit, P_l parameters,
//! then P_l elements of m, then P_l of v (f32, little-endian, no padding): the arrays a
//! single process would write. Each rank writes the real elements of its shard of each
//! (`Layout::real`) at their offset, in collective calls (`MPI_File_write_at_all`), so the
//! file does not depend on N, and a rank of any M reads back just its own ranges
//! (`MPI_File_read_at_all`): loading at another N needs no resharding step at all.
//!
//! The checksums must be computed without any rank seeing the whole data, and checked at
//! another N: each is a sum (mod 2^64) of one 64-bit hash per element, of its index and
//! its bits ([`element_hash`]), so the ranks add up their parts with one allreduce,
//! however the elements are cut. A changed element changes its hash, and so the sum.
//!
//! A save writes `one-file.ckpt.tmp`, syncs it (`MPI_File_sync`), closes it, and rank 0
//! renames it over `one-file.ckpt` and syncs the folder: a save cut short leaves the last
//! checkpoint whole. Reading it back is `crate::one_file_read`: its header checked by
//! every rank before MPI starts (`header`), the data's checksums while loading (`load`,
//! collective): one verdict on every rank.

pub use crate::one_file_read::{header, load, Want};
use crate::sharded_ckpt::{make_dir, ToSave};
use ch16::file::SharedFile;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::{Path, PathBuf};
use trainer_kit::ckpt::{Format, Writer};

/// The header's format.
pub(crate) const HEADER: Format = Format {
    magic: *b"CH08ONEF",
    version: 1,
};
/// The one-file checkpoint in `dir`.
pub fn one_file(dir: &Path) -> PathBuf {
    dir.join("one-file.ckpt")
}

/// The hash of element `i` of array `k` of unit `u` holding the bits `bits`: for fixed
/// (u, k, i) a bijection of `bits` (two rounds of splitmix64's finaliser), so a changed
/// element always changes it.
pub fn element_hash(u: usize, k: usize, i: usize, bits: u32) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(mix(((u as u64) << 48) ^ ((k as u64) << 40) ^ i as u64) ^ bits as u64)
}

/// The sum of [`element_hash`] over `xs`, elements `start..` of array `k` of unit `u`:
/// one rank's part of a checksum.
pub fn part_sum(u: usize, k: usize, start: usize, xs: &[f32]) -> u64 {
    xs.iter().enumerate().fold(0u64, |s, (j, x)| {
        s.wrapping_add(element_hash(u, k, start + j, x.to_bits()))
    })
}

/// One unit as the header lists it: name, P_l, the checksums of its three arrays, and
/// where its data starts in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitHead {
    pub name: String,
    pub params: usize,
    pub sums: [u64; 3],
    pub offset: u64,
}

/// A one-file checkpoint's header, as read back and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub step: u64,
    /// N: the ranks that saved it (it does not matter to a reader).
    pub ranks: usize,
    pub units: Vec<UnitHead>,
}

/// The sealed header of `units`, and the units with their data offsets filled in.
pub(crate) fn seal(
    model: &str,
    step: u64,
    ranks: usize,
    units: &[UnitHead],
) -> (Vec<u8>, Vec<UnitHead>) {
    let mut body = Writer::default();
    body.str(model);
    for x in [step, ranks as u64, units.len() as u64] {
        body.u64(x);
    }
    for u in units {
        body.str(&u.name);
        body.u64(u.params as u64);
        u.sums.iter().for_each(|s| body.u64(*s));
    }
    let bytes = HEADER.seal(&body.bytes);
    let mut at = bytes.len() as u64;
    let placed = units.iter().map(|u| {
        let next = at + 12 * u.params as u64;
        let offset = std::mem::replace(&mut at, next);
        UnitHead {
            offset,
            ..u.clone()
        }
    });
    let placed = placed.collect();
    (bytes, placed)
}

/// Why a part of over 2 GiB is refused: an MPI count is a C `int`.
pub(crate) const TOO_LONG: &str = "a rank's part of an array is over 2 GiB, more than one MPI \
    call's count (a C int) can say: use --checkpoint-format shards, or more ranks";

/// Whether `elements` f32 are too many bytes for one MPI call's count.
pub(crate) fn too_long(elements: usize) -> bool {
    4 * elements > i32::MAX as usize
}

/// The bytes of `xs`, little-endian.
fn le_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// What this rank writes of unit `u`: where its part starts in the unit, and its real
/// elements of the parameters, m and v (nothing if it `writes` not).
fn part<'a>(u: &ToSave<'a>, writes: bool) -> (usize, [&'a [f32]; 3]) {
    let (real, mine) = (u.layout.real(), u.layout.mine.start);
    let own = real.start - mine..real.end - mine;
    match writes {
        true => (
            real.start,
            [&u.values[own.clone()], &u.m[own.clone()], &u.v[own]],
        ),
        false => (0, [&[][..]; 3]),
    }
}

/// Saves this rank's part of `units` at `step` as one file in `dir` (collective over
/// `world`; with one rank in the units' layouts, stage 0, only rank 0 writes data).
pub fn save(
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    step: u64,
    units: &[ToSave],
) -> Result<(), String> {
    let (ranks, root) = (units[0].layout.ranks, world.rank() == 0);
    let (file, shown) = (one_file(dir), dir.display());
    // The same verdict on every rank (S depends on P_l and N only), before any collective.
    if units.iter().any(|u| too_long(u.layout.shard)) {
        return Err(format!("cannot save into {shown}: {TOO_LONG}"));
    }
    let tmp = file.with_extension("ckpt.tmp");
    if root {
        std::fs::remove_file(&tmp).ok(); // a save cut short earlier: MPI would not truncate it
    }
    make_dir(world, dir)?; // collective: after the removal on every rank
    let writes = ranks == world.size() as usize || root;
    let mut sums = vec![0u64; 3 * units.len()];
    for (i, u) in units.iter().enumerate() {
        let (start, arrays) = part(u, writes);
        for (k, xs) in arrays.iter().enumerate() {
            sums[3 * i + k] = part_sum(i, k, start, xs);
        }
    }
    let mut total = vec![0u64; sums.len()];
    world.all_reduce_into(&sums[..], &mut total[..], SystemOperation::sum());
    let heads = units.iter().zip(total.chunks(3)).map(|(u, s)| UnitHead {
        name: u.name.into(),
        params: u.layout.params,
        sums: [s[0], s[1], s[2]],
        offset: 0,
    });
    let heads: Vec<UnitHead> = heads.collect();
    let (header, placed) = seal(model, step, ranks, &heads);
    let mut error = None;
    match SharedFile::open(world, &tmp, true) {
        Err(e) => error = Some(e), // every rank's open failed: the call is collective
        Ok(mut f) => {
            let mut note = |r: Result<(), String>| error = error.take().or(r.err());
            note(f.write_bytes_at_all(0, if root { &header } else { &[] }));
            for (u, head) in units.iter().zip(&placed) {
                let (start, arrays) = part(u, writes);
                for (k, xs) in arrays.iter().enumerate() {
                    let at = head.offset + 4 * (k * head.params + start) as u64;
                    note(f.write_bytes_at_all(at, &le_bytes(xs)));
                }
            }
            note(f.sync());
        } // closed here, on every rank
    }
    let mut all = vec![0u64; world.size() as usize];
    world.all_gather_into(&(error.is_some() as u64), &mut all[..]);
    if let Some(r) = all.iter().position(|x| *x != 0) {
        let why = error.map(|e| format!(": {e}")).unwrap_or_default();
        return Err(format!(
            "cannot save into {shown}: rank {r} could not write its part{why}"
        ));
    }
    let mut failed = 0u64;
    if root {
        let done = std::fs::rename(&tmp, &file).and_then(|_| std::fs::File::open(dir)?.sync_all());
        failed = done.is_err() as u64;
    }
    world.process_at_rank(0).broadcast_into(&mut failed);
    match failed {
        0 => Ok(()),
        _ => Err(format!(
            "cannot save into {shown}: rank 0 could not rename {}",
            tmp.display()
        )),
    }
}
