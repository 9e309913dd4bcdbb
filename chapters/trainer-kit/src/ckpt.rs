//! One checkpoint container for every trainer, and the bytes of its body.
//!
//! A file is: magic (8 bytes, the trainer's), format version (u32), body length (u64), the
//! body, FNV-1a-64 of the body (u64), all little-endian. [`Format::seal`] wraps a body,
//! [`Format::unseal`] checks a file and hands its body back: a short file is *truncated*, a
//! wrong magic or version is *not a checkpoint*, a checksum that does not match is
//! *corrupt*. The body is written with [`Writer`] and read with [`Reader`]; a trainer starts
//! it with its model's name and shape ([`Writer::str`]) and refuses another model's file
//! with [`same_model`], in one line.
//!
//! Writing the file atomically and restoring tensors are the trainers' own (chapter 6
//! teaches them: ex 6.6 and 6.7).

/// FNV-1a, 64 bits: enough to catch flipped or cut bytes (not an attack).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Why a file's body cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SealError {
    /// The file ends early (a crash during a non-atomic write, a copy cut short).
    Truncated { expected: u64, got: u64 },
    /// Another magic word or format version.
    NotACheckpoint,
    /// The bytes changed after writing: the checksum does not match.
    Corrupt,
}

/// A trainer's file format: its magic word and version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub magic: [u8; 8],
    pub version: u32,
}

/// Magic, version and body length.
const HEAD: usize = 20;

impl Format {
    /// The file that holds `body`.
    pub fn seal(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEAD + body.len() + 8);
        out.extend_from_slice(&self.magic);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(&fnv1a(body).to_le_bytes());
        out
    }

    /// The body of a file written by [`Format::seal`], its length and checksum checked.
    pub fn unseal<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], SealError> {
        let got = bytes.len() as u64;
        if bytes.len() < HEAD {
            return match bytes.len() >= 8 && bytes[..8] != self.magic {
                true => Err(SealError::NotACheckpoint),
                false => Err(SealError::Truncated {
                    expected: HEAD as u64 + 8,
                    got,
                }),
            };
        }
        if bytes[..8] != self.magic || bytes[8..12] != self.version.to_le_bytes() {
            return Err(SealError::NotACheckpoint);
        }
        let body_len = u64::from_le_bytes(bytes[12..HEAD].try_into().expect("8 bytes"));
        let expected = (HEAD as u64).saturating_add(body_len).saturating_add(8);
        if got < expected {
            return Err(SealError::Truncated { expected, got });
        }
        let (body, sum) = bytes[HEAD..].split_at(body_len as usize);
        if got != expected || fnv1a(body).to_le_bytes() != sum {
            return Err(SealError::Corrupt);
        }
        Ok(body)
    }
}

/// Refuses a checkpoint of another model: `saved` and `this` are the names (with their
/// shapes) that the trainer wrote first in the body. One line, both names in it.
pub fn same_model(saved: &str, this: &str) -> Result<(), String> {
    match saved == this {
        true => Ok(()),
        false => Err(format!(
            "a checkpoint of model `{saved}`, but this is model `{this}`"
        )),
    }
}

/// Tensors with their names, `prefix` before each (`""`, or a tag of the optimizer's
/// state such as `"adam_m."`): the list a trainer saves and restores.
pub fn named(
    prefix: &str,
    names: &[String],
    tensors: impl IntoIterator<Item = tch::Tensor>,
) -> Vec<(String, tch::Tensor)> {
    let names = names.iter().map(|n| format!("{prefix}{n}"));
    names.zip(tensors).collect()
}

/// The elements a tensor of a checkpoint holds: f32 or f64, stored little-endian.
pub trait Elem: Copy {
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the element's bytes.
    fn put(self, out: &mut Vec<u8>);
    /// The element of `SIZE` bytes.
    fn get(bytes: &[u8]) -> Self;
}

impl Elem for f32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> f32 {
        f32::from_le_bytes(b.try_into().expect("4 bytes"))
    }
}

impl Elem for f64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> f64 {
        f64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

/// Builds a body: numbers, strings and named tensors, little-endian.
#[derive(Default)]
pub struct Writer {
    /// The body so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// A `u64`.
    pub fn u64(&mut self, x: u64) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    /// A string: its length, then its UTF-8 bytes.
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes.extend_from_slice(s.as_bytes());
    }
    /// A named tensor: name, dimensions and their sizes, element count, elements.
    pub fn tensor<T: Elem>(&mut self, name: &str, shape: &[i64], data: &[T]) {
        self.str(name);
        self.u64(shape.len() as u64);
        shape.iter().for_each(|&d| self.u64(d as u64));
        self.u64(data.len() as u64);
        data.iter().for_each(|x| x.put(&mut self.bytes));
    }
}

/// A named tensor as read back: name, shape, elements.
pub type Named<T> = (String, Vec<i64>, Vec<T>);

/// Reads a body written by [`Writer`]; every read is `None` past the end.
pub struct Reader<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `body`.
    pub fn new(body: &'a [u8]) -> Reader<'a> {
        Reader { body, at: 0 }
    }
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.body.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    /// A `u64`.
    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    /// A string.
    pub fn str(&mut self) -> Option<String> {
        let len = self.u64()? as usize;
        String::from_utf8(self.bytes(len)?.to_vec()).ok()
    }
    /// A named tensor written by [`Writer::tensor`] with the same element type.
    pub fn tensor<T: Elem>(&mut self) -> Option<Named<T>> {
        let name = self.str()?;
        let dims = self.u64()? as usize;
        let shape = (0..dims.min(64))
            .map(|_| self.u64().map(|d| d as i64))
            .collect::<Option<Vec<i64>>>()?;
        if shape.len() != dims {
            return None;
        }
        let len = self.u64()? as usize;
        let raw = self.bytes(len.checked_mul(T::SIZE)?)?;
        Some((name, shape, raw.chunks_exact(T::SIZE).map(T::get).collect()))
    }
    /// Whether the whole body was read.
    pub fn at_end(&self) -> bool {
        self.at == self.body.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Format = Format {
        magic: *b"KITTEST1",
        version: 3,
    };

    fn body() -> Vec<u8> {
        let mut w = Writer::default();
        w.str("toy 2x3");
        w.u64(41);
        w.tensor("w", &[2, 3], &[1.5f32, -2.0, 0.0, 3.25, 7.0, -0.5]);
        w.tensor("m", &[1], &[f64::MIN_POSITIVE]);
        w.bytes
    }

    #[test]
    fn a_sealed_body_reads_back_bit_for_bit() {
        let file = F.seal(&body());
        let mut r = Reader::new(F.unseal(&file).unwrap());
        assert_eq!(r.str().as_deref(), Some("toy 2x3"));
        assert_eq!(r.u64(), Some(41));
        let (name, shape, data) = r.tensor::<f32>().unwrap();
        assert_eq!((name.as_str(), shape), ("w", vec![2, 3]));
        assert_eq!(data, [1.5, -2.0, 0.0, 3.25, 7.0, -0.5]);
        assert_eq!(
            r.tensor::<f64>().unwrap().2[0].to_bits(),
            f64::MIN_POSITIVE.to_bits()
        );
        assert!(r.at_end());
        assert_eq!(r.u64(), None);
    }

    #[test]
    fn cut_changed_or_foreign_files_are_refused() {
        let file = F.seal(&body());
        for cut in [0, 5, 19, 20, file.len() - 1] {
            let e = F.unseal(&file[..cut]).unwrap_err();
            assert!(
                matches!(e, SealError::Truncated { .. }),
                "cut at {cut}: {e:?}"
            );
        }
        for at in [20, 30, file.len() - 1] {
            let mut flipped = file.clone();
            flipped[at] ^= 1;
            assert_eq!(F.unseal(&flipped), Err(SealError::Corrupt), "byte {at}");
        }
        let mut longer = file.clone();
        longer.push(0);
        assert_eq!(F.unseal(&longer), Err(SealError::Corrupt));
        let other = Format { version: 4, ..F };
        assert_eq!(other.unseal(&file), Err(SealError::NotACheckpoint));
        assert_eq!(
            F.unseal(b"PNG\0 not a checkpoint"),
            Err(SealError::NotACheckpoint)
        );
    }

    #[test]
    fn named_tensors_carry_their_prefix() {
        let names = ["w".to_string(), "b".to_string()];
        let list = named("adam_m.", &names, [1.0f64, 2.0].map(tch::Tensor::from));
        let got: Vec<(&str, f64)> = list
            .iter()
            .map(|(n, t)| (n.as_str(), t.double_value(&[])))
            .collect();
        assert_eq!(got, [("adam_m.w", 1.0), ("adam_m.b", 2.0)]);
    }

    #[test]
    fn another_model_is_refused_in_one_line() {
        assert_eq!(same_model("mlp", "mlp"), Ok(()));
        let e = same_model("mlp 784", "cnn").unwrap_err();
        assert!(
            e.contains("`mlp 784`") && e.contains("`cnn`") && !e.contains('\n'),
            "{e}"
        );
    }
}
