//! Given: the one-file checkpoint (`crate::one_file`), read back: its header checked by
//! every rank without MPI ([`header`]), then each rank's ranges read with one collective
//! call per array and the checksums added up with one allreduce ([`load`]).

use crate::ckpt_read::Slice;
use crate::one_file::{one_file, part_sum, seal, too_long, Header, UnitHead, HEADER, TOO_LONG};
use crate::sharded_ckpt::manifest_file;
use crate::shards::Layout;
use ch16::file::SharedFile;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::ops::Range;
use std::path::Path;
use trainer_kit::ckpt::{same_model, Reader, SealError};

/// The three arrays of a unit, in the file's order.
const ARRAYS: [&str; 3] = ["parameters", "elements of Adam's m", "elements of Adam's v"];

/// Reads and checks the header of the one-file checkpoint in `dir` against this run's
/// `model` and `units` (name, P_l), and the file's length against it (std::fs, no MPI:
/// every rank alike). Errors are one line, starting with the file.
pub fn header(dir: &Path, model: &str, units: &[(String, usize)]) -> Result<Header, String> {
    let file = one_file(dir);
    let at = |why: String| format!("{}: {why}", file.display());
    let (bytes, size) = read_head(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound if manifest_file(dir).exists() => at(
            "missing, but the folder holds a checkpoint of per-rank shards (manifest.ckpt): \
             resume with --checkpoint-format shards"
                .into(),
        ),
        std::io::ErrorKind::NotFound => {
            at("missing: not a checkpoint, or its save did not finish".into())
        }
        _ => at(e.to_string()),
    })?;
    let len = sealed_len(&bytes).map_err(at)?;
    let body = HEADER.unseal(&bytes[..len]).map_err(|e| at(sealed(e)))?;
    let odd = || at("corrupt: its header's fields do not add up".into());
    let mut r = Reader::new(body);
    same_model(&r.str().ok_or_else(odd)?, model).map_err(at)?;
    let (step, n, count) = match (r.u64(), r.u64(), r.u64()) {
        (Some(s), Some(n), Some(c)) if n > 0 && c > 0 && c < 1 << 16 => (s, n as usize, c),
        _ => return Err(odd()),
    };
    let mut listed = vec![];
    for _ in 0..count {
        let (name, p) = (r.str().ok_or_else(odd)?, r.u64().ok_or_else(odd)? as usize);
        let sums = [r.u64(), r.u64(), r.u64()];
        let [Some(a), Some(b), Some(c)] = sums else {
            return Err(odd());
        };
        listed.push(UnitHead {
            name,
            params: p,
            sums: [a, b, c],
            offset: 0,
        });
    }
    if !r.at_end() {
        return Err(odd());
    }
    let names: Vec<(String, usize)> = listed.iter().map(|u| (u.name.clone(), u.params)).collect();
    if names != units {
        return Err(at(crate::ckpt_read::other_units(&names, units)));
    }
    let (_, placed) = seal(model, step, n, &listed);
    let want = placed.last().map_or(0, |u| u.offset + 12 * u.params as u64);
    if size != want {
        return Err(at(format!(
            "truncated or padded: {size} bytes, the header says {want} (was its write cut short?)"
        )));
    }
    Ok(Header {
        step,
        ranks: n,
        units: placed,
    })
}

/// The sealed header at the start of `file` (its length field read first; no more than
/// it, and never the data), and the file's length.
fn read_head(file: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    use std::io::Read;
    let mut f = std::fs::File::open(file)?;
    let size = f.metadata()?.len();
    let mut head = vec![];
    (&mut f).take(20).read_to_end(&mut head)?;
    if let Some(field) = head.get(12..20) {
        let body = u64::from_le_bytes(field.try_into().expect("8 bytes"));
        // The body and its checksum: a few hundred bytes (at most 16 MiB read).
        f.take(body.saturating_add(8).min(1 << 24))
            .read_to_end(&mut head)?;
    }
    Ok((head, size))
}

/// The length of the sealed header at the start of `bytes` (its length field), or why not.
fn sealed_len(bytes: &[u8]) -> Result<usize, String> {
    let field = bytes
        .get(12..20)
        .ok_or("truncated: shorter than a header")?;
    let body = u64::from_le_bytes(field.try_into().expect("8 bytes"));
    match (body as usize).checked_add(28) {
        Some(n) if n <= bytes.len() => Ok(n),
        _ if bytes.get(..8) != Some(&HEADER.magic[..]) => Err(sealed(SealError::NotACheckpoint)),
        _ => Err(format!(
            "truncated: {} bytes, shorter than its header",
            bytes.len()
        )),
    }
}

/// Why the header cannot be read, in words.
fn sealed(e: SealError) -> String {
    match e {
        SealError::NotACheckpoint => "not a chapter-8 one-file checkpoint".into(),
        SealError::Corrupt => "corrupt: its header's checksum does not match".into(),
        SealError::Truncated { .. } => "truncated: shorter than its header".into(),
    }
}

/// What a rank loads of one unit: `layout`'s shard of m and v (padding zeros), and of
/// the parameters either the whole unit (`all_values`: stages 0 to 2, where every rank
/// holds every parameter) or the same shard.
pub struct Want<'a> {
    pub layout: &'a Layout,
    pub all_values: bool,
}

/// Loads this rank's `wants` (one per unit, in order) from the one-file checkpoint in
/// `dir`, checked (`header`) against `model` and `units`; returns the step and a
/// [`Slice`] per unit. Collective over `world`: every rank reads its ranges, then one
/// allreduce adds up the checksums (each element counted by the rank whose shard holds
/// it), so a corrupt file is refused on every rank alike.
pub fn load(
    world: &SimpleCommunicator,
    dir: &Path,
    model: &str,
    units: &[(String, usize)],
    wants: &[Want],
) -> Result<(u64, Vec<Slice>), String> {
    let head = header(dir, model, units)?;
    let file = one_file(dir);
    let longest = |(w, u): (&Want, &UnitHead)| match w.all_values {
        true => u.params,
        false => w.layout.shard,
    };
    if wants.iter().zip(&head.units).map(longest).any(too_long) {
        return Err(format!("{}: {TOO_LONG}", file.display()));
    }
    let mut f = SharedFile::open(world, &file, false)?;
    // A failed read is noted, not returned at once: every rank makes every collective call.
    let mut failed = None;
    let mut read = |at: u64, range: Range<usize>| -> Vec<f32> {
        let mut bytes = vec![0u8; 4 * range.len()];
        let r = f.read_bytes_at_all(at + 4 * range.start as u64, &mut bytes);
        failed = failed.take().or(r.err());
        let floats = bytes
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4")));
        floats.collect()
    };
    let (mut out, mut sums) = (vec![], vec![0u64; 3 * wants.len() + 1]);
    for (i, (w, u)) in wants.iter().zip(&head.units).enumerate() {
        let (l, p) = (w.layout, u.params as u64);
        let values = if w.all_values { 0..u.params } else { l.real() };
        let mut slice = Slice {
            values: read(u.offset, values.clone()),
            m: read(u.offset + 4 * p, l.real()),
            v: read(u.offset + 8 * p, l.real()),
        };
        // Each element is counted once: by the rank whose shard holds it (rank 0 at stage 0).
        if l.ranks == world.size() as usize || world.rank() == 0 {
            let (real, from) = (l.real(), l.real().start);
            let arrays = [
                &slice.values[real.start - values.start..real.end - values.start],
                &slice.m[..],
                &slice.v[..],
            ];
            for (k, xs) in arrays.iter().enumerate() {
                sums[3 * i + k] = part_sum(i, k, from, xs);
            }
        }
        if !w.all_values {
            slice.values.resize(l.shard, 0.0);
        }
        slice.m.resize(l.shard, 0.0);
        slice.v.resize(l.shard, 0.0);
        out.push(slice);
    }
    *sums.last_mut().expect("one more") = failed.is_some() as u64;
    let mut total = vec![0u64; sums.len()];
    world.all_reduce_into(&sums[..], &mut total[..], SystemOperation::sum());
    if total[sums.len() - 1] != 0 {
        let why = failed.map(|e| format!(" ({e})")).unwrap_or_default();
        let ranks = total[sums.len() - 1];
        return Err(format!(
            "{}: {ranks} rank(s) could not read their part{why}",
            file.display()
        ));
    }
    for (i, u) in head.units.iter().enumerate() {
        if let Some(k) = (0..3).find(|k| total[3 * i + k] != u.sums[*k]) {
            return Err(format!(
                "{}: corrupt: the {} of unit `{}` do not add up to the header's checksum \
                 (changed after the save?)",
                file.display(),
                ARRAYS[k],
                u.name
            ));
        }
    }
    Ok((head.step, out))
}
