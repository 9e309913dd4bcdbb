//! The course tooling: what the instructor and `make` use, with no MPI and no LibTorch in
//! it (the MPI runtime that labs and tests stand on is the `toolkit` crate, next door in
//! chapters/ch00-toolkit/harness).
//!
//! - [`course`]: the course plan (`course.toml`), the one source of every minute the book
//!   states; [`registry`]: the one list of chapters, their crates, labs and benches, and
//!   [`registry_check`]: every place that must know a chapter;
//! - [`check`]: `make check` and `make verify` (the `workbook` binary): which exercises a
//!   chapter has and where; [`check_table`]: a chapter's table and verdict;
//!   [`check_plan`]: what an exercise's tests wait for and which exercise is next;
//!   [`check_focus`]: which failure is shown first and which function "Next:" opens;
//!   [`check_report`]: a failing exercise's lines and the "Next:" lines;
//! - [`test_run`]: `cargo test` and libtest's verdicts; [`waiting`]: what a long check
//!   waits for, said while it waits;
//! - [`progress`]: the progress file each `make check` writes and the class table
//!   `make class` merges;
//! - [`schedule`], [`course_map`], [`teaching`]: the teaching pages made from the plan;
//! - [`handout`]: the course without solutions, and releasing one chapter's;
//! - [`times`]: `make test-times`, where the time of `make test` went.
//!
//! Run its tests: `cargo test -p course`; the binary: `cargo run -q -p course --bin
//! workbook -- help` (the Makefile's `$(WORKBOOK)`).

pub mod check;
pub mod check_focus;
pub mod check_plan;
pub mod check_report;
pub mod check_table;
pub mod course;
pub mod course_map;
pub mod handout;
pub mod progress;
pub mod reading;
pub mod registry;
pub mod registry_check;
pub mod schedule;
pub mod teaching;
pub mod test_run;
pub mod times;
pub mod waiting;
