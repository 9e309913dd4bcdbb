//! Ex 14.3's agreement check: overflows on some ranks only, the same verdict and scale on
//! every rank after every step.

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A loss scaler's update to check: ex 14.3's, or a planted mistake.
pub type Update =
    fn(&SimpleCommunicator, &mut ch14::loss_scale::LossScaler, bool) -> ch14::loss_scale::Verdict;

/// Ex 14.3's agreement check: 40 steps in which rank `r` overflows at step `n` when
/// `(3n + 5r) % 7 == 0` (some ranks only, at some steps); after every step every rank
/// must hold the same verdict and scale, and skip exactly when some rank overflowed (the
/// rules themselves are the worked sequence's check). Else the first step where they
/// part, and the cause.
pub fn check_agreement(world: &SimpleCommunicator, update: Update) -> Result<(), String> {
    use ch14::loss_scale::{LossScaler, Verdict};
    let (rank, p) = (world.rank() as usize, world.size() as usize);
    let mut mine = LossScaler::new(1024.0, 4);
    for n in 0..40 {
        let overflow = |r: usize| (3 * n + 5 * r).is_multiple_of(7);
        let verdict = update(world, &mut mine, overflow(rank));
        let any = (0..p).any(overflow);
        let mut everyone = vec![0f32; 2 * p];
        let state = [mine.scale, f32::from(u8::from(verdict == Verdict::Skip))];
        world.all_gather_into(&state[..], &mut everyone[..]);
        let part = (0..p).find(|&r| everyone[2 * r..2 * r + 2] != everyone[..2]);
        if let Some(r) = part {
            let word = |skip: f32| if skip == 1.0 { "skipped" } else { "stepped" };
            return Err(format!(
                "step {n}: rank 0 {} with scale {} while rank {r} {} with scale {} (the \
                 overflow was on rank(s) {:?} only): an overflow on one rank is an overflow \
                 on all; reduce the flag with MPI MAX before deciding",
                word(everyone[1]),
                everyone[0],
                word(everyone[2 * r + 1]),
                everyone[2 * r],
                (0..p).filter(|&r| overflow(r)).collect::<Vec<_>>()
            ));
        }
        if (verdict == Verdict::Skip) != any {
            return Err(format!(
                "step {n}: {verdict:?} on every rank, though {}: skip exactly when some rank \
                 overflowed",
                if any {
                    "a rank overflowed"
                } else {
                    "no rank overflowed"
                }
            ));
        }
    }
    Ok(())
}
