//! What [`crate::slow_links`] and [`crate::stragglers`] share: a `WORKBOOK_*` setting that
//! holds rules, read once MPI has started and checked against the world's size before any
//! communication, a lab's own default rule, and the rules in force, which a lab may change
//! while it runs. Each module keeps its own rule type, parse and check; nothing to run
//! here (their tests: `cargo test -q -p toolkit --test slow_links --test stragglers`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, RwLock, RwLockReadGuard};

/// The rules of one setting, as a `static` of the module that owns them.
pub(crate) struct RuleSetting<T: 'static> {
    /// The setting's name, e.g. `WORKBOOK_SLOW_LINK`.
    name: &'static str,
    held: RwLock<Vec<T>>,
    /// True while some rule is in force: a call with none costs this one load.
    any: AtomicBool,
    /// A lab's own rule for when the setting is unset, from the world's size.
    default: OnceLock<fn(i32) -> String>,
}

impl<T: Clone> RuleSetting<T> {
    /// No rules yet, for the setting `name`.
    pub(crate) const fn new(name: &'static str) -> Self {
        RuleSetting {
            name,
            held: RwLock::new(Vec::new()),
            any: AtomicBool::new(false),
            default: OnceLock::new(),
        }
    }

    /// Gives the rule to use when the setting is unset; the first call wins.
    pub(crate) fn default_rule(&self, rule: fn(i32) -> String) {
        let _ = self.default.set(rule);
    }

    /// True when the rules came from the setting, false when from the default or none.
    pub(crate) fn is_set(&self) -> bool {
        std::env::var_os(self.name).is_some()
    }

    /// Replaces the rules in force.
    pub(crate) fn set(&self, rules: Vec<T>) {
        let mut held = self.held.write().unwrap_or_else(|e| e.into_inner());
        self.any.store(!rules.is_empty(), Ordering::SeqCst);
        *held = rules;
    }

    /// The rules in force.
    pub(crate) fn rules(&self) -> Vec<T> {
        self.read().clone()
    }

    /// The rules in force, for a look while they are held; `None` (one load) when there
    /// are none.
    pub(crate) fn in_force(&self) -> Option<RwLockReadGuard<'_, Vec<T>>> {
        self.any.load(Ordering::Relaxed).then(|| self.read())
    }

    fn read(&self) -> RwLockReadGuard<'_, Vec<T>> {
        self.held.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the setting (or the default), parses it and checks it against the world's
    /// size: called once MPI has started, before any communication. A bad rule ends the
    /// job: rank 0 says the line, every rank stops with exit status 2.
    pub(crate) fn check_at_start(
        &self,
        world_size: i32,
        parse: fn(&str) -> Result<Vec<T>, String>,
        check_ranks: fn(&[T], i32) -> Result<(), String>,
    ) {
        let text = match std::env::var(self.name) {
            Ok(text) => text,
            Err(_) => match self.default.get() {
                Some(rule) => rule(world_size),
                None => return,
            },
        };
        match parse(&text).and_then(|r| check_ranks(&r, world_size).map(|_| r)) {
            Ok(rules) => self.set(rules),
            Err(why) => {
                if crate::job::world_rank().unwrap_or(0) == 0 {
                    crate::job::say(&why);
                }
                crate::job::abort_job(2)
            }
        }
    }
}
