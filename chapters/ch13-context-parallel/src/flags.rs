//! Given: the labs' flags, read with clap before MPI starts; a bad one, or a sequence the
//! ranks cannot split, is refused in one line that names it (chapter 12's
//! `lab_flags::read`). Nothing to run here: the labs and the tests use it.

/// Chapter 12's: the flags as `T` or clap's message in one line; a whole number above 0.
pub use ch12::lab_flags::{positive, read};
use clap::Parser;

/// The `ring_attention` and `zigzag` labs' settings.
#[derive(Parser, Clone, Debug, PartialEq)]
#[command(
    name = "ring_attention",
    disable_version_flag = true,
    about = "Attention over a sequence split across the ranks, by ring attention: the \
             blocks each rank attends to, its time, the largest difference from one process"
)]
pub struct RingFlags {
    /// Tokens in the sequence (the ranks must divide it; zigzag: twice the ranks)
    #[arg(long, value_name = "N", default_value_t = 1536, value_parser = positive::<usize>)]
    pub seq: usize,
    /// Attention heads
    #[arg(long, value_name = "H", default_value_t = 4, value_parser = positive::<usize>)]
    pub heads: usize,
    /// Features per head
    #[arg(long = "head-dim", value_name = "D", default_value_t = 32, value_parser = positive::<usize>)]
    pub head_dim: usize,
    /// The seed of the queries, keys and values
    #[arg(long, value_name = "S", default_value_t = 13)]
    pub seed: u64,
}

impl RingFlags {
    /// Refuses a sequence that `ranks` ranks cannot split into equal parts, `per_rank` of
    /// them a rank (1: blocks; 2: the zig-zag layout's chunks), naming a length that works.
    pub fn check(&self, ranks: usize, per_rank: usize) -> Result<(), String> {
        let parts = ranks * per_rank;
        if self.seq.is_multiple_of(parts) {
            return Ok(());
        }
        let fits = self.seq.div_ceil(parts) * parts;
        let what = match per_rank {
            1 => "equal blocks".to_string(),
            n => format!("{parts} equal chunks ({n} a rank)"),
        };
        Err(format!(
            "--seq {}: {ranks} ranks do not split it into {what}; --seq {fits} does",
            self.seq
        ))
    }
}

impl RingFlags {
    /// Refuses heads that `ranks` ranks cannot split evenly (Ulysses gives each rank
    /// `heads / ranks` of them), naming a count that works.
    pub fn check_heads(&self, ranks: usize) -> Result<(), String> {
        if self.heads.is_multiple_of(ranks) {
            return Ok(());
        }
        Err(format!(
            "--heads {}: {ranks} ranks do not split them evenly (Ulysses gives each rank heads / \
             ranks of them); --heads {} does",
            self.heads,
            self.heads.div_ceil(ranks) * ranks
        ))
    }
}

/// Lab `program`'s flags from its command line: `--help` printed (exit 0), a bad flag or a
/// sequence the ranks (`ranks`, `per_rank` parts each) cannot split refused in one line
/// (exit 2), before MPI starts.
pub fn from_args(program: &'static str, ranks: usize, per_rank: usize) -> RingFlags {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        use clap::CommandFactory;
        print!("{}", RingFlags::command().name(program).render_help());
        std::process::exit(0);
    }
    let flags = read::<RingFlags>(program, &args).and_then(|f| f.check(ranks, per_rank).map(|_| f));
    flags.unwrap_or_else(|why| {
        eprintln!("{program}: {why}");
        std::process::exit(2);
    })
}
