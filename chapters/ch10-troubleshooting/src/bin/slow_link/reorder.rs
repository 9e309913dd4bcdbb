//! The slow_link lab's last part: chapter 3's ring in the order of ex 10.3, which leaves
//! the slow links out, on a communicator whose ranks are numbered in that order.

use crate::timed::{time_ms, Setup, Times};
use ch03::allreduce_ring;
use ch03::ops::Op;
use ch10::model::{ring_time, Links};
use ch10::order::ring_order;
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use toolkit::gate::unless_todo;

/// Times the ring in ex 10.3's order at `bytes` bytes per rank, next to the ring in rank
/// order (`plain`, measured before) and the model's prediction for each.
pub fn avoiding_ring(
    world: &SimpleCommunicator,
    s: &Setup,
    links: &Links,
    bytes: usize,
    plain: Times,
) {
    let say = |line: &str| {
        if world.rank() == 0 {
            println!("{line}")
        }
    };
    let slow: Vec<(usize, usize)> = links.slow.iter().map(|&(a, b, _)| (a, b)).collect();
    let order = match unless_todo(world, || ring_order(s.p, &slow)) {
        Ok(order) => order,
        Err(task) => toolkit::gate::stop_unfinished(world, "slow_link", &task),
    };
    let position = |r: usize| order.iter().position(|&x| x == r).unwrap_or(r);
    let me = position(world.rank() as usize);
    let ring = world
        .split_by_color_with_key(Color::with_value(0), me as i32)
        .expect("every rank is in colour 0");
    // The model's links, numbered by position in the new ring.
    let renumbered = Links {
        fast: links.fast,
        slow: links
            .slow
            .iter()
            .map(|&(a, b, l)| (position(a), position(b), l))
            .collect(),
    };
    let xs = vec![ring.rank() as f32; bytes / 4];
    let measured = time_ms(world, || drop(allreduce_ring(&ring, &xs, Op::Sum)));
    let predicted = ring_time(&renumbered, s.p, bytes) * 1e3;
    say(&format!(
        "\nthe ring in the order {order:?} (ex 10.3), {} KiB per rank:",
        bytes >> 10
    ));
    say(&format!(
        "  rank order  {:>7.1} ms (model {:.1})",
        plain.measured.0, plain.predicted.0
    ));
    say(&format!(
        "  new order   {measured:>7.1} ms (model {predicted:.1})"
    ));
}
