//! Checks of chapter 0's exercises, each at 1, 2, 3, 4 and 8 ranks.
//!
//! Run: `make check CH=00` (your code) or `cargo test -p ch00-toolkit --features solution`.

use ch00::warmup;
use proptest::prelude::*;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::testing::at_ranks;

const RANKS: &[u32] = &[1, 2, 3, 4, 8];

// ANCHOR: ex0_1
#[test]
fn ex0_1_block_range() {
    at_ranks("ex0_1_block_range", RANKS, |world| {
        use mpi::traits::Communicator;
        let size = world.size() as usize;
        property(
            world,
            "blocks tile 0..len in rank order, sizes differ by at most 1",
        )
        .check(0usize..200, |&len| {
            let blocks: Vec<_> = (0..size)
                .map(|r| warmup::block_range(len, size, r))
                .collect();
            let mut next = 0;
            for (r, b) in blocks.iter().enumerate() {
                if b.start != next {
                    return Err(format!(
                        "len {len}: rank {r} starts at {} not {next}",
                        b.start
                    ));
                }
                let want = len / size + usize::from(r < len % size);
                if b.len() != want {
                    let (extra, base) = (len % size, len / size);
                    let why = match b.len() {
                        n if n == base && extra > 0 => format!(
                            ": the {extra} left over ({len} % {size}) go one each to the first \
                             ranks, so ranks 0..{extra} own {} and the others {base}",
                            base + 1
                        ),
                        _ => format!(": {len} items over {size} ranks are {base} each, and one more for ranks below {extra}"),
                    };
                    return Err(format!(
                        "len {len}: rank {r} owns {} items, not {want}{why}",
                        b.len()
                    ));
                }
                next = b.end;
            }
            exact("end of the last block", &[next], &[len])
        })
    });
}
// ANCHOR_END: ex0_1

// ANCHOR: ex0_2
#[test]
fn ex0_2_gather_to_root() {
    at_ranks("ex0_2_gather_to_root", RANKS, |world| {
        use mpi::traits::Communicator;
        let (rank, size) = (world.rank() as i64, world.size() as i64);
        property(world, "rank 0 receives every rank's value in rank order").check(
            any::<i64>(),
            |&base| {
                let mine = base.wrapping_add(rank * 1_000_003);
                let got = warmup::gather_to_root(world, mine);
                match (rank, got) {
                    (0, Some(all)) => {
                        let want: Vec<i64> = (0..size)
                            .map(|r| base.wrapping_add(r * 1_000_003))
                            .collect();
                        exact("gathered values", &all, &want)
                    }
                    (0, None) => Err("rank 0 returned None; it must return the values".into()),
                    (_, Some(_)) => Err(format!("rank {rank} returned Some; only rank 0 may")),
                    (_, None) => Ok(()),
                }
            },
        )
    });
}
// ANCHOR_END: ex0_2

// ANCHOR: ex0_3
#[test]
fn ex0_3_global_sum() {
    at_ranks("ex0_3_global_sum", RANKS, |world| {
        use mpi::traits::Communicator;
        let (rank, size) = (world.rank() as i64, world.size() as i64);
        property(world, "every rank gets the element-wise sum").check(
            prop::collection::vec(-1_000_000i64..1_000_000, 0..300),
            |xs| {
                // Rank r contributes xs[i] + r * i, so the sum is size * xs[i] + i * size(size-1)/2.
                let mine: Vec<i64> = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| x + rank * i as i64)
                    .collect();
                let want: Vec<i64> = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| size * x + i as i64 * size * (size - 1) / 2)
                    .collect();
                exact("sum", &warmup::global_sum(world, &mine), &want)
            },
        )
    });
}
// ANCHOR_END: ex0_3

/// Planted fault, in the test above as the learner runs it (built with the solutions): rank 1 skips
/// the gather (`if rank == 0 { gather }` alone). The watchdog names each rank's blocked call within
/// the deadline.
#[cfg(feature = "solution")]
#[test]
fn planted_ex0_2_a_rank_that_skips_the_gather_is_named() {
    toolkit::testing::assert_fault_named(
        "ex0_2_gather_to_root",
        2,
        "MPI_Gather@1:skip",
        &["rank 0: DEADLOCK?", "blocked in MPI_Gather", "hint:"],
    );
}
