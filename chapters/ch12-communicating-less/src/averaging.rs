//! Given: the state of a worker that trains by local SGD (ex 12.5): how many local steps
//! it takes between two averages of the parameters (`H`, here `every`), how many it has
//! taken since the last one, and what it has put on the wire. `H = 0` is refused in one
//! line when the state is built, before any step communicates. Nothing to run here: the
//! tests and the `local_sgd` lab use it.

/// One worker's local-SGD state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Averaging {
    /// `H`: the parameters are averaged over the ranks after every `every` local steps.
    pub every: usize,
    /// Local steps taken since the last average (0 right after one).
    pub since: usize,
    /// Averages taken so far.
    pub syncs: usize,
    /// The bytes this worker has contributed to the averages so far, counted by the step
    /// as it sends them.
    pub bytes_sent: usize,
}

impl Averaging {
    /// The state of a worker that averages every `every` steps; 0 refused in one line.
    pub fn new(every: usize) -> Result<Averaging, String> {
        if every == 0 {
            return Err(
                "local SGD with H = 0: the ranks average their parameters after every H local \
                 steps, so H must be 1 or more (H = 1 is plain data parallelism)"
                    .into(),
            );
        }
        Ok(Averaging {
            every,
            since: 0,
            syncs: 0,
            bytes_sent: 0,
        })
    }
}
