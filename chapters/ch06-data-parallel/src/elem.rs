//! Given: the element types a tensor can cross MPI with, and the bridge's errors.
//!
//! Used by the bridge (ex 6.1, `bridge.rs`). MPI moves typed buffers; LibTorch tensors
//! carry a `Kind`. The four element types both sides agree on are the workbook's own
//! (`toolkit::elem`); this file makes them LibTorch elements too.

use tch::Kind;
use toolkit::elem::Elem;

/// The element types the bridge moves, as the toolkit names them: `F32` (LibTorch's
/// `Kind::Float`), `F64` (`Kind::Double`), `I32` (`Kind::Int`), `I64` (`Kind::Int64`).
pub use toolkit::elem::ElementType;

/// A Rust type that is both a LibTorch element and an MPI datatype: f32, f64, i32, i64.
/// Its [`ElementType`] is `T::TYPE`, its LibTorch kind `T::KIND`.
pub trait MpiElement: Elem + tch::kind::Element {}

impl<T: Elem + tch::kind::Element> MpiElement for T {}

/// Why a tensor and a buffer cannot be bridged.
#[derive(Clone, Debug, PartialEq)]
pub enum BridgeError {
    /// The tensor's kind has no MPI element type here (f16, bf16, bool, complex...).
    Unsupported(Kind),
    /// The buffer's element type is not the tensor's.
    TypeMismatch {
        tensor: ElementType,
        buffer: ElementType,
    },
    /// The buffer does not hold exactly the tensor's number of elements.
    Length { tensor: usize, buffer: usize },
}

// ANCHOR: refusal
impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BridgeError::Unsupported(k @ (Kind::Half | Kind::BFloat16)) => write!(
                f,
                "tensor kind {k:?} is refused: MPI has no standard 16-bit float type; \
                 convert with .to_kind(Kind::Float) first"
            ),
            BridgeError::Unsupported(k) => write!(
                f,
                "tensor kind {k:?} is refused: the bridge moves f32, f64, i32 and i64 only"
            ),
            BridgeError::TypeMismatch { tensor, buffer } => write!(
                f,
                "type mismatch: the tensor holds {tensor:?} but the buffer holds {buffer:?}"
            ),
            BridgeError::Length { tensor, buffer } => write!(
                f,
                "length mismatch: the tensor has {tensor} elements but the buffer {buffer}"
            ),
        }
    }
}

// ANCHOR_END: refusal

impl std::error::Error for BridgeError {}
