//! Given: what a checkpoint holds and its file format, with a checksum.
//!
//! Layout (little-endian): magic `CH06CKPT`, format version (u32), body length (u64),
//! body, FNV-1a-64 of the body (u64). The body: model name, epoch, step in epoch, global
//! step, seed, then the named parameters and the momentum buffers (name, shape, f32 data).
//! A short file is "truncated", a wrong checksum "corrupt": never a silent fresh start.

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

const MAGIC: &[u8; 8] = b"CH06CKPT";
const VERSION: u32 = 1;

/// FNV-1a, 64 bits: enough to catch flipped or cut bytes (not an attack).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The checkpoint as the bytes of a file.
pub fn encode(c: &Checkpoint) -> Vec<u8> {
    let mut body = vec![];
    let put = |b: &mut Vec<u8>, x: u64| b.extend_from_slice(&x.to_le_bytes());
    let put_str = |b: &mut Vec<u8>, s: &str| {
        b.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    };
    put_str(&mut body, &c.model);
    for x in [c.epoch, c.step_in_epoch, c.global_step, c.seed] {
        put(&mut body, x);
    }
    for list in [&c.params, &c.momentum] {
        put(&mut body, list.len() as u64);
        for e in list {
            put_str(&mut body, &e.name);
            put(&mut body, e.shape.len() as u64);
            e.shape.iter().for_each(|&d| put(&mut body, d as u64));
            put(&mut body, e.data.len() as u64);
            e.data
                .iter()
                .for_each(|x| body.extend_from_slice(&x.to_le_bytes()));
        }
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&fnv1a(&body).to_le_bytes());
    out
}

/// Reads the bytes of a file written by [`encode`], checking length and checksum first.
pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    const HEAD: usize = 20;
    if bytes.len() < HEAD {
        let got = bytes.len() as u64;
        return match bytes.len() >= 8 && &bytes[..8] != MAGIC {
            true => Err(CheckpointError::NotACheckpoint),
            false => Err(CheckpointError::Truncated { expected: 28, got }),
        };
    }
    if &bytes[..8] != MAGIC || bytes[8..12] != VERSION.to_le_bytes() {
        return Err(CheckpointError::NotACheckpoint);
    }
    let body_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    let expected = HEAD as u64 + body_len + 8;
    if (bytes.len() as u64) < expected {
        let got = bytes.len() as u64;
        return Err(CheckpointError::Truncated { expected, got });
    }
    let body = &bytes[HEAD..HEAD + body_len as usize];
    let sum = &bytes[HEAD + body_len as usize..expected as usize];
    if bytes.len() as u64 != expected || fnv1a(body).to_le_bytes() != sum {
        return Err(CheckpointError::Corrupt);
    }
    parse_body(body).ok_or(CheckpointError::Corrupt)
}

/// The body's fields; `None` if they do not add up (cannot happen with a good checksum).
fn parse_body(body: &[u8]) -> Option<Checkpoint> {
    let mut r = Reader { body, at: 0 };
    let model = r.string()?;
    let [epoch, step_in_epoch, global_step, seed] = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
    let params = r.entries()?;
    let momentum = r.entries()?;
    Some(Checkpoint {
        model,
        epoch,
        step_in_epoch,
        global_step,
        seed,
        params,
        momentum,
    })
}

/// A cursor over the body.
struct Reader<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.body.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    fn string(&mut self) -> Option<String> {
        let len = self.u64()? as usize;
        String::from_utf8(self.bytes(len)?.to_vec()).ok()
    }
    fn entries(&mut self) -> Option<Vec<Entry>> {
        let n = self.u64()? as usize;
        let mut list = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let name = self.string()?;
            let dims = self.u64()? as usize;
            let shape = (0..dims)
                .map(|_| self.u64().map(|d| d as i64))
                .collect::<Option<_>>()?;
            let len = self.u64()? as usize;
            let raw = self.bytes(len.checked_mul(4)?)?;
            let data = raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            list.push(Entry { name, shape, data });
        }
        Some(list)
    }
}
