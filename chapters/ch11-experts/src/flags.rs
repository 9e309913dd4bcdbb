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
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value (see --help)"))?;
        let bad = |what: &str| format!("{flag} {value}: {what} (see --help)");
        let count = || {
            value
                .parse::<usize>()
                .map_err(|_| bad("not a whole number"))
        };
        match flag.as_str() {
            "--tokens" => tokens = count()?,
            "--experts" => experts = count()?,
            "--k" => k = count()?,
            "--hidden" => hidden = count()?,
            "--steps" => steps = count()?,
            "--seed" => seed = value.parse().map_err(|_| bad("not a whole number"))?,
            "--capacity-factor" => factor = value.parse().map_err(|_| bad("not a number"))?,
            _ => return Err(format!("unknown flag {flag} (see --help)")),
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
