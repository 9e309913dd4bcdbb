//! Given: the labs' flags, read with clap before MPI starts; a bad one (a value that is
//! not a number, a count that is not above 0, a flag the lab does not have) is refused in
//! one line that names it (`trainer_kit::cli::one_line`). Nothing to run here: the labs
//! and the tests use it.

use clap::{CommandFactory, Parser};
use trainer_kit::cli::one_line;

/// The `formats` lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "formats",
    disable_version_flag = true,
    about = "bf16, f16, FP8 E5M2 and E4M3: their ranges, and values rounded to each"
)]
pub struct FormatsFlags {
    /// More values to round to every format (as many as you like)
    #[arg(value_name = "VALUE", allow_negative_numbers = true)]
    pub values: Vec<f32>,
}

/// The `lowsum` lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "lowsum",
    disable_version_flag = true,
    about = "The sum of bf16 gradients over 1 to P ranks: in f32, by the bf16 ring, and \
             with bf16 on the wire rounded once, against the exact sum"
)]
pub struct LowsumFlags {
    /// Values per rank
    #[arg(long, value_name = "N", default_value_t = 1 << 20, value_parser = positive)]
    pub n: usize,
    /// The values' common mean (each is mean + N(0, 1)): 0 for noise alone
    #[arg(long, value_name = "M", default_value_t = 1.0, allow_negative_numbers = true,
          value_parser = finite)]
    pub mean: f64,
    /// The seed of the values
    #[arg(long, value_name = "S", default_value_t = 14)]
    pub seed: u64,
}

/// A whole number above 0 (a clap value parser).
fn positive(s: &str) -> Result<usize, String> {
    s.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "not a whole number above 0".to_string())
}

/// A finite number (a clap value parser).
fn finite(s: &str) -> Result<f64, String> {
    s.parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| "not a finite number".to_string())
}

/// The flags after the program's name as `T`, or clap's message as one line.
pub fn read<T: Parser>(program: &str, args: &[String]) -> Result<T, String> {
    let all = std::iter::once(program.to_string()).chain(args.iter().cloned());
    T::try_parse_from(all).map_err(|e| one_line(&e.to_string()))
}

/// `--help` of a lab.
pub fn help<T: CommandFactory>() -> String {
    T::command().render_help().to_string()
}
