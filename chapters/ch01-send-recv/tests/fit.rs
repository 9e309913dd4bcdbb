//! Checks of ex 1.4 (the alpha-beta fit). A pure function: plain proptest, no mpirun.
//!
//! 1. Exact data made from a known alpha and beta gives them back, each within a
//!    relative 1e-9 (the fit's rounding error is far smaller: a few hundred ε, ε = 2.2e-16).
//! 2. On noisy data the fit is the minimum of the relative squared error: moving alpha
//!    or 1/beta by a relative 1e-5 either way never lowers it (an unweighted fit fails).
//! 3. No line through one size, or through times that fall with size: `None`.
//!
//! Run: `make check CH=01` (your code) or `cargo test -p ch01-send-recv --features solution`.

use ch01::fit::fit_alpha_beta;
use ch01::model::{relative_error, AlphaBeta, Sample};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Relative error allowed on alpha and beta fitted to exact data.
const BOUND: f64 = 1e-9;

/// 2 to 14 distinct message sizes between 0 and 4 MiB, in any order.
fn sizes() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::btree_set(0u64..=(4 << 20), 2..14)
        .prop_map(|s| s.into_iter().map(|b| b as f64).collect())
        .prop_shuffle()
}

/// A model like a real network's: 0.1 to 100 us latency, 0.1 to 100 GB/s.
fn model() -> impl Strategy<Value = AlphaBeta> {
    (1e-7f64..1e-4, 1e8f64..1e11).prop_map(|(alpha, beta)| AlphaBeta { alpha, beta })
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    })
}

fn relative(got: f64, want: f64) -> f64 {
    ((got - want) / want).abs()
}

// ANCHOR: ex1_4
#[test]
fn ex1_4_fit_recovers_a_known_model() {
    let run = runner().run(&(model(), sizes()), |(truth, sizes)| {
        let samples: Vec<Sample> = sizes
            .iter()
            .map(|&bytes| Sample {
                bytes,
                seconds: truth.predict(bytes),
            })
            .collect();
        let fit = fit_alpha_beta(&samples)
            .ok_or_else(|| TestCaseError::fail("returned None for 2 or more distinct sizes"))?;
        for (name, got, want) in [
            ("alpha", fit.alpha, truth.alpha),
            ("beta", fit.beta, truth.beta),
        ] {
            if relative(got, want).is_nan() || relative(got, want) > BOUND {
                return Err(TestCaseError::fail(format!(
                    "{name} is {got:e} but the data were made with {want:e}: relative error {:e} \
                     > {BOUND:e}",
                    relative(got, want)
                )));
            }
        }
        Ok(())
    });
    run.unwrap();
}
// ANCHOR_END: ex1_4

#[test]
fn ex1_4_fit_minimises_the_relative_error() {
    let noise = prop::collection::vec(0.8f64..1.25, 14);
    let run = runner().run(&(model(), sizes(), noise), |(truth, sizes, noise)| {
        let samples: Vec<Sample> = sizes
            .iter()
            .zip(&noise)
            .map(|(&bytes, k)| Sample {
                bytes,
                seconds: truth.predict(bytes) * k,
            })
            .collect();
        let Some(fit) = fit_alpha_beta(&samples) else {
            return Ok(()); // noise may make the slope negative; `None` is then right
        };
        let best = relative_error(&fit, &samples);
        let (a, b) = (fit.alpha, 1.0 / fit.beta);
        let step = 1e-5;
        for (da, db) in [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)] {
            let moved = AlphaBeta {
                alpha: a + da * a.abs(),
                beta: 1.0 / (b + db * b),
            };
            let there = relative_error(&moved, &samples);
            if there < best * (1.0 - 1e-12) {
                return Err(TestCaseError::fail(format!(
                    "not the least-squares fit: moving to alpha = {:e}, beta = {:e} lowers \
                     Σ((predicted - t)/t)² from {best:e} to {there:e}. Weight each sample by 1/t²",
                    moved.alpha, moved.beta
                )));
            }
        }
        Ok(())
    });
    run.unwrap();
}

#[test]
fn ex1_4_fit_refuses_an_undefined_line() {
    let one_size = [
        Sample {
            bytes: 64.0,
            seconds: 1e-6,
        },
        Sample {
            bytes: 64.0,
            seconds: 2e-6,
        },
    ];
    assert_eq!(
        fit_alpha_beta(&one_size),
        None,
        "two samples of one size define no line"
    );
    assert_eq!(
        fit_alpha_beta(&one_size[..1]),
        None,
        "one sample defines no line"
    );
    let falling = [
        Sample {
            bytes: 0.0,
            seconds: 2e-6,
        },
        Sample {
            bytes: 1e6,
            seconds: 1e-6,
        },
    ];
    assert_eq!(
        fit_alpha_beta(&falling),
        None,
        "a negative slope is no bandwidth"
    );
}
