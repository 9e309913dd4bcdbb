//! Checks of exercise 7.2 (activations and gradients between stages): at 2-4 ranks, a
//! tensor sent forward (s -> s+1) and one sent back (s+1 -> s) arrive with their values
//! and shapes intact, on every tag; a tensor of the wrong shape is refused on both sides.
//!
//! Run: `make check CH=07` or `cargo test -p ch07-pipeline --features solution --test main transfer::`.

use ch07::transfer::{recv_tensor, send_tensor};
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::lockstep::property;
use toolkit::mpi_test;

/// The values stage `s` sends for tag `tag`: distinct, recognisable.
fn values(s: usize, tag: i32, shape: &[i64], back: bool) -> Tensor {
    let n: i64 = shape.iter().product();
    let base = (s as f64) * 1000.0 + f64::from(tag) * 10.0 + if back { 0.5 } else { 0.0 };
    (Tensor::arange(n, (Kind::Double, Device::Cpu)) / 7.0 + base).view(shape)
}

mpi_test! {
    fn ex7_2_activations_and_gradients_arrive_intact(world at &[2, 3, 4]) {
        let (s, p) = (world.rank() as usize, world.size() as usize);
        property(world, "a tensor sent forward and one sent back arrive intact")
            .cases(12)
            .check((1i64..6, 1i64..9, 0i32..50), |&(rows, width, tag)| {
                let shape = [rows, width];
                let mut bufs = vec![Vec::<f64>::new(); 2];
                mpi::request::scope(|scope| {
                    let mut slots = bufs.iter_mut();
                    let mut pending = vec![];
                    if s + 1 < p {
                        let t = values(s, tag, &shape, false).tr().contiguous().tr(); // strided
                        let t = t.reshape(shape);
                        pending.push(send_tensor(world, s + 1, tag, &t, &shape, slots.next().unwrap(), scope)?);
                    }
                    if s > 0 {
                        pending.push(send_tensor(world, s - 1, tag, &values(s, tag, &shape, true), &shape, slots.next().unwrap(), scope)?);
                    }
                    let mut verdict = Ok(());
                    for (from, back) in [(s.wrapping_sub(1), false), (s + 1, true)] {
                        if from >= p {
                            continue;
                        }
                        let got = recv_tensor::<f64>(world, from, tag, &shape, Device::Cpu)?;
                        let want = values(from, tag, &shape, back);
                        let dir = if back { "gradient from" } else { "activation from" };
                        if got.size() != shape || got.kind() != Kind::Double {
                            verdict = Err(format!("{dir} rank {from}: shape {:?} kind {:?}, expected {shape:?} Double", got.size(), got.kind()));
                        } else if !got.equal(&want) {
                            let diff = (&got - &want).abs().max().double_value(&[]);
                            verdict = Err(format!("{dir} rank {from} (tag {tag}): values differ by up to {diff}"));
                        }
                    }
                    for r in pending {
                        r.wait();
                    }
                    verdict
                })
            })
    }
}

mpi_test! {
    fn ex7_2_a_wrong_shape_is_refused(world at &[2]) {
        let s = world.rank() as usize;
        // Sender side: a 2x3 tensor where 3x3 is expected is refused, and nothing is sent.
        let mut buf = Vec::<f64>::new();
        let refused = mpi::request::scope(|scope| {
            let t = Tensor::zeros([2, 3], (Kind::Double, Device::Cpu));
            match send_tensor(world, 1 - s, 9, &t, &[3, 3], &mut buf, scope) {
                Ok(r) => {
                    r.wait();
                    Err("send_tensor sent a 2x3 tensor declared 3x3".to_string())
                }
                Err(why) => Ok(why),
            }
        })?;
        if !(refused.contains("2x3") && refused.contains("3x3")) {
            return Err(format!("the sender's refusal should name both shapes: {refused}"));
        }
        // Receiver side: rank 0 sends 6 values, rank 1 expects a 3x3 tensor.
        if s == 0 {
            world.process_at_rank(1).send_with_tag(&[1.0f64; 6][..], 4);
            Ok(())
        } else {
            match recv_tensor::<f64>(world, 0, 4, &[3, 3], Device::Cpu) {
                Ok(t) => Err(format!("a message of 6 values was accepted as {:?}", t.size())),
                Err(why) if why.contains("3x3") && why.contains('6') => Ok(()),
                Err(why) => Err(format!("the refusal should name the 3x3 shape and the 6 values: {why}")),
            }
        }
    }
}
