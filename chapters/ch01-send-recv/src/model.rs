//! The alpha-beta cost model of one message: `T(bytes) = alpha + bytes / beta`.
//!
//! `alpha` is the latency (seconds): what even an empty message costs (the software
//! path, the handshake, waking the receiver). `beta` is the bandwidth (bytes per second)
//! once data flows. Ex 1.4 fits both to measured times; the `pingpong` lab measures them.
//! Given code: the learner's fit returns an [`AlphaBeta`].

// ANCHOR: model
/// One measurement: a message of `bytes` bytes took `seconds` seconds one way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Message size in bytes.
    pub bytes: f64,
    /// One-way time in seconds (half a round trip).
    pub seconds: f64,
}

/// The two numbers of the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaBeta {
    /// Latency in seconds: the time of an empty message.
    pub alpha: f64,
    /// Bandwidth in bytes per second.
    pub beta: f64,
}

impl AlphaBeta {
    /// The time the model predicts for a message of `bytes` bytes.
    pub fn predict(&self, bytes: f64) -> f64 {
        self.alpha + bytes / self.beta
    }

    /// The size where the two terms are equal (`bytes / beta = alpha`), often written
    /// n_1/2: a message this large reaches half the peak bandwidth. Below it latency
    /// dominates, above it bandwidth does.
    pub fn n_half(&self) -> f64 {
        self.alpha * self.beta
    }
}
// ANCHOR_END: model

// ANCHOR: objective
/// What the fit minimises: the sum of squared *relative* errors,
/// `Σ ((alpha + bytes/beta - seconds) / seconds)²`. Relative, because the samples span
/// microseconds to milliseconds: in absolute terms the largest message would decide
/// everything and the latency would be lost in its noise.
pub fn relative_error(model: &AlphaBeta, samples: &[Sample]) -> f64 {
    let term = |s: &Sample| ((model.predict(s.bytes) - s.seconds) / s.seconds).powi(2);
    samples.iter().map(term).sum()
}
// ANCHOR_END: objective

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predict_and_n_half_agree() {
        let m = AlphaBeta {
            alpha: 1e-6,
            beta: 1e10,
        };
        assert_eq!(m.n_half(), 1e4);
        assert!((m.predict(m.n_half()) - 2.0 * m.alpha).abs() < 1e-18);
        let exact = [Sample {
            bytes: 1e4,
            seconds: 2e-6,
        }];
        assert!(relative_error(&m, &exact) < 1e-20);
    }
}
