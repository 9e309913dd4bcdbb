//! Checks of the given node groups (`src/nodes.rs`) under mpirun: the emulated layouts
//! deal the ranks in blocks, every node has one leader, and a bad layout is refused in
//! one line on every rank; the `hier` lab's bad flags are refused in one line before MPI
//! starts. Run:
//! `cargo test -p ch12-communicating-less --test main nodes::`.

use ch12::hier_flags::parse;
use ch12::nodes::{NodeGroups, Nodes};
use mpi::traits::*;
use toolkit::testing::refused_in_one_line;

toolkit::mpi_test! {
    /// 7 ranks on 3 emulated nodes are 3, 2 and 2; one leader per node; peers per local rank.
    fn emulated_nodes_are_blocks_with_one_leader_each(world at &[7]) {
        let g = NodeGroups::new(world, Nodes::Emulated(3))?;
        let want = "3 nodes (emulated) of 3, 2 and 2 ranks";
        match (g.describe(), g.leaders.as_ref().map(|l| l.size())) {
            (d, _) if d != want => Err(format!("described as {d:?}, expected {want:?}")),
            (_, Some(n)) if n != 3 => Err(format!("{n} leaders, expected 3")),
            (_, None) if g.place.local_rank == 0 => Err("local rank 0 is no leader".into()),
            _ if g.peers.size() != if g.place.local_rank < 2 { 3 } else { 1 } => {
                Err(format!("local rank {} has {} peers", g.place.local_rank, g.peers.size()))
            }
            _ => Ok(()),
        }
    }

    /// Too many nodes, and a leader outside its node, are refused in one line everywhere.
    fn bad_layouts_are_refused_in_one_line(world at &[3]) {
        let many = NodeGroups::new(world, Nodes::Emulated(4)).err();
        let want = "4 emulated nodes for 3 ranks: a node needs at least one rank, so 1 to 3 nodes";
        if many.as_deref() != Some(want) {
            return Err(format!("4 nodes of 3 ranks: {many:?}"));
        }
        let outside = NodeGroups::with_leader(world, Nodes::Emulated(1), |_| 3).err();
        let want = "node 0: local rank 0 names local rank 3 as the leader, but the node has 3 ranks";
        match outside.as_deref() == Some(want) {
            true => Ok(()),
            false => Err(format!("leader 3 of 3: {outside:?}")),
        }
    }
}

#[test]
fn nodes_parse_shared_or_a_count() {
    assert_eq!(Nodes::parse("shared"), Ok(Nodes::Shared));
    assert_eq!(Nodes::parse("2"), Ok(Nodes::Emulated(2)));
    for bad in ["two", "0", "-1"] {
        let want = "`shared` or a number of nodes, 1 or more";
        assert_eq!(Nodes::parse(bad), Err(want.into()), "--nodes {bad}");
    }
}

#[test]
fn bad_hier_lab_flags_are_refused_in_one_line() {
    let bad = [
        (
            "--nodes 0",
            "invalid value '0' for '--nodes <N|shared>': `shared` or a number of nodes, 1 or more",
        ),
        (
            "--reps 0",
            "invalid value '0' for '--reps <R>': not a positive whole number",
        ),
        (
            "--inter-gbps 0",
            "invalid value '0' for '--inter-gbps <B>': not a number above 0",
        ),
        (
            "--inter-us x",
            "invalid value 'x' for '--inter-us <A>': not a number above 0",
        ),
        ("--nodes", "a value is required for '--nodes <N|shared>'"),
        ("--leaders 2", "unexpected argument '--leaders' found"),
        (
            "--cards gpu",
            "invalid value 'gpu' for '--cards <node|rank>': \"gpu\" is neither `node` (one card per node) nor `rank`",
        ),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&[]).unwrap();
    assert_eq!((ok.nodes, ok.reps), (Nodes::Emulated(2), 20));
    assert_eq!(
        (ok.inter_us, ok.inter_gbps, ok.inter().beta),
        (50.0, 0.125, 0.125e9)
    );
    assert_eq!(
        parse(&["--nodes".into(), "shared".into()]).unwrap().nodes,
        Nodes::Shared
    );
    assert_eq!(ok.cards, ch12::model::Cards::OnePerNode);
    let per_rank = parse(&["--cards".into(), "rank".into()]).unwrap().cards;
    assert_eq!(per_rank, ch12::model::Cards::OnePerRank);
}
