//! Stragglers on one machine: `WORKBOOK_STRAGGLER` makes one rank late to every
//! collective it calls, with no change to the program, at the PMPI layer
//! ([`crate::wrappers`]): a rank whose compute is slower than the others'.
//!
//! | rule | what it does |
//! |---|---|
//! | `3:delay=2ms` | rank 3 waits 2 ms before each collective it calls |
//! | `3:delay=2ms;5:delay=500us` | two slow ranks, each with its own delay |
//!
//! Ranks are ranks of `MPI_COMM_WORLD`; `delay` in `ns`, `us`, `ms` or `s`. Slowed: the
//! blocking collectives of [`crate::wrappers`] (`MPI_Barrier`, `MPI_Bcast`,
//! `MPI_Allreduce`, `MPI_Gather`...) and `MPI_Iallreduce` ([`crate::arrivals`]), on any
//! communicator. Not slowed: point-to-point messages ([`crate::slow_links`] slows those),
//! the other non-blocking collectives, and so [`crate::idle::barrier`] (`MPI_Ibarrier`):
//! a test can line the ranks up before it times them.
//!
//! The wait is a sleep, as in [`crate::slow_links`]: a spinning rank would take a core
//! from the ranks it is late for. The same rule gives the same waits in every run.
//! [`crate::arrivals`] records when each rank entered each collective, after the wait:
//! the straggler arrives late by its delay.
//!
//! A lab may give its own rule for when the setting is unset ([`default_rule`]) and change
//! the rules while it runs ([`set`]). A rule that does not parse, or that names a rank the
//! job does not have, stops every rank at start-up, before any communication, with one
//! line naming the setting, the rule and the fix. Try:
//! `WORKBOOK_STRAGGLER='1:delay=3ms' cargo test -q -p toolkit --test stragglers`.

use crate::rule_setting::RuleSetting;
use std::time::Duration;

/// The setting's name.
pub const SETTING: &str = "WORKBOOK_STRAGGLER";
/// An example of a rule, for messages.
const EXAMPLE: &str = "3:delay=2ms";

/// One rule: rank `rank` of `MPI_COMM_WORLD` waits `delay` before each collective.
#[derive(Clone, Debug, PartialEq)]
pub struct Straggler {
    /// The slow rank.
    pub rank: i32,
    /// What it waits before each collective it calls.
    pub delay: Duration,
}

fn bad(rule: &str, why: &str) -> String {
    format!("{SETTING} rule {rule:?}: {why} (e.g. {SETTING}='{EXAMPLE}')")
}

/// Parses the setting's text into rules (separated by `;`).
pub fn parse(text: &str) -> Result<Vec<Straggler>, String> {
    let rules = text.split(';').map(str::trim).filter(|r| !r.is_empty());
    rules.map(parse_rule).collect()
}

fn parse_rule(rule: &str) -> Result<Straggler, String> {
    let (rank, params) = rule
        .split_once(':')
        .ok_or_else(|| bad(rule, "no RANK: before the delay"))?;
    let rank = rank
        .trim()
        .parse::<i32>()
        .ok()
        .filter(|r| *r >= 0)
        .ok_or_else(|| {
            bad(
                rule,
                &format!("rank {:?} is not a rank number", rank.trim()),
            )
        })?;
    let delay = match params.trim().split_once('=') {
        Some(("delay", v)) => crate::slow_links::delay(v.trim())
            .ok_or_else(|| bad(rule, "delay needs a number and a unit: 500us, 2ms"))?,
        _ => return Err(bad(rule, &format!("{:?} is not delay=TIME", params.trim()))),
    };
    Ok(Straggler { rank, delay })
}

/// The first rule naming a rank the job does not have, as the line to print.
pub fn check_ranks(rules: &[Straggler], world_size: i32) -> Result<(), String> {
    match rules.iter().find(|r| r.rank >= world_size) {
        Some(r) => Err(format!(
            "{SETTING} rule {}:delay={:?}: this job has ranks 0 to {} only: name one of them, \
             or run with more ranks (NP={})",
            r.rank,
            r.delay,
            world_size - 1,
            r.rank + 1
        )),
        None => Ok(()),
    }
}

static RULES: RuleSetting<Straggler> = RuleSetting::new(SETTING);

/// Gives the rule to use when the setting is unset (a lab's own straggler), as a function
/// of the world's size. Call it before `toolkit::init`.
pub fn default_rule(rule: fn(i32) -> String) {
    RULES.default_rule(rule);
}

/// True when the rules came from the setting, false when from [`default_rule`] or none.
pub fn from_setting() -> bool {
    RULES.is_set()
}

/// Replaces the rules in force. Every rank must call it with the same rules, between two
/// collectives (a rule changed while one rank is in a collective changes nothing there).
pub fn set(rules: Vec<Straggler>) {
    RULES.set(rules);
}

/// The rules in force.
pub fn rules() -> Vec<Straggler> {
    RULES.rules()
}

/// Reads the setting (or the lab's default) and checks it against the world's size:
/// called once MPI has started, before any communication. A bad rule ends the job.
pub(crate) fn check_at_start(world_size: i32) {
    RULES.check_at_start(world_size, parse, check_ranks);
}

/// Waits what the rules give this rank before a collective. Costs one load when no rule
/// is set.
pub(crate) fn wait_before_collective() {
    let (Some(rules), Some(me)) = (RULES.in_force(), crate::job::world_rank()) else {
        return;
    };
    let wait: Duration = rules.iter().filter(|r| r.rank == me).map(|r| r.delay).sum();
    drop(rules);
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
}
