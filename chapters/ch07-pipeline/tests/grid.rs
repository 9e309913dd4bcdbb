//! Checks of exercise 7.6 (DP x PP): the pipeline and replica communicators have the
//! right members in the right order for every (dp, pp) with dp x pp = ranks; the
//! gradient mean is the mean; and DP x PP (here with a reference executor) trains like
//! one process on the whole batch.
//!
//! Run: `make check CH=07` or `cargo test -p ch07-pipeline --features solution --test main grid::`.

use crate::common;

use ch07::grid::{allreduce_mean, make_grid};
use ch07::optim::{Optimizer, Rule};
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::mpi_test;

/// The world ranks of `comm`'s members, in its rank order.
fn members(comm: &mpi::topology::SimpleCommunicator, world_rank: i32) -> Vec<i32> {
    let mut all = vec![0i32; comm.size() as usize];
    comm.all_gather_into(&world_rank, &mut all[..]);
    all
}

mpi_test! {
    fn ex7_6_the_grid_communicators_have_the_right_members(world at &[1, 2, 3, 4]) {
        let (rank, size) = (world.rank(), world.size() as usize);
        for dp in (1..=size).filter(|d| size.is_multiple_of(*d)) {
            let pp = size / dp;
            let g = make_grid(world, dp, pp)?;
            let (d, s) = (rank as usize / pp, rank as usize % pp);
            let want_pipe: Vec<i32> = (0..pp).map(|t| (d * pp + t) as i32).collect();
            let want_reps: Vec<i32> = (0..dp).map(|e| (e * pp + s) as i32).collect();
            let (pipe, reps) = (members(&g.pipeline, rank), members(&g.replicas, rank));
            if (g.replica, g.stage) != (d, s) || pipe != want_pipe || reps != want_reps {
                return Err(format!(
                    "{dp} x {pp}, world rank {rank}: replica {} stage {}, pipeline {pipe:?}, replicas {reps:?}; expected replica {d} stage {s}, pipeline {want_pipe:?}, replicas {want_reps:?}",
                    g.replica, g.stage
                ));
            }
        }
        match make_grid(world, size + 1, 1) {
            Ok(_) => Err(format!("a {} x 1 grid was accepted on {size} ranks", size + 1)),
            Err(_) => Ok(()),
        }
    }
}

mpi_test! {
    fn ex7_6_dp_x_pp_trains_like_one_process(world at &[2, 4]) {
        tch::set_num_threads(1);
        let size = world.size() as usize;
        let reference = common::one_process(2, 16);
        for dp in [1, 2].into_iter().filter(|d| size.is_multiple_of(*d)) {
            let g = make_grid(world, dp, size / dp)?;
            // The mean itself, on a tensor each replica fills with its own number.
            let mut t = [Tensor::full([3], g.replica as f64, (Kind::Double, Device::Cpu))];
            allreduce_mean(&g.replicas, &mut t);
            let want = (dp as f64 - 1.0) / 2.0;
            if t[0].double_value(&[1]) != want {
                return Err(format!("{dp} x {}: mean over replicas {} where {want} was expected", g.pp, t[0].double_value(&[1])));
            }
            let mut stage = common::stage(g.stage, g.pp);
            let mut opt = Optimizer::new(Rule::Sgd { lr: common::LR }, &stage.params);
            for step in 0..2 {
                let rows = toolkit::split::block_range(16, dp, g.replica);
                let batch = common::batch(step, 16, rows, 2);
                stage.zero_grad();
                common::reference_ops(&g.pipeline, &stage, &batch);
                let mut grads = stage.grads();
                allreduce_mean(&g.replicas, &mut grads);
                opt.step(&mut stage.params, &grads);
            }
            let what = format!("{dp} x {} grid, replica {} stage {}", g.pp, g.replica, g.stage);
            toolkit::lockstep::agree(world, common::same_as_one_process(&stage, &reference, &what))?;
        }
        Ok(())
    }
}
