//! Given: the capstone's corpus, character by character: the workbook's own pages.
//!
//! The text is every `.md` file under `book/src/` of this repository (read at run time,
//! sorted by path), so the model learns to write like the book. Its vocabulary is the
//! characters the pages use, sorted; the first nine tenths of each page's characters go to the
//! training split, the rest to validation (so both splits have every chapter's style). A batch is `batch` windows of `seq + 1`
//! characters (inputs, and the same shifted by one as targets) at starts drawn by
//! SplitMix64 from the seed and the step: every rank draws the same global batch, and
//! DP replica d keeps its rows `d * batch/dp..(d + 1) * batch/dp`: the same on every rank
//! of a tensor-parallel group, distinct across replicas, and together the one process's
//! batch.

use std::ops::Range;
use std::path::{Path, PathBuf};
use tch::Tensor;
use trainer_kit::rng::SplitMix64;

/// The repository's root (the pages are read from `book/src/` below it).
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.md` file under `dir`, sorted by path.
pub fn pages(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = vec![];
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            found.extend(pages(&path)?);
        } else if path.extension().is_some_and(|x| x == "md") {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Which part of the text a batch is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Train,
    Valid,
}

/// The text as token ids, split, with its vocabulary.
pub struct Corpus {
    /// The vocabulary: token id i is `chars[i]`.
    pub chars: Vec<char>,
    /// The pages the text came from.
    pub pages: usize,
    train: Vec<i64>,
    valid: Vec<i64>,
}

impl Corpus {
    /// The book's pages under `root`/book/src.
    pub fn book(root: &Path) -> Result<Self, String> {
        let files = pages(&root.join("book/src"))?;
        let read =
            |f: &PathBuf| std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()));
        let texts = files.iter().map(read).collect::<Result<Vec<_>, _>>()?;
        Ok(Self::from_pages(&texts))
    }

    /// A corpus of `texts` (pages): their characters sorted; the first 90% of each page
    /// for training, the rest for validation, each split the pages in order.
    pub fn from_pages(texts: &[String]) -> Self {
        let mut chars: Vec<char> = texts.iter().flat_map(|t| t.chars()).collect();
        chars.sort_unstable();
        chars.dedup();
        let (mut train, mut valid) = (vec![], vec![]);
        for text in texts {
            let ids: Vec<i64> = text
                .chars()
                .map(|c| chars.binary_search(&c).expect("a character of the text") as i64)
                .collect();
            let cut = ids.len() * 9 / 10;
            train.extend_from_slice(&ids[..cut]);
            valid.extend_from_slice(&ids[cut..]);
        }
        Corpus {
            chars,
            pages: texts.len(),
            train,
            valid,
        }
    }

    /// The vocabulary's size V.
    pub fn vocab(&self) -> usize {
        self.chars.len()
    }

    /// Characters in the training and the validation split.
    pub fn sizes(&self) -> (usize, usize) {
        (self.train.len(), self.valid.len())
    }

    /// `text` as token ids; `Err` naming a character the vocabulary lacks.
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, String> {
        let id = |c: char| self.chars.binary_search(&c).map(|i| i as i64);
        let ids = text.chars().map(|c| id(c).map_err(|_| c));
        ids.collect::<Result<_, _>>()
            .map_err(|c| format!("the character {c:?} is not in the corpus's vocabulary"))
    }

    /// Token ids as text.
    pub fn decode(&self, ids: &[i64]) -> String {
        ids.iter().map(|&i| self.chars[i as usize]).collect()
    }

    /// Step `step`'s batch of `global` windows of `seq` tokens from `split`, drawn from
    /// `seed`; only the rows `rows` of it (a DP replica's): `(inputs, targets)`, int64
    /// `[rows.len(), seq]` each, the targets the inputs shifted by one.
    pub fn batch(
        &self,
        split: Split,
        seed: u64,
        step: u64,
        global: usize,
        seq: usize,
        rows: Range<usize>,
    ) -> (Tensor, Tensor) {
        let ids = match split {
            Split::Train => &self.train,
            Split::Valid => &self.valid,
        };
        let span = (ids.len() - seq - 1) as u64;
        let salt = match split {
            Split::Train => 0,
            Split::Valid => 1 << 63,
        };
        let mut rng = SplitMix64(seed ^ salt ^ step.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let starts: Vec<usize> = (0..global)
            .map(|_| (rng.next_u64() % span) as usize)
            .collect();
        let (mut x, mut y) = (vec![], vec![]);
        for &s in &starts[rows.clone()] {
            x.extend_from_slice(&ids[s..s + seq]);
            y.extend_from_slice(&ids[s + 1..s + seq + 1]);
        }
        let shape = [rows.len() as i64, seq as i64];
        (
            Tensor::from_slice(&x).view(shape),
            Tensor::from_slice(&y).view(shape),
        )
    }
}
