//! Checks of exercise 9.4 (the tensor-parallel MLP) at t = 1..4 ranks, in f64 and f32:
//! the output, the input's gradient and rank r's slices of the parameters' gradients
//! against one process's MLP (tests/common: `check_mlp`, within `compare::block_bound`),
//! and its collectives counted by the harness: one allreduce forward, one backward.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main mlp::`.

use crate::common;

use crate::common::RANKS;
use ch09::mlp::mlp_forward;
use ch09::params::BlockParams;
use ch09::tape::Tape;
use ch09::tp::Tp;
use tch::Kind;
use toolkit::mpi_test;
use toolkit::tally;

mpi_test! {
    fn ex9_4_the_mlp_equals_one_process_forward_and_backward(world at RANKS) {
        let tp = Tp::new(world);
        for kind in [Kind::Double, Kind::Float] {
            common::check_mlp(&tp, kind, mlp_forward)?;
        }
        Ok(())
    }
}

mpi_test! {
    fn ex9_4_the_mlp_calls_one_allreduce_forward_and_one_backward(world at RANKS) {
        let tp = Tp::new(world);
        let cfg = common::config();
        let p = common::shard_of(&BlockParams::whole(&cfg, Kind::Float, 7), &cfg, tp.size(), tp.rank());
        let x = common::drawn(&[cfg.batch as i64, cfg.seq as i64, cfg.hidden as i64], Kind::Float, 8);
        let mut tape = Tape::new();
        tally::start();
        let y = mlp_forward(&mut tape, &tp, &p, &x);
        let forward = tally::count(&tally::stop(), "MPI_Allreduce");
        tally::start();
        let _dx = tape.backward(&y, &y.ones_like());
        let backward = tally::count(&tally::stop(), "MPI_Allreduce");
        let bytes = (x.numel() * 4) as i64;
        if forward != (1, bytes) || backward != (1, bytes) {
            return Err(format!(
                "rank {} of {}: the MLP called MPI_Allreduce {} times forward ({} bytes) and {} \
                 times backward ({} bytes); expected once each, of b*s*h = {} f32 values",
                tp.rank(), tp.size(), forward.0, forward.1, backward.0, backward.1, x.numel()
            ));
        }
        Ok(())
    }
}
