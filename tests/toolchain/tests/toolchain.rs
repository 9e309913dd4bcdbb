//! MPI and LibTorch link into one binary and work together on 2 ranks.
//!
//! Run: `cargo test -q -p workbook-toolchain --test toolchain`.

use toolkit::launch::Job;

#[test]
fn mpi_and_libtorch_allreduce_a_tensor_on_two_ranks() {
    let out = Job::new(env!("CARGO_BIN_EXE_torch_smoke"))
        .ranks(2)
        .run()
        .expect("mpirun");
    let text = out.text();
    assert!(out.success(), "torch_smoke failed:\n{text}");
    assert!(
        text.contains("on 2 ranks: allreduce of a 1000-float tensor on Cpu gave 3 everywhere"),
        "{text}"
    );
}
