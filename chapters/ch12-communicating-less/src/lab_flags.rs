//! Given: what the labs' flags share: read with clap into a value or into the one line
//! that says what is wrong (clap's message as one line is the trainers' own,
//! `trainer_kit::cli::one_line`), a positive whole number, a learning rate above 0, the
//! least-squares problem's flags ([`LsqFlags`], the same in `compress` and `local_sgd`),
//! and the `make check` to run for an unfinished exercise. Nothing to run here: the labs
//! and their flag modules use it.

use crate::lsq::Problem;
use clap::{Args, Parser};
use std::fmt::Display;
use std::str::FromStr;
use trainer_kit::cli::one_line;

/// The flags after the program's name as `T`, or clap's message as one line.
pub fn read<T: Parser>(program: &str, args: &[String]) -> Result<T, String> {
    let all = std::iter::once(program.to_string()).chain(args.iter().cloned());
    T::try_parse_from(all).map_err(|e| one_line(&e.to_string()))
}

/// A positive whole number (a clap value parser).
pub fn positive<N: FromStr + PartialOrd + Default>(s: &str) -> Result<N, String> {
    s.parse()
        .ok()
        .filter(|n| *n > N::default())
        .ok_or_else(|| "not a positive whole number".to_string())
}

/// A number above 0 (a clap value parser).
pub fn above_zero(s: &str) -> Result<f64, String> {
    s.parse()
        .ok()
        .filter(|x: &f64| *x > 0.0 && x.is_finite())
        .ok_or_else(|| "not a number above 0".to_string())
}

/// The least-squares problem a lab trains (`compress`, `local_sgd`): flattened into
/// their flags.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct LsqFlags {
    /// Features: the length of the parameters and of the gradient
    #[arg(long, value_name = "D", default_value_t = 256, value_parser = positive::<usize>)]
    pub dim: usize,
    /// Rows in the whole job, dealt to the ranks in blocks
    #[arg(long, value_name = "R", default_value_t = 2048, value_parser = positive::<usize>)]
    pub rows: usize,
    /// Learning rate
    #[arg(
        long,
        value_name = "L",
        default_value_t = 0.3,
        allow_negative_numbers = true
    )]
    pub lr: f32,
    /// The seed of the data
    #[arg(long, value_name = "S", default_value_t = 12)]
    pub seed: u64,
}

impl LsqFlags {
    /// `rank`'s rows of the problem at `ranks` ranks.
    pub fn problem(&self, rank: usize, ranks: usize) -> Problem {
        Problem::new(self.seed, self.rows, self.dim, rank, ranks)
    }
}

/// `Ok` for a learning rate above 0, else the line that refuses it.
pub fn learning_rate<F: Into<f64> + Display + Copy>(lr: F) -> Result<(), String> {
    match lr.into() > 0.0 {
        true => Ok(()),
        false => Err(format!("--lr {lr}: the learning rate must be above 0")),
    }
}
