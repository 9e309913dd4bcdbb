//! The trainers' command line, with clap: the flags every trainer takes ([`Common`]),
//! flattened by each trainer into its own `#[derive(Parser)]` struct beside its own flags.
//!
//! A trainer's defaults differ (chapter 6 trains 15 epochs at batch 64, chapter 7 4000
//! steps at batch 128), so [`Common`] carries no defaults: each trainer names them once in
//! a [`Defaults`], and [`parse`] and [`help`] put them on the command. Errors are one line
//! that names the flag; `--help` is clap's, under the trainer's own name.

use clap::{Args, CommandFactory, FromArgMatches};
use std::path::PathBuf;

/// `--device`: where a rank computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The GPU of the local rank if LibTorch sees one, else the CPU.
    Auto,
    Cpu,
    Cuda,
}

/// Reads `auto`, `cpu` or `cuda` (the value parser of `--device`).
pub fn device_choice(s: &str) -> Result<DeviceChoice, String> {
    match s {
        "auto" => Ok(DeviceChoice::Auto),
        "cpu" => Ok(DeviceChoice::Cpu),
        "cuda" => Ok(DeviceChoice::Cuda),
        _ => Err(format!("unknown device `{s}` (expected auto, cpu or cuda)")),
    }
}

/// The flags every trainer takes. Their defaults are the trainer's ([`Defaults`]).
#[derive(Args, Clone, Debug, PartialEq)]
pub struct Common {
    /// Global batch, over all ranks
    #[arg(long, value_name = "GLOBAL")]
    pub batch: usize,
    /// Learning rate
    #[arg(long, value_name = "X")]
    pub lr: f64,
    /// Seed of the data order and of the initial parameters
    #[arg(long, value_name = "N")]
    pub seed: u64,
    /// auto: the GPU of the local rank if there is one
    #[arg(long, value_name = "auto|cpu|cuda", value_parser = device_choice)]
    pub device: DeviceChoice,
    /// LibTorch threads per rank [default: the cores this rank may use]
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Where checkpoints go (a file or a folder: the trainer says which)
    #[arg(long, value_name = "PATH")]
    pub checkpoint: Option<PathBuf>,
    /// Save a checkpoint every K steps
    #[arg(long, value_name = "K")]
    pub every: u64,
    /// Continue from --checkpoint
    #[arg(long)]
    pub resume: bool,
    /// No progress lines
    #[arg(long)]
    pub quiet: bool,
    /// End the job when one MPI call has waited S seconds, each waiting rank printing the
    /// call and its last collectives [default: no limit]
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub collective_timeout: Option<f64>,
}

/// Reads a number of seconds above 0 (the value parser of `--collective-timeout`).
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!(
            "`{s}` is not a number of seconds above 0 (e.g. 30)"
        )),
    }
}

impl Common {
    /// Each rank's share of `--batch` over `ranks`, or the one line that says why not.
    pub fn batch_per_rank(&self, ranks: usize) -> Result<usize, String> {
        match self.batch {
            b if b > 0 && b.is_multiple_of(ranks) => Ok(b / ranks),
            b => Err(format!(
                "global batch {b} does not split over {ranks} ranks: use a multiple of {ranks}"
            )),
        }
    }
}

/// One trainer's defaults for [`Common`] (written once, in the trainer's config module).
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
    pub device: &'static str,
    pub every: u64,
}

/// A trainer's command line: its name, its defaults for [`Common`] and its checks. A
/// trainer's config derives `clap::Parser` (flattening [`Common`]) and implements this;
/// [`parse_checked`], [`usage`] and [`defaults`] then do the rest.
pub trait Trainer: clap::Parser {
    /// The program's name (`train`, `pipeline`): what `--help` and every error says.
    const NAME: &'static str;
    /// The trainer's defaults for the common flags.
    const DEFAULTS: Defaults;
    /// The checks that need no communication, against `ranks` ranks (one-line errors).
    fn check(&self, ranks: usize) -> Result<(), String>;
    /// The common flags.
    fn common(&self) -> &Common;
}

/// Makes a trainer's config (a `clap::Parser` that flattens [`Common`]) a [`Trainer`],
/// and its `Default` the run of no flags:
///
/// ```ignore
/// trainer_kit::trainer!(Config, name: "train", check: check,
///     batch: 64, lr: 0.05, seed: 6, device: "auto", every: 50);
/// ```
///
/// `check` is the trainer's `fn(&Config, usize) -> Result<(), String>`. The common flags
/// are the field `common`, or the path given last (`common: gpt.common`).
#[macro_export]
macro_rules! trainer {
    ($config:ty, name: $name:literal, check: $check:path,
     batch: $batch:expr, lr: $lr:expr, seed: $seed:expr, device: $device:literal,
     every: $every:expr) => {
        $crate::trainer!($config, name: $name, check: $check, batch: $batch, lr: $lr,
            seed: $seed, device: $device, every: $every, common: common);
    };
    ($config:ty, name: $name:literal, check: $check:path,
     batch: $batch:expr, lr: $lr:expr, seed: $seed:expr, device: $device:literal,
     every: $every:expr, common: $($common:ident).+) => {
        impl $crate::cli::Trainer for $config {
            const NAME: &'static str = $name;
            const DEFAULTS: $crate::cli::Defaults = $crate::cli::Defaults {
                batch: $batch,
                lr: $lr,
                seed: $seed,
                device: $device,
                every: $every,
            };
            fn check(&self, ranks: usize) -> Result<(), String> {
                $check(self, ranks)
            }
            fn common(&self) -> &$crate::cli::Common {
                &self.$($common).+
            }
        }
        impl Default for $config {
            /// The run of no flags: every flag at its default.
            fn default() -> Self {
                $crate::cli::defaults()
            }
        }
    };
}

/// Parses `args` (after the program name) into `P` and checks it against `ranks`.
pub fn parse_checked<P: Trainer>(args: &[String], ranks: usize) -> Result<P, String> {
    let c: P = parse(P::NAME, args, &P::DEFAULTS)?;
    c.check(ranks)?;
    Ok(c)
}

/// `P --help`.
pub fn usage<P: Trainer>() -> String {
    help::<P>(P::NAME, &P::DEFAULTS)
}

/// The run of no flags (unchecked): every flag at its default.
pub fn defaults<P: Trainer>() -> P {
    parse(P::NAME, &[], &P::DEFAULTS).expect("the defaults parse")
}

/// A trainer's `main` starts here: its flags from the command line, checked against the
/// job's ranks before MPI starts. `--help` prints [`usage`] and exits 0; a bad flag prints
/// one line, `name: why`, and exits 2 (no rank has communicated yet). A
/// `--collective-timeout` is handed to [`crate::entry::run_and_exit`], which arms it.
pub fn from_command_line<P: Trainer>() -> P {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", usage::<P>());
        std::process::exit(0);
    }
    let parsed: P = parse_checked(&args, ranks_from_env()).unwrap_or_else(|why| {
        eprintln!("{}: {why}", P::NAME);
        std::process::exit(2);
    });
    crate::entry::collective_timeout(parsed.common().collective_timeout);
    parsed
}

/// The value parser of a flag with named values, e.g. `one_of("--sync", &[("bucketed",
/// Sync::Bucketed), ...])`: anything else is ``unknown --sync `x` (a|b)``.
pub fn one_of<T: Copy + Send + Sync + 'static>(
    flag: &'static str,
    choices: &'static [(&'static str, T)],
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let found = choices.iter().find(|(name, _)| *name == s);
        found.map(|&(_, v)| v).ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
            format!("unknown {flag} `{s}` ({})", names.join("|"))
        })
    }
}

/// The command of parser `P`, named `name`, with `defaults` on the common flags.
fn command<P: CommandFactory>(name: &'static str, defaults: &Defaults) -> clap::Command {
    let d = |v: String| move |a: clap::Arg| a.default_value(v.clone()).required(false);
    P::command()
        .name(name)
        .bin_name(name)
        .disable_version_flag(true)
        .mut_arg("batch", d(defaults.batch.to_string()))
        .mut_arg("lr", d(defaults.lr.to_string()))
        .mut_arg("seed", d(defaults.seed.to_string()))
        .mut_arg("device", d(defaults.device.to_string()))
        .mut_arg("every", d(defaults.every.to_string()))
}

/// Parses `args` (the flags after the program name) into `P`. The `Err` is one line to
/// print after `name: `; it names the flag (`invalid value 'x' for '--batch <GLOBAL>'`).
pub fn parse<P: CommandFactory + FromArgMatches>(
    name: &'static str,
    args: &[String],
    defaults: &Defaults,
) -> Result<P, String> {
    let all = std::iter::once(name.to_string()).chain(args.iter().cloned());
    command::<P>(name, defaults)
        .try_get_matches_from(all)
        .and_then(|m| P::from_arg_matches(&m))
        .map_err(|e| one_line(&e.to_string()))
}

/// `name --help`: the usage and every flag with its default.
pub fn help<P: CommandFactory>(name: &'static str, defaults: &Defaults) -> String {
    command::<P>(name, defaults).render_help().to_string()
}

/// A clap message as one line: its first paragraph, without its `error: ` (chapter 12's
/// clap-read labs use it too).
pub fn one_line(message: &str) -> String {
    let para: Vec<&str> = message
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    let line = para.join(" ");
    line.strip_prefix("error: ").unwrap_or(&line).to_string()
}

/// Ranks in this job, read from the launcher's environment before MPI starts (so that
/// the flags can be checked before any communication): Open MPI's
/// `OMPI_COMM_WORLD_SIZE`, MPICH's `PMI_SIZE`, else `NP` (what `toolkit::init` will
/// launch), else 4.
pub fn ranks_from_env() -> usize {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "NP"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.parse().ok())
        .unwrap_or(4)
}
