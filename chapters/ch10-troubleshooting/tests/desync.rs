//! Checks of exercise 10.6 (a desync check before each collective): `odd_ranks` on
//! made-up fingerprints (pure, no MPI), worked examples and random plans where no rank,
//! one (rank 0 included) or several differ in call, root, bytes or place; then
//! `check_collective` under mpirun at 1, 2, 3 and 5 ranks, every rank checking the verdict
//! it got. Run: `make check CH=10` or
//! `cargo test -p ch10-troubleshooting --features solution --test main desync::`.

use crate::common::desync::{
    changed, check_odd_ranks, check_verdict, one_broadcast, plans, Change,
};
use ch10::desync::{check_collective, odd_ranks, CallKind, Fingerprint};
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::lockstep::{agree_on, property};
use toolkit::mpi_test;

#[test]
fn ex10_6_the_rank_that_broadcasts_while_the_others_allreduce_is_named() {
    let all = one_broadcast(4, 3);
    check_odd_ranks(odd_ranks, &all).unwrap();
    let says = "collective #17 on this communicator: rank 3 calls MPI_Bcast(root=0 4194304 \
                bytes); ranks 0-2 call MPI_Allreduce(4194304 bytes)";
    assert_eq!(odd_ranks(&all).map(|m| m.to_string()), Some(says.into()));
    // Rank 0 the odd one: the others are right, rank 0 is named.
    check_odd_ranks(odd_ranks, &one_broadcast(4, 0)).unwrap();
    check_odd_ranks(odd_ranks, &one_broadcast(5, 2)).unwrap();
}

#[test]
fn ex10_6_no_rank_one_rank_and_ranks_that_agree_give_no_mismatch() {
    check_odd_ranks(odd_ranks, &[]).unwrap();
    let allreduce = one_broadcast(2, 1)[0];
    check_odd_ranks(odd_ranks, &[allreduce]).unwrap();
    check_odd_ranks(odd_ranks, &[allreduce; 6]).unwrap();
}

#[test]
fn ex10_6_a_root_bytes_or_place_of_its_own_is_a_mismatch() {
    let bcast = changed(one_broadcast(1, 0)[0], Change::Root(2));
    for change in [
        Change::Root(0),
        Change::Bytes(0),
        Change::Seq(true),
        Change::Seq(false),
    ] {
        let mut all = vec![bcast; 4];
        all[1] = changed(bcast, change);
        check_odd_ranks(odd_ranks, &all)
            .map_err(|e| format!("{change:?}: {e}"))
            .unwrap();
    }
}

#[test]
fn ex10_6_a_tie_goes_to_the_lowest_ranks_fingerprint() {
    // Two ranks that differ: rank 0's call is the expected one.
    check_odd_ranks(odd_ranks, &one_broadcast(2, 1)).unwrap();
    check_odd_ranks(odd_ranks, &one_broadcast(2, 0)).unwrap();
    // Two against two, and three groups: 2 broadcasts, 2 allreduces, 1 barrier.
    let (b, a) = (one_broadcast(1, 0)[0], one_broadcast(2, 1)[0]);
    let barrier = changed(a, Change::Call(CallKind::Barrier));
    check_odd_ranks(odd_ranks, &[a, b, b, a]).unwrap();
    check_odd_ranks(odd_ranks, &[barrier, b, a, b, a]).unwrap();
}

proptest! {
    // A failing case is printed with its inputs, not saved to a regressions file.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ex10_6_odd_ranks_names_the_ranks_that_differ_from_the_majority(
        plan in (1usize..9).prop_flat_map(plans)
    ) {
        prop_assert_eq!(check_odd_ranks(odd_ranks, &plan.all()), Ok(()));
    }
}

mpi_test! {
    fn ex10_6_check_collective_gives_every_rank_the_same_verdict(world at &[1, 2, 3, 5]) {
        let (p, rank) = (world.size() as usize, world.rank() as usize);
        // The worked example first: the last rank, then rank 0, broadcasts.
        for odd in [p - 1, 0] {
            let all = one_broadcast(p, odd);
            let got = check_collective(world, &all[rank]);
            // Every rank stops here if one failed (its message names it).
            agree_on(world, check_verdict(got, &all, rank)).map_err(|(_, why)| why)?;
        }
        property(world, "check_collective names the ranks that differ from the majority")
            .cases(48)
            .check(plans(p), |plan| {
                let all: Vec<Fingerprint> = plan.all();
                check_verdict(check_collective(world, &all[rank]), &all, rank)
            })
    }
}
