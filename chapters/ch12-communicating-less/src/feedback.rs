//! Given: the state of a worker that compresses its gradient with error feedback (ex
//! 12.3): the residual it did not send yet, how many elements it keeps per step, and the
//! bytes it has put on the wire. A keep fraction outside (0, 100] percent is refused in
//! one line when the state is built, before any step communicates. Nothing to run here:
//! the tests and the `compress` lab use it.

/// One worker's error-feedback state for a gradient of `residual.len()` elements.
#[derive(Clone, Debug)]
pub struct Feedback {
    /// What this worker computed but has not sent yet; starts at zero.
    pub residual: Vec<f32>,
    /// How many elements a step sends: `percent` of the length, rounded up.
    pub keep: usize,
    /// The bytes this worker has contributed to the exchanges so far (count, indices and
    /// values), counted by the step as it sends them.
    pub bytes_sent: usize,
}

impl Feedback {
    /// The state for a gradient of `len` elements that keeps `percent` of them per step;
    /// a percentage outside (0, 100] refused in one line.
    pub fn new(len: usize, percent: f64) -> Result<Feedback, String> {
        if !(percent > 0.0 && percent <= 100.0) {
            return Err(format!(
                "top-k {percent}%: the share kept must be above 0 and at most 100 percent"
            ));
        }
        let keep = ((percent / 100.0 * len as f64).ceil() as usize).min(len);
        Ok(Feedback {
            residual: vec![0.0; len],
            keep,
            bytes_sent: 0,
        })
    }

    /// The bytes one step contributes by the formula: a count (`i32`, 4 bytes), then
    /// `keep` indices (`u32`, 4 bytes each) and `keep` values (`f32`, 4 bytes each).
    pub fn bytes_per_step(&self) -> usize {
        4 + self.keep * (4 + 4)
    }
}
