//! Given: the element types a tensor can cross MPI with, and the bridge's errors.
//!
//! Used by the bridge (ex 6.1, `bridge.rs`). MPI moves typed buffers; LibTorch tensors
//! carry a `Kind`. This file names the four kinds both sides agree on.

use mpi::datatype::Equivalence;
use tch::Kind;

/// The element types the bridge moves: each has an MPI datatype and a LibTorch kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    /// `Kind::Float` <-> `MPI_FLOAT`.
    F32,
    /// `Kind::Double` <-> `MPI_DOUBLE`.
    F64,
    /// `Kind::Int` <-> `MPI_INT32_T`.
    I32,
    /// `Kind::Int64` <-> `MPI_INT64_T`.
    I64,
}

/// A Rust type that is both a LibTorch element and an MPI datatype: f32, f64, i32, i64.
pub trait MpiElement:
    tch::kind::Element + Equivalence + Copy + Default + PartialEq + std::fmt::Debug
{
    /// The bridge's name for it.
    const TYPE: ElementType;
}

impl MpiElement for f32 {
    const TYPE: ElementType = ElementType::F32;
}
impl MpiElement for f64 {
    const TYPE: ElementType = ElementType::F64;
}
impl MpiElement for i32 {
    const TYPE: ElementType = ElementType::I32;
}
impl MpiElement for i64 {
    const TYPE: ElementType = ElementType::I64;
}

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
