//! Given: what the clap-read labs (`local_sgd`, `compress_cnn`, `compress_gpt`) share:
//! their flags read into a value or into the one line that says what is wrong, a positive
//! whole number, a learning rate above 0, and the `make check` to run for an unfinished
//! exercise; clap's message as one line is the trainers' own
//! (`trainer_kit::cli::one_line`). Nothing to run here: the labs and their flag modules
//! use it.

use clap::Parser;
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

/// `Ok` for a learning rate above 0, else the line that refuses it.
pub fn learning_rate<F: Into<f64> + Display + Copy>(lr: F) -> Result<(), String> {
    match lr.into() > 0.0 {
        true => Ok(()),
        false => Err(format!("--lr {lr}: the learning rate must be above 0")),
    }
}

/// `make check CH=NN` for an unfinished exercise `ex N.M: ...` (chapter 12's by default).
pub fn check_command(task: &str) -> String {
    let chapter = task
        .strip_prefix("ex ")
        .and_then(|t| t.split('.').next())
        .and_then(|n| n.parse::<u32>().ok())
        .map_or("12".to_string(), |n| format!("{n:02}"));
    format!("make check CH={chapter}")
}
