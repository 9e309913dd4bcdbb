//! The settings both halves of chapter 0 read, in a crate with no dependencies:
//! the MPI toolkit (`toolkit`, chapters/ch00-toolkit/harness) and the course tooling
//! (`course`, chapters/ch00-toolkit/course) both stand on it, so the course tooling
//! builds without MPI.
//!
//! - [`settings`]: every `WORKBOOK_*` setting with its one default (the book's table);
//! - [`out`]: `target/workbook/` (or `WORKBOOK_OUT`), where labs and checks write files;
//! - [`launches`]: the launch log, a row per `mpirun` (written by the toolkit, read by
//!   `make test-times`).
//!
//! Run its tests: `cargo test -p workbook-settings`.

pub mod launches;
pub mod out;
pub mod settings;
