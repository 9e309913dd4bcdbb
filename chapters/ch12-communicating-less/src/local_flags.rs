//! Given: the `local_sgd` lab's flags, read with clap before MPI starts. A bad flag
//! (`--every 0`, a count that is not a positive whole number, steps that a period does
//! not divide) is refused in one line that names it, before any communication. Nothing
//! to run here: the lab and the tests use it.

use crate::averaging::Averaging;
use crate::lab_flags::{learning_rate, positive, read, LsqFlags};
use clap::{CommandFactory, Parser};

/// The lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "local_sgd",
    disable_version_flag = true,
    about = "Local SGD on least squares: the time to a target loss against H, without and with a straggler"
)]
pub struct LocalFlags {
    /// Steps per run (every period H must divide it)
    #[arg(long, value_name = "N", default_value_t = 480, value_parser = positive::<usize>)]
    pub steps: usize,
    /// The periods H to compare: average the parameters every H local steps
    #[arg(long, value_name = "H,...", value_delimiter = ',', default_values_t = [1, 2, 4, 8],
          value_parser = period)]
    pub every: Vec<usize>,
    /// The problem: features, rows, learning rate, seed
    #[command(flatten)]
    pub problem: LsqFlags,
    /// The target loss: the time to reach it is measured
    #[arg(long, value_name = "LOSS", default_value_t = 2e-3)]
    pub target: f64,
}

/// A period H: 1 or more (`Averaging::new`'s refusal for 0).
fn period(s: &str) -> Result<usize, String> {
    let h = s.parse().map_err(|_| "not a whole number".to_string())?;
    Averaging::new(h).map(|a| a.every)
}

/// The flags after the program's name, or the one line that says what is wrong.
pub fn parse(args: &[String]) -> Result<LocalFlags, String> {
    let flags: LocalFlags = read("local_sgd", args)?;
    if let Some(h) = flags
        .every
        .iter()
        .find(|&&h| !flags.steps.is_multiple_of(h))
    {
        return Err(format!(
            "--steps {} is not a multiple of H = {h}: the last steps would not be averaged",
            flags.steps
        ));
    }
    learning_rate(flags.problem.lr)?;
    Ok(flags)
}

/// `local_sgd --help`.
pub fn help() -> String {
    LocalFlags::command().render_help().to_string()
}
