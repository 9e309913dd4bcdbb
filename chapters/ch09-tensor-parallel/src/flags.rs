//! Given: the flags of the lab and the benchmark, read and checked before MPI starts.

use crate::params::BlockConfig;
use tch::Kind;

/// The block the lab runs, and its element type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabConfig {
    pub block: BlockConfig,
    pub kind: Kind,
}

/// `--help`'s text.
pub const USAGE: &str =
    "tp_block: one transformer block forward and backward at t ranks (the job's size), \
checked against one process
flags: --batch B (default 4)  --seq S (16)  --hidden H (96)  --heads A (12)  --dtype f32|f64 (f32)
";

/// Reads `--batch`, `--seq`, `--hidden`, `--heads`, `--dtype` and checks that `ranks`
/// ranks can share the block; `Err` in one line.
pub fn parse(args: &[String], ranks: usize) -> Result<LabConfig, String> {
    let (mut batch, mut seq, mut hidden, mut heads) = (4, 16, 96, 12);
    let mut kind = Kind::Float;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || -> Result<usize, String> {
            match value.parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("{flag} {value}: a positive whole number")),
            }
        };
        match flag.as_str() {
            "--batch" => batch = number()?,
            "--seq" => seq = number()?,
            "--hidden" => hidden = number()?,
            "--heads" => heads = number()?,
            "--dtype" => {
                kind = match value.as_str() {
                    "f32" => Kind::Float,
                    "f64" => Kind::Double,
                    _ => return Err(format!("unknown --dtype `{value}` (f32|f64)")),
                }
            }
            _ => return Err(format!("unknown flag {flag} (--help lists them)")),
        }
    }
    let block = BlockConfig::new(batch, seq, hidden, heads)?;
    block
        .check(ranks)
        .map_err(|why| format!("{why} (at {ranks} ranks)"))?;
    Ok(LabConfig { block, kind })
}

/// [`parse`], where ex 9.1 (which it calls to check the layout) may still be a stub: its
/// `todo!` becomes `Err("ex 9.1: ...: not done yet ...")`, one line, instead of a panic.
pub fn parse_or_todo(args: &[String], ranks: usize) -> Result<LabConfig, String> {
    or_todo(|| parse(args, ranks))
}

/// `check()`, where an exercise it calls may still be a stub: the stub's panic (its
/// exercise number and task) becomes `Err("ex N.M: ...: not done yet ...")`, one line,
/// instead of a panic (before MPI starts; any other panic goes on).
pub fn or_todo<T>(check: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let usual = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // quiet while the check runs; said below
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
    std::panic::set_hook(usual);
    let payload = match got {
        Ok(checked) => return checked,
        Err(payload) => payload,
    };
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    match text.strip_prefix("not yet implemented: ") {
        Some(task) if task.starts_with("ex ") => Err(not_done(task)),
        _ => panic!("{text}"),
    }
}

/// The lab's line for an exercise it reached unfinished (`task`: `ex N.M: ...`).
pub fn not_done(task: &str) -> String {
    format!("{task}: not done yet (the lab runs your code; `make check CH=09` says what is left)")
}

/// The element type's name, as the flag spells it.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Double => "f64",
        _ => "f32",
    }
}
