//! Given: per-stage checkpoints. Each stage writes its own file `DIR/stage-S.ckpt` (only
//! replica 0: the replicas hold the same values), atomically: temporary file, sync,
//! rename. Layout: magic `CH07STG1`, body length (u64), body, FNV-1a-64 of the body. The
//! body: step, stage, stages, then every tensor (parameters, then the optimizer's
//! state) as name, shape and the f64 bit patterns: a resumed run continues bit for bit.

use std::io::Write;
use std::path::{Path, PathBuf};
use tch::Tensor;

const MAGIC: &[u8; 8] = b"CH07STG1";

/// The file of stage `s` in `dir`.
pub fn path(dir: &Path, s: usize) -> PathBuf {
    dir.join(format!("stage-{s}.ckpt"))
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

// ANCHOR: save
/// Writes step `step` of stage `s` of `p` with its named tensors to `file` atomically.
pub fn save(
    file: &Path,
    step: u64,
    s: usize,
    p: usize,
    tensors: &[(String, Tensor)],
) -> std::io::Result<()> {
    let mut body = vec![];
    for x in [step, s as u64, p as u64, tensors.len() as u64] {
        body.extend_from_slice(&x.to_le_bytes());
    }
    for (name, t) in tensors {
        body.extend_from_slice(&(name.len() as u64).to_le_bytes());
        body.extend_from_slice(name.as_bytes());
        let mut values = vec![];
        crate::wire::copy_out(t, &mut values);
        body.extend_from_slice(&(t.dim() as u64).to_le_bytes());
        t.size()
            .iter()
            .for_each(|d| body.extend_from_slice(&d.to_le_bytes()));
        values
            .iter()
            .for_each(|v| body.extend_from_slice(&v.to_bits().to_le_bytes()));
    }
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(MAGIC)?;
    f.write_all(&(body.len() as u64).to_le_bytes())?;
    f.write_all(&body)?;
    f.write_all(&fnv(&body).to_le_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, file)
}
// ANCHOR_END: save

/// Reads `file` and copies it into `tensors` (same names and shapes, checked first);
/// returns its step. Refuses another stage's file, a cut or changed file, another model.
pub fn load(
    file: &Path,
    s: usize,
    p: usize,
    tensors: &mut [(String, Tensor)],
) -> Result<u64, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let bad = |why: &str| format!("{}: {why}", file.display());
    if bytes.len() < 24 || &bytes[..8] != MAGIC {
        return Err(bad("not a chapter-7 stage checkpoint"));
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
    if bytes.len() != 16 + len + 8 {
        return Err(bad("truncated"));
    }
    let body = &bytes[16..16 + len];
    if fnv(body).to_le_bytes() != bytes[16 + len..] {
        return Err(bad("corrupt: checksum mismatch"));
    }
    let mut at = 0;
    let u64s = |at: &mut usize, n: usize| -> Vec<u64> {
        let v = (0..n)
            .map(|i| u64::from_le_bytes(body[*at + 8 * i..*at + 8 * i + 8].try_into().unwrap()))
            .collect();
        *at += 8 * n;
        v
    };
    let head = u64s(&mut at, 4);
    let (step, fs, fp, count) = (
        head[0],
        head[1] as usize,
        head[2] as usize,
        head[3] as usize,
    );
    if (fs, fp) != (s, p) || count != tensors.len() {
        return Err(bad(&format!(
            "stage {fs} of {fp} with {count} tensors; this is stage {s} of {p} with {}",
            tensors.len()
        )));
    }
    let mut staged = vec![];
    for (name, t) in tensors.iter() {
        let n = u64s(&mut at, 1)[0] as usize;
        let saved = String::from_utf8_lossy(&body[at..at + n]).to_string();
        at += n;
        let dims = u64s(&mut at, 1)[0] as usize;
        let shape: Vec<i64> = u64s(&mut at, dims).into_iter().map(|d| d as i64).collect();
        if &saved != name || shape != t.size() {
            return Err(bad(&format!(
                "`{saved}` {shape:?} where this stage has `{name}` {:?}",
                t.size()
            )));
        }
        let k = crate::wire::numel(&shape);
        let values: Vec<f64> = u64s(&mut at, k).into_iter().map(f64::from_bits).collect();
        staged.push(crate::wire::copy_in(&values, &shape, t.device()));
    }
    for ((_, t), v) in tensors.iter_mut().zip(staged) {
        tch::no_grad(|| t.copy_(&v));
    }
    Ok(step)
}
