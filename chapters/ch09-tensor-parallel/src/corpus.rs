//! Given: the capstone's corpus, character by character: the workbook's own pages.
//!
//! The text is a snapshot of every `.md` page under `book/src/` (sorted by path), kept in
//! `data/book-pages/pages.txt.gz` so that the model's runs, and the book's captures of
//! them, do not move each time a page is edited (`python3 scripts/book_pages.py` re-makes
//! it; the captures are then re-made with it). The model learns to write like the book.
//! Its vocabulary is the characters the pages use, sorted; the first nine tenths of each
//! page's characters go to the training split, the rest to validation (so both splits
//! have every chapter's style). A batch is `batch` windows of `seq + 1` characters
//! (inputs, and the same shifted by one as targets) at starts drawn by SplitMix64 from
//! the seed and the step: every rank draws the same global batch, and DP replica d keeps
//! its rows `d * batch/dp..(d + 1) * batch/dp`: the same on every rank of a
//! tensor-parallel group, distinct across replicas, and together the one process's batch.

use flate2::read::GzDecoder;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use tch::Tensor;
use trainer_kit::rng::SplitMix64;

/// The repository's root (the snapshot is read from `data/book-pages/` below it).
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The snapshot of the book's pages, below the repository's root.
pub const SNAPSHOT: &str = "data/book-pages/pages.txt.gz";

/// The pages of a snapshot's text: records of the byte 0x1e, the page's path, a newline
/// and the page's text (`scripts/book_pages.py` writes them); the texts, in order.
pub fn split_pages(snapshot: &str) -> Result<Vec<String>, String> {
    let mut records = snapshot.split('\u{1e}');
    if records.next() != Some("") {
        return Err("the snapshot does not start with a page record (0x1e)".into());
    }
    records
        .map(|r| match r.split_once('\n') {
            Some((_path, text)) => Ok(text.to_string()),
            None => Err(format!("a page record without its path line: {:.40}", r)),
        })
        .collect()
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
    /// The book's pages from the shipped snapshot: `book-pages/pages.txt.gz` under
    /// `$WORKBOOK_DATA` when set (a binary carried to another machine, as the GPU kit
    /// does), else [`SNAPSHOT`] under this repository ([`Corpus::book`]).
    pub fn shipped() -> Result<Self, String> {
        match std::env::var_os("WORKBOOK_DATA") {
            Some(data) => Self::book_at(&Path::new(&data).join("book-pages/pages.txt.gz")),
            None => Self::book(&repository_root()),
        }
    }

    /// The book's pages, from the snapshot under `root` ([`SNAPSHOT`]).
    pub fn book(root: &Path) -> Result<Self, String> {
        Self::book_at(&root.join(SNAPSHOT))
    }

    /// The book's pages, from the snapshot file `path`.
    fn book_at(path: &Path) -> Result<Self, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut text = String::new();
        GzDecoder::new(file)
            .read_to_string(&mut text)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let texts = split_pages(&text).map_err(|e| format!("{}: {e}", path.display()))?;
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
