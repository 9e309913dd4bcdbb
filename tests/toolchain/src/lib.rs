//! The MPI + LibTorch toolchain check, in a crate of its own so that the workspace rules
//! (`workbook-tests`, about the book and files) build without MPI or LibTorch.
//!
//! - `src/bin/torch_smoke.rs`: one binary with MPI and LibTorch; allreduces a tensor;
//! - `tests/toolchain.rs`: runs it on 2 ranks.
//!
//! Run: `cargo test -q -p workbook-toolchain` (the first build compiles torch-sys: minutes).
