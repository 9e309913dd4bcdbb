//! What the checks of chapter 13 share with its planted mistakes: each check takes the
//! function under test as an argument, so that a planted mistake goes through the same
//! check and gets the same message.
#![allow(dead_code)] // each test file uses part of it

pub mod backward;
pub mod ulysses;
pub mod zigzag;

use ch13::blocks::block_of;
use ch13::partial::{attend_block, full_attention, Mask, Partial};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};

/// A merge to check: ex 13.1's, or a planted mistake.
pub type Merge = fn(&Partial, &Partial) -> Partial;

/// A ring attention to check: ex 13.2's, or a planted mistake.
pub type Ring = fn(&SimpleCommunicator, &Tensor, &Tensor, &Tensor, bool) -> Partial;

/// Queries, keys and values `[batch, heads, seq, head_dim]` (f64) from `seed`, the queries
/// times `scale` (a large scale makes scores past where `exp` overflows).
pub fn qkv(seed: i64, shape: [i64; 4], scale: f64) -> (Tensor, Tensor, Tensor) {
    tch::manual_seed(seed);
    let draw = || Tensor::randn(shape, (Kind::Double, Device::Cpu));
    (draw() * scale, draw(), draw())
}

/// The largest |a − b| (NaN counts as infinitely far).
pub fn far(a: &Tensor, b: &Tensor) -> f64 {
    let d = (a - b).abs().max().double_value(&[]);
    if d.is_nan() {
        f64::INFINITY
    } else {
        d
    }
}

/// How close ours must be to one process's attention.
pub const EXACT: f64 = 1e-12;

/// Ex 13.1's check: the keys cut at random into 2 to 4 parts, each part's attention
/// merged left to right and right to left, against the attention over all keys (out and
/// lse, within 1e-12), at ordinary scores and at scores past 709 (where exp overflows); then a part that saw no
/// key (lse −∞) merged with a real one.
pub fn check_merge(merge: Merge) -> Result<(), String> {
    for (seed, scale) in [(1, 1.0), (2, 1.0), (3, 600.0), (4, 600.0)] {
        let n = 24;
        let (q, _, _) = qkv(seed, [2, 2, 7, 8], scale);
        let (_, k, v) = qkv(seed + 10, [2, 2, n, 8], 1.0);
        let whole = attend_block(&q, &k, &v, Mask::Full);
        let cuts: Vec<i64> = match seed {
            1 => vec![0, 10, n],
            2 => vec![0, 3, 9, 20, n],
            3 => vec![0, 12, n],
            _ => vec![0, 1, 5, 17, n],
        };
        let parts: Vec<Partial> = cuts
            .windows(2)
            .map(|w| {
                let (k, v) = (
                    k.narrow(2, w[0], w[1] - w[0]),
                    v.narrow(2, w[0], w[1] - w[0]),
                );
                attend_block(&q, &k, &v, Mask::Full)
            })
            .collect();
        for (order, list) in [("left to right", true), ("right to left", false)] {
            let mut it: Box<dyn Iterator<Item = &Partial>> = if list {
                Box::new(parts.iter())
            } else {
                Box::new(parts.iter().rev())
            };
            let first = it.next().expect("parts");
            let mut acc = Partial {
                out: first.out.copy(),
                lse: first.lse.copy(),
            };
            for p in it {
                acc = merge(&acc, p);
            }
            let (dout, dlse) = (far(&acc.out, &whole.out), far(&acc.lse, &whole.lse));
            if dout > EXACT || dlse > EXACT {
                let max_lse = whole.lse.max().double_value(&[]);
                let why = if !dout.is_finite() || !dlse.is_finite() {
                    format!(
                        "infinities or NaNs: the scores reach lse {max_lse:.0} and exp overflows \
                         past about 709: subtract m = max(lse_a, lse_b) before exp, add it back \
                         after the log"
                    )
                } else if dlse <= EXACT {
                    "the lse is right but the output is not: weigh each part's output by \
                     exp(lse_part - lse) (unsqueeze(-1) to broadcast over head_dim)"
                        .to_string()
                } else {
                    "the merged lse is not ln(exp(lse_a) + exp(lse_b))".to_string()
                };
                return Err(format!(
                    "keys cut at {cuts:?}, merged {order}, scores x{scale}: out off by {dout:.1e}, \
                     lse by {dlse:.1e} (want 1e-12): {why}"
                ));
            }
        }
    }
    let (q, k, v) = qkv(5, [1, 2, 4, 8], 1.0);
    let real = attend_block(&q, &k, &v, Mask::Full);
    let none = Partial {
        out: real.out.zeros_like(),
        lse: real.lse.full_like(f64::NEG_INFINITY),
    };
    for (name, got) in [
        ("(none, real)", merge(&none, &real)),
        ("(real, none)", merge(&real, &none)),
    ] {
        if far(&got.out, &real.out) > EXACT || far(&got.lse, &real.lse) > EXACT {
            return Err(format!(
                "merge{name}: a part that saw no key (lse -inf, out 0) must leave the other as it \
                 is; got out off by {:.1e}, lse by {:.1e}",
                far(&got.out, &real.out),
                far(&got.lse, &real.lse)
            ));
        }
    }
    Ok(())
}

/// Ex 13.2's check: at every rank count of `world`, a sequence of 120 tokens (2 sequences,
/// 2 heads, head_dim 8, two seeds), causal and not: this rank's rows of the output and
/// their lse against one process's attention over the whole sequence (within 1e-12). The
/// ranks agree after each case: all fail with the first failing rank's message.
pub fn check_ring(world: &SimpleCommunicator, ring: Ring) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for seed in [21, 22] {
        let (q, k, v) = qkv(seed, [2, 2, 120, 8], 1.0);
        for causal in [true, false] {
            let mine = |x: &Tensor| block_of(x, r, p);
            let got = ring(world, &mine(&q), &mine(&k), &mine(&v), causal);
            let mask = if causal { Mask::Diagonal } else { Mask::Full };
            let whole = attend_block(&q, &k, &v, mask);
            let (want, want_lse) = (
                mine(&whole.out),
                whole.lse.narrow(2, (r * 120 / p) as i64, (120 / p) as i64),
            );
            let (dout, dlse) = (far(&got.out, &want), far(&got.lse, &want_lse));
            let mine = if dout > EXACT || dlse > EXACT {
                Err(format!(
                    "{} attention, {p} rank(s), seed {seed}: rank {r}'s rows off by {dout:.1e} \
                     (lse {dlse:.1e}; want 1e-12): {}",
                    if causal { "causal" } else { "full" },
                    ring_cause(&q, &k, &v, r, p, causal, &got)
                ))
            } else {
                Ok(())
            };
            // Every rank stops at the same case (the others would wait in the next ring).
            toolkit::lockstep::agree(world, mine)?;
        }
    }
    Ok(())
}

/// What a wrong ring result of rank `r` looks like: one process's attention over the key
/// blocks a classic slip attends to.
fn ring_cause(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    r: usize,
    p: usize,
    causal: bool,
    got: &Partial,
) -> String {
    let t = q.size()[2] / p as i64;
    let qr = block_of(q, r, p);
    let over = |blocks: i64, mask: Mask| {
        (blocks > 0).then(|| {
            attend_block(
                &qr,
                &k.narrow(2, 0, blocks * t),
                &v.narrow(2, 0, blocks * t),
                mask,
            )
            .out
        })
    };
    let is = |x: Option<Tensor>| x.is_some_and(|x| far(&got.out, &x) <= 1e-9);
    let all = full_attention(&qr, k, v, false);
    // Every block, its own one masked inside: the later blocks attended whole.
    let (seq, d) = (k.size()[2], *q.size().last().expect("head_dim") as f64);
    let i = Tensor::arange(t, (Kind::Int64, Device::Cpu)).unsqueeze(1) + r as i64 * t;
    let j = Tensor::arange(seq, (Kind::Int64, Device::Cpu)).unsqueeze(0);
    let inside = j.gt_tensor(&i).logical_and(&j.lt((r as i64 + 1) * t));
    let scores = qr.matmul(&k.transpose(-2, -1)) / d.sqrt();
    let later = scores
        .masked_fill(&inside, f64::NEG_INFINITY)
        .softmax(-1, Kind::Double)
        .matmul(v);
    if causal && is(over(r as i64 + 1, Mask::Full)) {
        return "its own block (src == r) was attended without the causal mask: use \
                Mask::Diagonal there"
            .into();
    }
    if causal && (far(&got.out, &all) <= 1e-9 || far(&got.out, &later) <= 1e-9) {
        return "it attended to the blocks of later ranks: with a causal mask skip the blocks \
                of later ranks (src > r), all of them in the future"
            .into();
    }
    if causal && is(over(r as i64, Mask::Full)) {
        return "its own block (src == r) was skipped: the diagonal block is attended with \
                Mask::Diagonal, only src > r is skipped"
            .into();
    }
    format!(
        "not the attention over any run of whole blocks: is the block held at step s the one \
         of rank (r - s) mod {p} (sent to r + 1, received from r - 1), and is every block merged \
         once (ex 13.1)?"
    )
}
