//! A lab that shows what the learner's code does must first know that the code exists:
//! [`unless_todo`] runs a call into the learner's code and, if it stops at a stub's
//! `todo!` (whose message starts with "ex N.M:"), hands back the exercise's name on every
//! rank instead of ending the job, so the lab can say which exercise to finish and exit
//! cleanly.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// What a stub's `todo!` panics with, before its own message ("ex 3.1: ...").
const TODO: &str = "not yet implemented: ";

/// Runs `f` on every rank of `world` (every rank must call this). `Ok` with its result,
/// or `Err("ex N.M: task")` on every rank when `f` reached an unfinished stub on any
/// rank. Any other panic ends the job as usual (the toolkit's panic hook). A stub stops
/// before it communicates, so every rank gets here, and the verdict is agreed with an
/// allreduce.
pub fn unless_todo<R>(world: &SimpleCommunicator, f: impl FnOnce() -> R) -> Result<R, String> {
    let usual: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> =
        Arc::from(std::panic::take_hook());
    let fallback = usual.clone();
    std::panic::set_hook(Box::new(move |info| {
        if message(info.payload()).is_none() {
            fallback(info);
        }
    }));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    let _ = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| usual(info)));
    let todo = match &outcome {
        Ok(_) => None,
        Err(payload) => message(payload.as_ref()),
    };
    let mut anywhere = 0i32;
    world.all_reduce_into(
        &i32::from(todo.is_some()),
        &mut anywhere,
        SystemOperation::max(),
    );
    match (outcome, todo) {
        (_, Some(task)) => Err(task),
        (Ok(r), None) if anywhere == 0 => Ok(r),
        _ => Err("an exercise on another rank".to_string()),
    }
}

/// The `ex N.M: task` of a `todo!` panic's payload; `None` for any other panic.
fn message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    let text = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))?;
    text.strip_prefix(TODO)
        .filter(|rest| rest.starts_with("ex "))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_exercise_todo_is_recognised() {
        let todo: Box<dyn std::any::Any + Send> =
            Box::new(format!("{TODO}ex 3.1: ring reduce-scatter in place"));
        assert_eq!(
            message(todo.as_ref()).as_deref(),
            Some("ex 3.1: ring reduce-scatter in place")
        );
        let other: Box<dyn std::any::Any + Send> = Box::new("index out of bounds");
        assert_eq!(message(other.as_ref()), None);
        let bare: Box<dyn std::any::Any + Send> = Box::new(format!("{TODO}later"));
        assert_eq!(message(bare.as_ref()), None);
    }
}
