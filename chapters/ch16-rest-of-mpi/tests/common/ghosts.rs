//! The check every exchange of the chapter passes first: after one exchange, each ghost
//! holds exactly the neighbour's cell it should. Every owned cell is labelled with its
//! global position and every ghost starts as "nothing" (-1), so a wrong ghost says where
//! its value came from: nothing arrived, the other side's message landed there, or the
//! rank's own edge did.

use ch04::field::Field;
use ch04::halo::{Side, SIDES};
use ch04::problem::{Boundary, Problem};
use ch16::exchanges::{fill_once, Exchange, Parts};
use ch16::grid::Block;

/// "Nothing arrived": the value every ghost starts with.
const NOTHING: f64 = -1.0;

/// The label of global cell `(gi, gj)`: a distinct positive integer, exact in an f64.
fn label(p: &Problem, gi: usize, gj: usize) -> f64 {
    (gi * p.cols + gj + 1) as f64
}

/// The global cell a label names.
fn cell_of(p: &Problem, x: f64) -> (usize, usize) {
    let k = x as usize - 1;
    (k / p.cols, k % p.cols)
}

/// The global cell next to global `(gi, gj)` one step towards `side`: `None` past a
/// fixed edge.
fn beyond(p: &Problem, gi: usize, gj: usize, side: Side) -> Option<(usize, usize)> {
    let (di, dj): (isize, isize) = match side {
        Side::North => (-1, 0),
        Side::South => (1, 0),
        Side::West => (0, -1),
        Side::East => (0, 1),
    };
    let (i, j) = (gi as isize + di, gj as isize + dj);
    let (n, m) = (p.rows as isize, p.cols as isize);
    let inside = (0..n).contains(&i) && (0..m).contains(&j);
    match (inside, p.boundary) {
        (true, _) => Some((i as usize, j as usize)),
        (false, Boundary::Periodic) => Some((i.rem_euclid(n) as usize, j.rem_euclid(m) as usize)),
        (false, Boundary::Fixed) => None,
    }
}

/// Which function of the exercise decides what a ghost gets, and how; `unfilled`: the
/// ghost got a value no cell holds (a send buffer never packed).
fn where_to_look(exchange: Exchange, unfilled: bool) -> &'static str {
    match (exchange, unfilled) {
        (Exchange::Datatypes, _) => {
            "exchange_datatypes: in each shift the cells sent are my edge on the side sent \
             towards, the cells received my ghost layer on the opposite side"
        }
        (Exchange::Persistent, true) => {
            "exchange_persistent: the field's edges are packed into the send buffers \
             (pack_from) before the requests start"
        }
        (Exchange::Persistent, false) => {
            "plan_halo: each side's receive comes from the neighbour on that side, tagged \
             with the opposite side's tag (the side its message was sent towards)"
        }
        (Exchange::Neighbourhood, _) => {
            "exchange_neighbourhood: the blocks follow the neighbours' order (north, south, \
             west, east), and each block's displacement is where that edge starts in its \
             buffer"
        }
        (Exchange::Fence, _) => {
            "put_edges: each edge goes into the neighbour's inbox slot of the ghost side it \
             fills there, inbox.offset(side.opposite()); exchange_fence: after the epoch \
             closes, each ghost side's slot, inbox.offset(side), is read into halo.recv[side]"
        }
        (Exchange::Pscw, _) => {
            "put_edges: each edge goes into the neighbour's inbox slot of the ghost side it \
             fills there, inbox.offset(side.opposite()); exchange_pscw: after the epoch \
             closes, each ghost side's slot, inbox.offset(side), is read into halo.recv[side]"
        }
        (Exchange::Packed | Exchange::Immediate, _) => "the given exchange (not an exercise)",
    }
}

/// Side names as a reader says them.
fn name(side: Side) -> &'static str {
    match side {
        Side::North => "north",
        Side::South => "south",
        Side::West => "west",
        Side::East => "east",
    }
}

/// Fills the ghosts of a labelled copy of `block`'s field once with `exchange` and checks
/// every ghost cell (corners excepted: the 5-point stencil never reads them).
pub fn ghosts_after_one_exchange(
    block: &Block,
    p: &Problem,
    exchange: Exchange,
    parts: &Parts,
    rank: i32,
) -> Result<(), String> {
    let mut f = Field::zeros(block.rows.len(), block.cols.len());
    f.data.fill(NOTHING);
    for (r, gi) in block.rows.clone().enumerate() {
        for (c, gj) in block.cols.clone().enumerate() {
            let at = f.idx(r + 1, c + 1);
            f.data[at] = label(p, gi, gj);
        }
    }
    fill_once(block, exchange, parts, &mut f);
    let (rows, cols) = (f.rows, f.cols);
    let global = |r: usize, c: usize| (block.rows.start + r, block.cols.start + c);
    // Each ghost cell: (side, padded cell, the owned cell of this block next to it).
    let mut ghosts = vec![];
    for c in 0..cols {
        ghosts.push((Side::North, (0, c + 1), global(0, c)));
        ghosts.push((Side::South, (rows + 1, c + 1), global(rows - 1, c)));
    }
    for r in 0..rows {
        ghosts.push((Side::West, (r + 1, 0), global(r, 0)));
        ghosts.push((Side::East, (r + 1, cols + 1), global(r, cols - 1)));
    }
    // The owned cell next to the k-th ghost cell of `side`'s edge, if the edge is that long.
    let kth = |side: Side, k: usize| match side {
        Side::North => (k < cols).then(|| global(0, k)),
        Side::South => (k < cols).then(|| global(rows - 1, k)),
        Side::West => (k < rows).then(|| global(k, 0)),
        Side::East => (k < rows).then(|| global(k, cols - 1)),
    };
    let want = |side: Side, (gi, gj): (usize, usize)| {
        beyond(p, gi, gj, side).map_or(NOTHING, |(i, j)| label(p, i, j))
    };
    for (side, (i, j), next_to) in ghosts {
        let got = f.data[f.idx(i, j)];
        let should = want(side, next_to);
        if got.to_bits() == should.to_bits() {
            continue;
        }
        let k = match side {
            Side::North | Side::South => j - 1,
            Side::West | Side::East => i - 1,
        };
        let other = kth(side.opposite(), k).map_or(f64::NAN, |at| want(side.opposite(), at));
        let elsewhere = SIDES.into_iter().find(|&s| {
            s != side && s != side.opposite() && kth(s, k).is_some_and(|at| want(s, at) == got)
        });
        let labelled =
            |x: f64| x >= 1.0 && x.fract() == 0.0 && x <= label(p, p.rows - 1, p.cols - 1);
        let describe = |x: f64| match (x == NOTHING, labelled(x)) {
            (true, _) => "nothing".to_string(),
            (false, true) => format!("global cell {:?}", cell_of(p, x)),
            (false, false) => format!("{x:e} (a value no cell of the field holds)"),
        };
        let own = labelled(got) && {
            let (gi, gj) = cell_of(p, got);
            block.rows.contains(&gi) && block.cols.contains(&gj)
        };
        let why = if labelled(got) && got == other {
            format!(
                "that is what the {} ghost should hold: the {} and {} sides are swapped \
                 (the message from the neighbour on one side goes into the ghost layer on \
                 that same side)",
                name(side.opposite()),
                name(side),
                name(side.opposite())
            )
        } else if let Some(s) = elsewhere.filter(|_| labelled(got)) {
            format!(
                "that is what the {} ghost should hold at the same place along its edge: the \
                 received edges are read from the wrong places (does each block's \
                 displacement say where that edge starts?)",
                name(s)
            )
        } else if should == NOTHING {
            "a fixed edge has no neighbour: nothing may be received into its ghosts, which \
             keep the boundary's values"
                .to_string()
        } else if got == NOTHING {
            format!(
                "nothing was received into it: the receive from the {} neighbour is missing, \
                 or it carries another tag than the message sent towards this side, or it \
                 went into other cells",
                name(side)
            )
        } else if !labelled(got) && matches!(exchange, Exchange::Fence | Exchange::Pscw) {
            "no put landed in this ghost side's slot of the inbox (a window starts zeroed), or \
             the slot was never read"
                .to_string()
        } else if !labelled(got) {
            "the message carried a buffer that was never filled from the field (is the \
             field's edge packed into the send buffer before the messages start?)"
                .to_string()
        } else if own {
            "that is a cell of this rank's own block, not the neighbour's: the ghost got \
             this rank's own edge"
                .to_string()
        } else {
            "a cell that is not next to this ghost".to_string()
        };
        return Err(format!(
            "after one exchange, rank {rank}'s {} ghost at padded ({i}, {j}) holds {} but \
             should hold {}: {why}. Where to look: {}",
            name(side),
            describe(got),
            describe(should),
            where_to_look(exchange, !labelled(got) && got != NOTHING)
        ));
    }
    Ok(())
}
