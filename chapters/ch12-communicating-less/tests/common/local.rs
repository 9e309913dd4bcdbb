//! Ex 12.5's check (local SGD), shared by its tests and the planted mistakes: every step
//! of a case on every rank, against the local update and the mean over the ranks.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use toolkit::compare::{abs_sums, close_sums, exact};

/// Ex 12.5's step, as the checks take it.
pub type LocalStep =
    fn(&SimpleCommunicator, &mut ch12::averaging::Averaging, &mut [f32], &[f32], f32) -> bool;

/// A local-SGD case: the period `every`, `steps` steps, `dim` parameters, a seed.
#[derive(Clone, Copy, Debug)]
pub struct LocalCase {
    pub every: usize,
    pub steps: usize,
    pub dim: usize,
    pub seed: u64,
}

/// Runs `step` for the case on every rank, from zero parameters with learning rate 0.3 on
/// a least-squares problem of 40 rows, and checks each step: it averages after steps H,
/// 2H, ... and only then; between averages the parameters move by `-lr · grad` with no
/// communication; an average is the mean over the ranks of their updated parameters
/// (within the bound of a sum of `p` terms and one division) and leaves every rank with
/// the same parameters, bit for bit; the state counts the steps, averages and bytes.
pub fn check_local(
    world: &SimpleCommunicator,
    step: LocalStep,
    case: &LocalCase,
) -> Result<(), String> {
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let c = case;
    let at = format!(
        "rank {rank} of {p}, H={} dim={} seed={}",
        c.every, c.dim, c.seed
    );
    let problem = ch12::lsq::Problem::new(c.seed, 40, c.dim, rank, p);
    let mut avg = ch12::averaging::Averaging::new(c.every).map_err(|e| format!("{at}: {e}"))?;
    let (lr, mut w) = (0.3f32, vec![0f32; c.dim]);
    for k in 1..=c.steps {
        let grad: Vec<f32> = problem
            .loss_and_grad(&w)
            .1
            .iter()
            .map(|g| g * p as f32)
            .collect();
        let moved: Vec<f32> = w.iter().zip(&grad).map(|(x, g)| x - lr * g).collect();
        let averaged = step(world, &mut avg, &mut w, &grad, lr);
        let at = format!("{at}: step {k}");
        if averaged != (k % c.every == 0) {
            return Err(format!(
                "{at}: averaged = {averaged}, but H = {} averages after steps {}, {}, {}... only",
                c.every,
                c.every,
                2 * c.every,
                3 * c.every
            ));
        }
        let counts = (avg.since, avg.syncs, avg.bytes_sent);
        let want = (k % c.every, k / c.every, k / c.every * 4 * c.dim);
        if counts != want {
            return Err(format!(
                "{at}: (since, syncs, bytes_sent) = {counts:?}, expected {want:?}"
            ));
        }
        if !averaged {
            exact(
                &format!("{at}: a local step (params - lr·grad)"),
                &w,
                &moved,
            )?;
            continue;
        }
        let mut all = vec![0f32; c.dim * p];
        world.all_gather_into(&moved[..], &mut all[..]);
        let want: Vec<f32> = (0..c.dim)
            .map(|i| ((0..p).map(|r| all[r * c.dim + i] as f64).sum::<f64>() / p as f64) as f32)
            .collect();
        let sums: Vec<f64> = abs_sums(c.dim, all.chunks(c.dim.max(1)).take(p))
            .iter()
            .map(|s| s / p as f64)
            .collect();
        close_sums(
            &format!("{at}: the average (the mean of the ranks' parameters)"),
            &w,
            &want,
            &sums,
            p + 1,
        )
        .map_err(|why| {
            // p times the mean: the sum over the ranks, not divided.
            let sum_kept = p > 1
                && w.iter().zip(&want).all(|(g, m)| (g - m * p as f32).abs() <= 1e-5 * (1.0 + m.abs() * p as f32));
            match sum_kept {
                true => why + &format!(": {p} times the mean, the sum over the {p} ranks not divided by them: your average sums but does not divide"),
                false => why,
            }
        })?;
        let mut held = vec![0f32; c.dim * p];
        world.all_gather_into(&w[..], &mut held[..]);
        if let Some(r) = (1..p).find(|&r| held[r * c.dim..(r + 1) * c.dim] != held[..c.dim]) {
            return Err(format!(
                "{at}: after the average rank {r} holds other parameters than rank 0"
            ));
        }
    }
    Ok(())
}
