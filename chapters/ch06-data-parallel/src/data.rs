//! Given: the datasets. The UCI digits ship with the repository (data/digits, 1,797 8x8
//! images, CC BY 4.0); `--data DIR` reads MNIST in its idx format instead.
//!
//! Images come out as f32 tensors (N, 1, H, W) scaled to [0, 1], labels as i64 (N).

use flate2::read::GzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};
use tch::{Kind, Tensor};

/// Images and labels, on the CPU.
pub struct Dataset {
    /// (N, 1, H, W) f32 in [0, 1].
    pub images: Tensor,
    /// (N) i64 in 0..10.
    pub labels: Tensor,
}

impl Dataset {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.labels.size()[0] as usize
    }
    /// True if there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// (H, W) of one image.
    pub fn image_size(&self) -> (i64, i64) {
        let s = self.images.size();
        (s[2], s[3])
    }
    /// The samples at `indices`, in that order: ((n, 1, H, W), (n)).
    pub fn batch(&self, indices: &[usize]) -> (Tensor, Tensor) {
        let idx: Vec<i64> = indices.iter().map(|&i| i as i64).collect();
        let idx = Tensor::from_slice(&idx);
        (
            self.images.index_select(0, &idx),
            self.labels.index_select(0, &idx),
        )
    }
    /// The first `n` samples (for small tests).
    pub fn take(&self, n: usize) -> Dataset {
        let n = n.min(self.len()) as i64;
        Dataset {
            images: self.images.narrow(0, 0, n),
            labels: self.labels.narrow(0, 0, n),
        }
    }
}

/// A train set and a test set.
pub struct Split {
    pub train: Dataset,
    pub test: Dataset,
}

/// The shipped digits file: `digits/digits.csv.gz` under `$WORKBOOK_DATA` when set (a
/// binary carried to another machine, as the GPU kit does), else under `data/` of this
/// repository.
pub fn digits_path() -> PathBuf {
    let data = std::env::var_os("WORKBOOK_DATA").map(PathBuf::from);
    let data = data.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data"));
    data.join("digits/digits.csv.gz")
}

// ANCHOR: digits
/// The UCI digits, split into 1,437 train and 360 test images (a fixed shuffle, the same
/// on every rank and every run, then the last 20% for test).
pub fn digits() -> Result<Split, String> {
    let path = digits_path();
    let gz = std::fs::read(&path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
    let mut text = String::new();
    GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .map_err(|e| format!("{path:?}: not gzip text: {e}"))?;
    let (mut pixels, mut labels) = (vec![], vec![]);
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let values: Vec<f32> = line
            .split(',')
            .map(|v| v.trim().parse::<f32>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{path:?} line {}: {e}", n + 1))?;
        if values.len() != 65 {
            return Err(format!(
                "{path:?} line {}: {} values, expected 65",
                n + 1,
                values.len()
            ));
        }
        pixels.extend(values[..64].iter().map(|p| p / 16.0));
        labels.push(values[64] as i64);
    }
    let n = labels.len() as i64;
    let all = Dataset {
        images: Tensor::from_slice(&pixels).view([n, 1, 8, 8]),
        labels: Tensor::from_slice(&labels),
    };
    let order = crate::shuffle::shuffled(labels.len(), 2024, 0);
    let test_len = labels.len() / 5;
    let (train, test) = order.split_at(labels.len() - test_len);
    let (ti, tl) = all.batch(train);
    let (vi, vl) = all.batch(test);
    Ok(Split {
        train: Dataset {
            images: ti,
            labels: tl,
        },
        test: Dataset {
            images: vi,
            labels: vl,
        },
    })
}
// ANCHOR_END: digits

/// MNIST from `dir` in the idx format: `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`,
/// `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte` (each may also end in `.gz`).
pub fn mnist(dir: &Path) -> Result<Split, String> {
    if !dir.is_dir() {
        return Err(format!("--data {}: no such folder", dir.display()));
    }
    let set = |prefix: &str| -> Result<Dataset, String> {
        let images = read_idx(dir, &format!("{prefix}-images-idx3-ubyte"), 2051)?;
        let labels = read_idx(dir, &format!("{prefix}-labels-idx1-ubyte"), 2049)?;
        if images.0[0] != labels.0[0] {
            return Err(format!(
                "{prefix}: {} images but {} labels",
                images.0[0], labels.0[0]
            ));
        }
        let (n, h, w) = (images.0[0] as i64, images.0[1] as i64, images.0[2] as i64);
        let pixels = Tensor::from_slice(&images.1).to_kind(Kind::Float) / 255.0;
        Ok(Dataset {
            images: pixels.view([n, 1, h, w]),
            labels: Tensor::from_slice(&labels.1).to_kind(Kind::Int64),
        })
    };
    Ok(Split {
        train: set("train")?,
        test: set("t10k")?,
    })
}

/// Reads one idx file (plain or `.gz`): its dimensions and its unsigned bytes.
fn read_idx(dir: &Path, name: &str, magic: u32) -> Result<(Vec<usize>, Vec<u8>), String> {
    let plain = dir.join(name);
    let gz = dir.join(format!("{name}.gz"));
    let bytes = if plain.is_file() {
        std::fs::read(&plain).map_err(|e| format!("{plain:?}: {e}"))?
    } else if gz.is_file() {
        let mut out = vec![];
        let raw = std::fs::read(&gz).map_err(|e| format!("{gz:?}: {e}"))?;
        GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| format!("{gz:?}: {e}"))?;
        out
    } else {
        return Err(format!(
            "--data {}: no {name} (or {name}.gz)",
            dir.display()
        ));
    };
    let word = |i: usize| -> Option<usize> {
        let b = bytes.get(4 * i..4 * i + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let bad = || format!("{name}: not an idx file with magic {magic}");
    if word(0) != Some(magic as usize) {
        return Err(bad());
    }
    let ndims = (magic & 0xff) as usize;
    let dims: Vec<usize> = (1..=ndims)
        .map(word)
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let start = 4 * (ndims + 1);
    let len: usize = dims.iter().product();
    let data = bytes
        .get(start..start + len)
        .ok_or_else(|| format!("{name}: truncated"))?;
    Ok((dims, data.to_vec()))
}
