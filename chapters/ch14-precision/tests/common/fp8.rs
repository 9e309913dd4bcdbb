//! Ex 14.5's check, shared with its planted mistakes: every rank's shard of a few tensors
//! allgathered in FP8, against one process that holds the whole tensor and casts it with
//! LibTorch (`Float8e4m3fn`), bit for bit; a wrong answer is named by what it looks like.

use super::libtorch_codes;
use ch14::format::E4M3;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tch::{Kind, Tensor};
use toolkit::lockstep::agree;

/// An allgather in FP8 to check: ex 14.5's `gather_fp8`, or a planted mistake.
pub type Gather = fn(&SimpleCommunicator, &[f32], &mut [f32]) -> f32;

/// Values per rank in every tensor of the check (odd, so no layout is a round number).
const PER_RANK: usize = 37;

/// The check's tensors at `p` ranks (each rank makes all of them): a name and the values.
fn tensors(p: usize) -> Vec<(&'static str, Vec<f32>)> {
    let normal = |seed: i64, std: f64| {
        tch::manual_seed(seed);
        let t = Tensor::randn([(p * PER_RANK) as i64], (Kind::Float, tch::Device::Cpu)) * std;
        Vec::<f32>::try_from(&t).expect("f32 values")
    };
    let mut outlier = normal(52, 0.05);
    let last = outlier.len() - 1;
    outlier[last] = 300.0; // on the last rank's shard
    vec![
        ("weights ~ N(0, 0.05^2)", normal(51, 0.05)),
        ("weights and one value of 300 on the last rank", outlier),
        (
            "values ~ N(0, 1000^2), beyond E4M3's 448",
            normal(53, 1000.0),
        ),
        (
            "values ~ N(0, (1e-6)^2), below E4M3's smallest 2^-9",
            normal(54, 1e-6),
        ),
        ("zeros", vec![0.0; p * PER_RANK]),
    ]
}

/// The largest magnitude of `xs`.
fn amax(xs: &[f32]) -> f32 {
    xs.iter().fold(0f32, |m, x| m.max(x.abs()))
}

/// LibTorch's E4M3 codes of `x / s` for each x of `all`, decoded, times `back`: one
/// process's answer when `back` is `s`.
fn decoded(all: &[f32], s: f32, back: f32) -> Vec<f32> {
    let scaled: Vec<f32> = all.iter().map(|x| x / s).collect();
    let codes = libtorch_codes(&E4M3, &scaled);
    codes.iter().map(|&c| E4M3.decode(c) * back).collect()
}

/// What a scale per shard does, in words.
const LOCAL: &str = "the ranks then encode and decode with different scales. Reduce the \
                     largest magnitude over the ranks with SystemOperation::max() first, so \
                     that the tensor has one scale";

/// The scale of a tensor whose largest magnitude is `a`.
fn scale_of(a: f32) -> f32 {
    if a > 0.0 {
        a / E4M3.max()
    } else {
        1.0
    }
}

/// Same values, bit for bit (a NaN equals a NaN).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Ex 14.5's check at `world`'s size: each tensor's shards gathered by `gather`; the scale
/// and every value of the whole tensor against one process's, on every rank. The ranks
/// agree after each tensor: all fail with the first failing rank's message.
pub fn check_gather(world: &SimpleCommunicator, gather: Gather) -> Result<(), String> {
    let (r, p) = (world.rank() as usize, world.size() as usize);
    for (name, all) in tensors(p) {
        let shard = &all[r * PER_RANK..(r + 1) * PER_RANK];
        let mut whole = vec![f32::NAN; all.len()];
        let got = gather(world, shard, &mut whole);
        let want = scale_of(amax(&all));
        let head = format!("{name}, {p} rank(s): rank {r}");
        let mine = if !same(got, want) {
            Err(format!(
                "{head} returned the scale {got:e}, want {want:e}: {}",
                scale_cause(got, &all, shard)
            ))
        } else {
            let expect = decoded(&all, want, want);
            match (0..all.len()).find(|&i| !same(whole[i], expect[i])) {
                None => Ok(()),
                Some(i) => Err(format!(
                    "{head}: value {i} of the whole tensor is {:e}, want {:e} (x = {:e}: the E4M3 code of x / s, decoded, times s = {want:e}){}",
                    whole[i],
                    expect[i],
                    all[i],
                    value_cause(&whole, &all, want, p)
                )),
            }
        };
        agree(world, mine)?;
    }
    Ok(())
}

/// What a wrong scale looks like.
fn scale_cause(got: f32, all: &[f32], shard: &[f32]) -> String {
    let a = amax(all);
    if same(got, scale_of(amax(shard))) {
        format!("it is this rank's own shard's largest magnitude / 448: {LOCAL}")
    } else if same(got, a) {
        "it is the largest magnitude itself: x / s then lies in [-1, 1], and E4M3's range \
         above 1 goes unused (fewer codes, values near zero flushed). Divide by E4M3.max() \
         (448) so that the largest value lands on E4M3's largest"
            .into()
    } else if got == 1.0 {
        "no scale: values above 448 turn to NaN and values below 2^-9 to zero. Scale by \
         s = amax / E4M3.max()"
            .into()
    } else {
        "s = (the largest abs() over every rank's shard, one MPI MAX) / E4M3.max(), or 1 \
         when that is 0"
            .into()
    }
}

/// What wrong values with the right scale `s` look like, at `p` ranks.
fn value_cause(whole: &[f32], all: &[f32], s: f32, p: usize) -> String {
    let unscaled = decoded(all, s, 1.0);
    // Each rank's codes made with the scale of its own shard, decoded with this rank's s.
    let local: Vec<f32> = all
        .chunks(PER_RANK)
        .flat_map(|shard| decoded(shard, scale_of(amax(shard)), s))
        .collect();
    if p > 1 && whole.iter().zip(&local).all(|(a, b)| same(*a, *b)) {
        return format!(": each rank's codes were made with its own shard's scale: {LOCAL}");
    }
    if whole.iter().zip(&unscaled).all(|(a, b)| same(*a, *b)) {
        return ": the whole tensor holds the codes' values, x / s: multiply each decoded \
                code back by s"
            .into();
    }
    ": decode each gathered byte with E4M3.decode(code as u16) and multiply by s; rank r's \
     codes go to elements r*S..(r+1)*S"
        .into()
}
