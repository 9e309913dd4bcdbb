//! Given: the `moe` lab's flags, parsed and checked before MPI starts: a bad value is
//! refused in one line (exit 2) and nothing is launched.

use crate::config::MoeConfig;

/// The lab's usage text (`--help`).
pub const USAGE: &str = "\
usage: moe [--tokens N] [--experts E] [--k K] [--capacity-factor F] [--hidden H] [--steps S] [--seed N]
  --tokens N            tokens per rank (default 64)
  --experts E           experts in all, split over the ranks in blocks (default 8)
  --k K                 experts per token, 1 or 2 (default 2)
  --capacity-factor F   room per expert, 1.0 an even share (default 1.25)
  --hidden H            floats per token (default 16)
  --steps S             forwards, skew 0, 1, 2, ... (default 3)
  --seed N              the task's and the experts' seed (default 11)
";

/// The lab's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flags {
    /// Tokens per rank.
    pub tokens: usize,
    /// The router's settings (E, k, capacity factor), checked.
    pub cfg: MoeConfig,
    /// Floats per token.
    pub hidden: usize,
    /// Forwards to run.
    pub steps: usize,
    /// The seed of the task and the experts.
    pub seed: u64,
}

/// The flags, or the one line that says what is wrong with them.
pub fn parse(args: &[String]) -> Result<Flags, String> {
    let (mut tokens, mut experts, mut k, mut factor) = (64usize, 8usize, 2usize, 1.25f64);
    let (mut hidden, mut steps, mut seed) = (16usize, 3usize, 11u64);
    for f in pairs(args)? {
        match f.flag {
            "--tokens" => tokens = f.count()?,
            "--experts" => experts = f.count()?,
            "--k" => k = f.count()?,
            "--hidden" => hidden = f.count()?,
            "--steps" => steps = f.count()?,
            "--seed" => seed = f.seed()?,
            "--capacity-factor" => factor = f.number(f.value)?,
            _ => return Err(f.unknown()),
        }
    }
    if hidden == 0 {
        return Err("--hidden 0: a token needs at least one float".into());
    }
    let cfg = MoeConfig::new(experts, k, factor)?;
    Ok(Flags {
        tokens,
        cfg,
        hidden,
        steps,
        seed,
    })
}

/// One flag and its value, as the labs' command lines give them: `--k 2`.
pub struct FlagValue<'a> {
    pub flag: &'a str,
    pub value: &'a str,
}

/// The arguments as flag-value pairs, or the line that says a flag has no value.
pub fn pairs(args: &[String]) -> Result<Vec<FlagValue<'_>>, String> {
    let mut it = args.iter();
    let mut out = vec![];
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value (see --help)"))?;
        out.push(FlagValue { flag, value });
    }
    Ok(out)
}

impl FlagValue<'_> {
    /// `--k x: not a whole number (see --help)`.
    pub fn bad(&self, what: &str) -> String {
        format!("{} {}: {what} (see --help)", self.flag, self.value)
    }

    /// The value as a count.
    pub fn count(&self) -> Result<usize, String> {
        self.value
            .parse()
            .map_err(|_| self.bad("not a whole number"))
    }

    /// The value as a seed.
    pub fn seed(&self) -> Result<u64, String> {
        self.value
            .parse()
            .map_err(|_| self.bad("not a whole number"))
    }

    /// `part` (the value, or one of its comma-separated parts) as a number.
    pub fn number(&self, part: &str) -> Result<f64, String> {
        part.parse().map_err(|_| self.bad("not a number"))
    }

    /// `unknown flag --x (see --help)`.
    pub fn unknown(&self) -> String {
        format!("unknown flag {} (see --help)", self.flag)
    }
}
