//! Workspace-wide checks. The tests live in `tests/`:
//! - `book_sync.rs`: every include in the book points at a real file and anchor, and the
//!   book holds no pasted code;
//! - `exercise_rules.rs`: stubs fail loudly with their exercise number, solutions mirror
//!   the stubs and hold no `todo!`;
//! - `toolchain.rs`: one binary links MPI and LibTorch and allreduces a tensor on 2 ranks.

use std::path::PathBuf;

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}
