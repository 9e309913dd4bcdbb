//! Benchmarks of the workbook. `make bench` runs them; criterion writes its reports under
//! `target/criterion/`, the MPI drivers under `target/workbook/`.
//!
//! - `benches/compare.rs`: what one property-test case pays to check a result.
//! - `benches/ring_allreduce.rs`: chapter 3's reduction kernels, and allreduces driven
//!   from rank 0 under mpirun.
