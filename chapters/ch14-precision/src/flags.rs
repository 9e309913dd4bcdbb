//! Given: the labs' flags, read with clap before MPI starts; a bad one (a value that is
//! not a number, a count that is not above 0, a flag the lab does not have) is refused in
//! one line that names it (chapter 12's `lab_flags::read`). Nothing to run here: the labs
//! and the tests use it.

/// Chapter 12's: the flags as `T` or clap's message in one line; a whole number above 0.
pub use ch12::lab_flags::{positive, read};
use clap::{CommandFactory, Parser};

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
    #[arg(long, value_name = "N", default_value_t = 1 << 20, value_parser = positive::<usize>)]
    pub n: usize,
    /// The values' common mean (each is mean + N(0, 1)): 0 for noise alone
    #[arg(long, value_name = "M", default_value_t = 1.0, allow_negative_numbers = true,
          value_parser = finite)]
    pub mean: f64,
    /// The seed of the values
    #[arg(long, value_name = "S", default_value_t = 14)]
    pub seed: u64,
}

/// A finite number (a clap value parser).
fn finite(s: &str) -> Result<f64, String> {
    s.parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| "not a finite number".to_string())
}

/// `--help` of a lab.
pub fn help<T: CommandFactory>() -> String {
    T::command().render_help().to_string()
}

/// The `scaling` lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "scaling",
    disable_version_flag = true,
    about = "Least squares with tiny gradients trained with f32 gradients, with f16 ones \
             unscaled, and with f16 ones under a dynamic loss scale"
)]
pub struct ScalingFlags {
    /// Training steps
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = positive::<usize>)]
    pub steps: usize,
    /// The dynamic scale's start, as a power of two (36: 2^36)
    #[arg(long, value_name = "E", default_value_t = 36, value_parser = clap::value_parser!(i32).range(0..=100))]
    pub start: i32,
    /// Clean steps after which the scale doubles
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = positive::<usize>)]
    pub growth: usize,
}

/// A lab's flags from its command line: `--help` printed (exit 0), a bad flag refused in
/// one line that names the lab (exit 2), before MPI starts.
pub fn from_args<T: Parser>(program: &str) -> T {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", help::<T>());
        std::process::exit(0);
    }
    read(program, &args).unwrap_or_else(|why| {
        eprintln!("{program}: {why}");
        std::process::exit(2);
    })
}

/// The `mixed` lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "mixed",
    disable_version_flag = true,
    about = "Chapter 6's model trained on the digits in f32, bf16 and f16 (f32 master \
             weights), the gradients summed in f32 or with bf16 on the wire"
)]
pub struct MixedFlags {
    /// The model: mlp or cnn (chapter 6's)
    #[arg(long, value_name = "MODEL", default_value = "cnn", value_parser = ch06::model::ModelKind::parse)]
    pub model: ch06::model::ModelKind,
    /// Only this compute format: f32, bf16 or f16 [default: each]
    #[arg(long, value_name = "F", value_parser = ["f32", "bf16", "f16"])]
    pub precision: Option<String>,
    /// Only this format for the gradients' sum: f32 or bf16 [default: each]
    #[arg(long = "reduce-dtype", value_name = "F", value_parser = ["f32", "bf16"])]
    pub reduce_dtype: Option<String>,
    /// Epochs (of 1,437 training images)
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = positive::<usize>)]
    pub epochs: usize,
    /// Samples per step over all ranks (divisible by the ranks)
    #[arg(long, value_name = "B", default_value_t = 48, value_parser = positive::<usize>)]
    pub batch: usize,
    /// SGD's learning rate (momentum 0.9)
    #[arg(long, value_name = "L", default_value_t = 0.05, value_parser = ch12::lab_flags::above_zero)]
    pub lr: f64,
    /// f16's loss scale at the start, as a power of two (16: 2^16, GradScaler's)
    #[arg(long, value_name = "E", default_value_t = 16, value_parser = clap::value_parser!(i32).range(0..=100))]
    pub scale: i32,
    /// Clean steps after which f16's scale doubles
    #[arg(long, value_name = "K", default_value_t = 100, value_parser = positive::<usize>)]
    pub growth: usize,
    /// Where each rank computes: cpu, cuda (its local GPU; refused in one line without
    /// one) or auto
    #[arg(long, value_name = "D", default_value = "cpu", value_parser = trainer_kit::cli::device_choice)]
    pub device: trainer_kit::cli::DeviceChoice,
    /// The seed of the weights and of the order of the samples
    #[arg(long, value_name = "S", default_value_t = 6)]
    pub seed: u64,
}

/// The `zero_mixed` lab's settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "zero_mixed",
    disable_version_flag = true,
    about = "Chapter 8's ZeRO stages in mixed precision (bf16 working weights and gradients, \
             f32 master weights, Adam): the bytes each rank holds against the ZeRO paper's \
             formulas, and what each stage learns"
)]
pub struct ZeroMixedFlags {
    /// The model: mlp or cnn (chapter 6's)
    #[arg(long, value_name = "MODEL", default_value = "cnn", value_parser = ch06::model::ModelKind::parse)]
    pub model: ch06::model::ModelKind,
    /// Only this stage: 0, 1, 2 or 3 [default: each]
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub stage: Option<u8>,
    /// Epochs (of 1,437 training images)
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = positive::<usize>)]
    pub epochs: usize,
    /// Samples per step over all ranks (divisible by the ranks)
    #[arg(long, value_name = "B", default_value_t = 48, value_parser = positive::<usize>)]
    pub batch: usize,
    /// Adam's learning rate
    #[arg(long, value_name = "L", default_value_t = 0.001, value_parser = ch12::lab_flags::above_zero)]
    pub lr: f64,
    /// The seed of the weights and of the order of the samples
    #[arg(long, value_name = "S", default_value_t = 6)]
    pub seed: u64,
}
