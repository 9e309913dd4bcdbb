//! Given: what a checkpoint holds and its file format, with a checksum.
//!
//! The container is the trainer kit's (`trainer_kit::ckpt`), shared by every trainer:
//! magic `CH06CKPT`, format version (u32), body length (u64), body, FNV-1a-64 of the body
//! (u64), little-endian. The body: model name, epoch, step in epoch, global step, seed,
//! then the named parameters and the momentum buffers (name, shape, f32 data). A short
//! file is "truncated", a wrong checksum "corrupt": never a silent fresh start.

use trainer_kit::ckpt::{Format, Reader, SealError, Writer};

/// Everything needed to continue training exactly where it stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The model kind ("cnn", "mlp", ...): resuming another model is an error.
    pub model: String,
    /// The epoch the next step belongs to.
    pub epoch: u64,
    /// The next step's position within that epoch (the sampler's state, with the seed).
    pub step_in_epoch: u64,
    /// Steps taken since the start of training.
    pub global_step: u64,
    /// The sampler's shared seed.
    pub seed: u64,
    /// Parameters, in the trainer's order (sorted by name).
    pub params: Vec<Entry>,
    /// The optimizer's momentum buffers, one per parameter, same order.
    pub momentum: Vec<Entry>,
}

/// One named f32 tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub shape: Vec<i64>,
    pub data: Vec<f32>,
}

/// Why a checkpoint cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckpointError {
    /// The file cannot be read (missing, permissions...).
    Io(String),
    /// The file ends early (a crash during a non-atomic write, a copy cut short).
    Truncated { expected: u64, got: u64 },
    /// Not a chapter-6 checkpoint (or another format version).
    NotACheckpoint,
    /// The bytes changed after writing: the checksum does not match.
    Corrupt,
    /// A good checkpoint of something else: another model, other shapes.
    Mismatch(String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Io(e) => write!(f, "cannot read the checkpoint: {e}"),
            CheckpointError::Truncated { expected, got } => write!(
                f,
                "checkpoint truncated: {got} bytes of {expected} (was its write cut short?)"
            ),
            CheckpointError::NotACheckpoint => {
                write!(f, "not a chapter-6 checkpoint (bad magic or version)")
            }
            CheckpointError::Corrupt => write!(f, "checkpoint corrupt: checksum mismatch"),
            CheckpointError::Mismatch(why) => {
                write!(f, "checkpoint does not match this model: {why}")
            }
        }
    }
}

impl std::error::Error for CheckpointError {}

impl From<SealError> for CheckpointError {
    fn from(e: SealError) -> CheckpointError {
        match e {
            SealError::Truncated { expected, got } => CheckpointError::Truncated { expected, got },
            SealError::NotACheckpoint => CheckpointError::NotACheckpoint,
            SealError::Corrupt => CheckpointError::Corrupt,
        }
    }
}

/// Chapter 6's file format in the kit's container.
const FORMAT: Format = Format {
    magic: *b"CH06CKPT",
    version: 1,
};

/// The checkpoint as the bytes of a file.
pub fn encode(c: &Checkpoint) -> Vec<u8> {
    let mut body = Writer::default();
    body.str(&c.model);
    for x in [c.epoch, c.step_in_epoch, c.global_step, c.seed] {
        body.u64(x);
    }
    for list in [&c.params, &c.momentum] {
        body.u64(list.len() as u64);
        for e in list {
            body.tensor(&e.name, &e.shape, &e.data);
        }
    }
    FORMAT.seal(&body.bytes)
}

/// Reads the bytes of a file written by [`encode`], checking length and checksum first.
pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    let body = FORMAT.unseal(bytes)?;
    parse_body(body).ok_or(CheckpointError::Corrupt)
}

/// The body's fields; `None` if they do not add up (cannot happen with a good checksum).
fn parse_body(body: &[u8]) -> Option<Checkpoint> {
    let mut r = Reader::new(body);
    let model = r.str()?;
    let [epoch, step_in_epoch, global_step, seed] = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
    let mut entries = || -> Option<Vec<Entry>> {
        let n = r.u64()? as usize;
        let read = (0..n).map(|_| r.tensor::<f32>());
        let list = read.map(|t| t.map(|(name, shape, data)| Entry { name, shape, data }));
        list.collect()
    };
    let params = entries()?;
    let momentum = entries()?;
    r.at_end().then_some(Checkpoint {
        model,
        epoch,
        step_in_epoch,
        global_step,
        seed,
        params,
        momentum,
    })
}
