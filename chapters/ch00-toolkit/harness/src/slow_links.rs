//! Slow links on one machine: `WORKBOOK_SLOW_LINK` makes the messages between two ranks
//! late and slow, with no change to the program, at the PMPI layer ([`crate::wrappers`]).
//!
//! A rule names a link and what to add to each message on it:
//!
//! | rule | every message ... |
//! |---|---|
//! | `2-3:delay=500us,rate=20MB/s` | between ranks 2 and 3, either way, waits 500 µs plus its bytes at 20 MB/s |
//! | `2>3:delay=2ms` | from rank 2 to rank 3 only, waits 2 ms |
//!
//! Rules are separated by `;` (or by `,` before the next `A-B:`), e.g.
//! `WORKBOOK_SLOW_LINK='2-3:delay=1ms,rate=50MB/s;5>6:rate=10MB/s'`. Ranks are ranks of
//! `MPI_COMM_WORLD` (a message on another communicator is mapped to them). Units: `delay`
//! in `ns`, `us`, `ms` or `s`; `rate` in `B/s`, `kB/s`, `MB/s`, `GB/s` (powers of 1000)
//! or `KiB/s`, `MiB/s`, `GiB/s`.
//!
//! The sender pays: before a send goes to the library it waits `delay + bytes / rate`.
//! Slowed: `MPI_Send`, `MPI_Ssend`, `MPI_Isend` (the call itself returns late),
//! `MPI_Sendrecv` and `MPI_Sendrecv_replace`. **Not slowed**: the collectives
//! (`MPI_Allreduce`, `MPI_Bcast`, `MPI_Barrier`...): the library's own messages go below
//! the PMPI layer, where no wrapper sees them. An algorithm meant to feel a slow link is
//! written with point-to-point messages (chapter 10 does that).
//!
//! The wait is a sleep, not a spin: labs run 8 ranks on 2 cores, and a spinning rank would
//! take a core from the very ranks it waits for. Linux ends a sleep late by tens of
//! microseconds, never early, so a wait is at least what the rule says; keep delays at
//! 100 µs or more to make that overshoot small. The same rule gives the same waits in
//! every run: nothing is random.
//!
//! A lab may give its own rule for when the setting is unset ([`default_rule`]) and change
//! the rules while it runs ([`set`]), the same on every rank.
//!
//! A rule that does not parse, or that names a rank the job does not have, stops every
//! rank at start-up (in [`crate::spmd::start_rank_with`], before any communication) with
//! one line naming the setting, the rule and the fix. Try:
//! `WORKBOOK_SLOW_LINK='0-1:delay=2ms' cargo test -q -p toolkit --test slow_links`.

use crate::rule_setting::RuleSetting;
use std::time::Duration;

/// The setting's name.
pub const SETTING: &str = "WORKBOOK_SLOW_LINK";
/// An example of a rule, for messages.
const EXAMPLE: &str = "2-3:delay=500us,rate=20MB/s";

/// One rule: messages from `from` to `to` (and back, when `both_ways`) wait `delay` plus
/// their bytes at `rate`.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowLink {
    /// One end (the sender, for a one-way rule `from>to`).
    pub from: i32,
    /// The other end.
    pub to: i32,
    /// True for `a-b` (both directions), false for `a>b`.
    pub both_ways: bool,
    /// Added to every message.
    pub delay: Duration,
    /// Bytes per second of the link's cap; `None` when the rule sets no rate.
    pub rate: Option<f64>,
}

impl SlowLink {
    /// True when a message from `src` to `dst` goes over this link.
    pub fn carries(&self, src: i32, dst: i32) -> bool {
        (src, dst) == (self.from, self.to) || (self.both_ways && (src, dst) == (self.to, self.from))
    }

    /// What this link adds to a message of `bytes` bytes.
    pub fn extra(&self, bytes: usize) -> Duration {
        let transfer = self.rate.map_or(0.0, |r| bytes as f64 / r);
        self.delay + Duration::from_secs_f64(transfer)
    }
}

/// Parses the setting's text into rules.
pub fn parse(text: &str) -> Result<Vec<SlowLink>, String> {
    // Group the pieces: one with a ':' starts a rule, the others add to the last one.
    let mut groups: Vec<Vec<&str>> = vec![];
    for piece in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match groups.last_mut() {
            Some(group) if !piece.contains(':') => group.push(piece),
            _ => groups.push(vec![piece]),
        }
    }
    groups.iter().map(|g| parse_rule(&g.join(","))).collect()
}

fn bad(rule: &str, why: &str) -> String {
    format!("{SETTING} rule {rule:?}: {why} (e.g. {SETTING}='{EXAMPLE}')")
}

fn parse_rule(rule: &str) -> Result<SlowLink, String> {
    let (link, params) = rule
        .split_once(':')
        .ok_or_else(|| bad(rule, "no A-B: or A>B: before the settings"))?;
    let (ends, both_ways) = match (link.split_once('-'), link.split_once('>')) {
        (Some(ends), None) => (ends, true),
        (None, Some(ends)) => (ends, false),
        _ => {
            return Err(bad(
                rule,
                "the link must be A-B (both ways) or A>B (one way)",
            ))
        }
    };
    let rank = |s: &str| {
        s.trim()
            .parse::<i32>()
            .map_err(|_| bad(rule, &format!("rank {s:?} is not a number")))
    };
    let (from, to) = (rank(ends.0)?, rank(ends.1)?);
    if from == to {
        return Err(bad(rule, "a link joins two different ranks"));
    }
    let mut out = SlowLink {
        from,
        to,
        both_ways,
        delay: Duration::ZERO,
        rate: None,
    };
    for param in params.split(',').map(str::trim) {
        match param.split_once('=') {
            Some(("delay", v)) => {
                out.delay = delay(v).ok_or_else(|| bad(rule, "delay needs a unit: 500us, 2ms"))?
            }
            Some(("rate", v)) => {
                out.rate = Some(rate(v).ok_or_else(|| {
                    bad(
                        rule,
                        "rate needs a positive number and a unit: 20MB/s, 1GiB/s",
                    )
                })?)
            }
            _ => {
                return Err(bad(
                    rule,
                    &format!("{param:?} is neither delay=TIME nor rate=BYTES/s"),
                ))
            }
        }
    }
    Ok(out)
}

/// `500us`, `2ms`, `1.5s`, `800ns` (also read by [`crate::stragglers`]).
pub(crate) fn delay(text: &str) -> Option<Duration> {
    let units = [("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)];
    let (number, scale) = units
        .iter()
        .find_map(|(u, s)| text.strip_suffix(u).map(|n| (n, *s)))?;
    let seconds = number.trim().parse::<f64>().ok()? * scale;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// `20MB/s`, `1GiB/s`, `500kB/s`, in bytes per second.
fn rate(text: &str) -> Option<f64> {
    let units = [
        ("KiB/s", 1024.0),
        ("MiB/s", 1024.0 * 1024.0),
        ("GiB/s", 1024.0 * 1024.0 * 1024.0),
        ("kB/s", 1e3),
        ("KB/s", 1e3),
        ("MB/s", 1e6),
        ("GB/s", 1e9),
        ("B/s", 1.0),
    ];
    let (number, scale) = units
        .iter()
        .find_map(|(u, s)| text.strip_suffix(u).map(|n| (n, *s)))?;
    let r = number.trim().parse::<f64>().ok()? * scale;
    (r.is_finite() && r > 0.0).then_some(r)
}

/// The first rule naming a rank the job does not have, as the line to print.
pub fn check_ranks(rules: &[SlowLink], world_size: i32) -> Result<(), String> {
    match rules
        .iter()
        .find(|r| r.from.max(r.to) >= world_size || r.from.min(r.to) < 0)
    {
        Some(r) => Err(format!(
            "{SETTING} rule {}{}{}: this job has ranks 0 to {} only: name two of them, or run \
             with more ranks (NP={})",
            r.from,
            if r.both_ways { '-' } else { '>' },
            r.to,
            world_size - 1,
            r.from.max(r.to) + 1
        )),
        None => Ok(()),
    }
}

static RULES: RuleSetting<SlowLink> = RuleSetting::new(SETTING);

/// Gives the rule to use when the setting is unset (a lab's own slow link), as a function
/// of the world's size. Call it before `toolkit::init`.
pub fn default_rule(rule: fn(i32) -> String) {
    RULES.default_rule(rule);
}

/// True when the rules came from the setting, false when from [`default_rule`] or none.
pub fn from_setting() -> bool {
    RULES.is_set()
}

/// Replaces the rules in force. Every rank must call it with the same rules, at a point
/// where none of its messages is in flight (e.g. after a barrier).
pub fn set(rules: Vec<SlowLink>) {
    RULES.set(rules);
}

/// The rules in force.
pub fn rules() -> Vec<SlowLink> {
    RULES.rules()
}

/// Reads the setting (or the lab's default) and checks it against the world's size:
/// called once MPI has started, before any communication. A bad rule ends the job.
pub(crate) fn check_at_start(world_size: i32) {
    RULES.check_at_start(world_size, parse, check_ranks);
}

/// Waits what the rules add to a message of `bytes` bytes from this rank to `dest` of
/// `comm`. Costs one load when no rule is set.
pub(crate) fn wait_before_send(dest: i32, bytes: i64, comm: mpi::ffi::MPI_Comm) {
    let Some(rules) = RULES.in_force().filter(|_| dest >= 0) else {
        return;
    };
    let (Some(me), Some(dest)) = (crate::job::world_rank(), world_rank_of(dest, comm)) else {
        return;
    };
    let wait: Duration = rules
        .iter()
        .filter(|r| r.carries(me, dest))
        .map(|r| r.extra(bytes.max(0) as usize))
        .sum();
    drop(rules);
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
}

/// The `MPI_COMM_WORLD` rank of rank `rank` of `comm` (local queries, no communication).
fn world_rank_of(rank: i32, comm: mpi::ffi::MPI_Comm) -> Option<i32> {
    use mpi::ffi;
    // SAFETY: `comm` is the caller's valid communicator; the groups are ours and freed.
    unsafe {
        let mut result = 0;
        ffi::PMPI_Comm_compare(comm, ffi::RSMPI_COMM_WORLD, &mut result);
        if result == ffi::MPI_IDENT as i32 || result == ffi::MPI_CONGRUENT as i32 {
            return Some(rank);
        }
        let (mut theirs, mut world) = (std::mem::zeroed(), std::mem::zeroed());
        ffi::PMPI_Comm_group(comm, &mut theirs);
        ffi::PMPI_Comm_group(ffi::RSMPI_COMM_WORLD, &mut world);
        let mut out = -1;
        ffi::PMPI_Group_translate_ranks(theirs, 1, &rank, world, &mut out);
        ffi::PMPI_Group_free(&mut theirs);
        ffi::PMPI_Group_free(&mut world);
        (out >= 0).then_some(out)
    }
}
