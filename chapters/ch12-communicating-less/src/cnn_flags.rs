//! Given: the `compress_cnn` lab's flags, read with clap before MPI starts. A bad flag (a
//! count that is not a positive whole number, a learning rate that is not above 0) is
//! refused in one line that names it, before any communication. Nothing to run here: the
//! lab and the tests use it.

use crate::lab_flags::{learning_rate, positive, read};
use clap::{CommandFactory, Parser};

/// The lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "compress_cnn",
    disable_version_flag = true,
    about = "Chapter 6's CNN on the digits, its gradients summed dense, through the leaders, \
             by top-k and by 8-bit codes, then local SGD: bytes and time per step, test \
             accuracy after the same steps"
)]
pub struct CnnFlags {
    /// Training steps per method
    #[arg(long, value_name = "N", default_value_t = 300, value_parser = positive::<u64>)]
    pub steps: u64,
    /// The global batch, divided among the ranks [default: 64, rounded down to a multiple
    /// of the ranks]
    #[arg(long, value_name = "B", value_parser = positive::<u64>)]
    pub batch: Option<u64>,
    /// Learning rate (SGD with momentum 0.9, chapter 6's)
    #[arg(
        long,
        value_name = "L",
        default_value_t = 0.05,
        allow_negative_numbers = true
    )]
    pub lr: f64,
    /// The seed of the model and of the data order (the same for every method)
    #[arg(long, value_name = "S", default_value_t = 6)]
    pub seed: u64,
}

/// The global batch when `--batch` is not given: rounded down to a multiple of the ranks.
pub const DEFAULT_BATCH: u64 = 64;

impl CnnFlags {
    /// The global batch at `ranks` ranks: `--batch`, else [`DEFAULT_BATCH`] rounded down
    /// to a multiple of `ranks` (63 at 3 ranks), so that every rank count runs.
    pub fn global_batch(&self, ranks: usize) -> u64 {
        let r = ranks.max(1) as u64;
        self.batch.unwrap_or((DEFAULT_BATCH / r).max(1) * r)
    }
}

/// The flags after the program's name, or the one line that says what is wrong.
pub fn parse(args: &[String]) -> Result<CnnFlags, String> {
    let flags: CnnFlags = read("compress_cnn", args)?;
    learning_rate(flags.lr)?;
    Ok(flags)
}

/// `compress_cnn --help`.
pub fn help() -> String {
    CnnFlags::command().render_help().to_string()
}
