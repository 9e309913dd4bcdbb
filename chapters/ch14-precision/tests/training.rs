//! Checks of exercise 14.4 (the mixed-precision step), under mpirun at 1 and 3 ranks on
//! chapter 6's MLP and the first samples of the digits, step by step against one process
//! that computes every rank's slice of the batch and sums in rank order: bf16 compute with
//! bf16 on the wire (equal bit for bit), f32 compute with bf16 on the wire (ex 14.1
//! rounds the gradient), f16 compute under a loss scale that overflows, skips and grows
//! (f32 sum: within 1e-5). Run: `make check CH=14` or `cargo test -p ch14-precision
//! --features solution --test main training::`.

use crate::common::training::{cases, check_step};
use ch06::data::digits;
use ch14::master::step;
use toolkit::mpi_test;

mpi_test! {
    fn ex14_4_the_step_equals_one_process(world at &[1, 3]) {
        let data = digits()?;
        for (setup, need_skip) in cases() {
            check_step(world, &data, &setup, step, need_skip)?;
        }
        Ok(())
    }
}
