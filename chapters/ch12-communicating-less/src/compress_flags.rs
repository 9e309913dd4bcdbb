//! Given: the `compress` lab's flags, read with clap before MPI starts. A bad flag (a
//! count that is not a positive whole number, a learning rate that is not above 0, a
//! flag the lab does not have) is refused in one line that names it, before any
//! communication. Nothing to run here: the lab and the tests use it.

use crate::lab_flags::{learning_rate, positive, read, LsqFlags};
use clap::{CommandFactory, Parser};

/// The lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "compress",
    disable_version_flag = true,
    about = "Least squares with the gradients summed dense and by top-k with and without \
             error feedback: bytes per step against the formula, the loss, the time per step"
)]
pub struct CompressFlags {
    /// Gradient steps per variant
    #[arg(long, value_name = "N", default_value_t = 600, value_parser = positive::<usize>)]
    pub steps: usize,
    /// The problem: features, rows, learning rate, seed
    #[command(flatten)]
    pub problem: LsqFlags,
}

/// The flags after the program's name, or the one line that says what is wrong.
pub fn parse(args: &[String]) -> Result<CompressFlags, String> {
    let flags: CompressFlags = read("compress", args)?;
    learning_rate(flags.problem.lr)?;
    Ok(flags)
}

/// `compress --help`.
pub fn help() -> String {
    CompressFlags::command().render_help().to_string()
}
