//! A lab that shows what the learner's code does must first know that the code exists:
//! [`unless_todo`] runs a call into the learner's code and, if it stops at a stub's
//! `todo!` (whose message starts with "ex N.M:"), hands back the exercise's name on every
//! rank instead of ending the job; [`stop_unfinished`] then ends the lab on every rank
//! with one line that names the exercise, its chapter and the command that checks it, and
//! the exit status [`UNFINISHED`] (a lab of chapter 12 that runs chapter 3's ring says
//! `make check CH=03`, not CH=12).

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

/// The exit status of a lab stopped by an unfinished exercise: not 0 (the lab did not run),
/// and none of the harness's failures (1 a failed check, 2 a refused setting, 3 an MPI
/// error, 101 a panic, 124 a deadline); the launcher says nothing more about it.
pub const UNFINISHED: i32 = 10;

/// The one line a lab prints for the unfinished exercise `task` (`ex N.M: ...`, or what
/// [`unless_todo`] says when another rank stopped).
pub fn unfinished_line(lab: &str, task: &str) -> String {
    let id = task.strip_prefix("ex ").and_then(|t| t.split(':').next());
    let chapter = id
        .and_then(|id| id.split('.').next())
        .filter(|c| c.parse::<u32>().is_ok());
    match chapter {
        Some(c) => format!(
            "{lab}: this lab runs your {task}, not done yet: finish it (chapter {c}; \
             `make check CH={c:0>2}` checks it), then run the lab again"
        ),
        None => {
            format!("{lab}: this lab runs {task}, not done yet (`make check` lists what is left)")
        }
    }
}

/// Ends the lab on every rank of `world` (every rank calls it, as after [`unless_todo`]):
/// rank 0 prints [`unfinished_line`], MPI is finalised, the process exits [`UNFINISHED`].
pub fn stop_unfinished(world: &SimpleCommunicator, lab: &str, task: &str) -> ! {
    use std::io::Write;
    if world.rank() == 0 {
        println!("{}", unfinished_line(lab, task));
    }
    let _ = std::io::stdout().flush();
    world.barrier();
    // SAFETY: every rank is here, on the thread that initialised MPI, with no request
    // pending; nothing calls MPI after this (the process exits without unwinding).
    unsafe { mpi::ffi::MPI_Finalize() };
    std::process::exit(UNFINISHED)
}

/// For a lab that starts no MPI of its own before it runs the exercise (a driver that
/// launches jobs): runs `probe`, a tiny call into the exercise, in this process; if it is
/// still a stub (`todo!()`), prints [`unfinished_line`] and exits [`UNFINISHED`].
pub fn stop_if_todo<R>(lab: &str, probe: impl FnOnce() -> R + std::panic::UnwindSafe) {
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(probe);
    drop(std::panic::take_hook());
    if let Err(payload) = result {
        let text = payload.downcast_ref::<String>().cloned();
        let text = text.or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()));
        let task = text
            .unwrap_or_default()
            .replace("not yet implemented: ", "");
        println!("{}", unfinished_line(lab, &task));
        std::process::exit(UNFINISHED);
    }
}

/// For a lab that can run without an earlier chapter's exercise (on MPI's own collectives,
/// say): runs `probe`, a tiny call into that exercise, on every rank (all call this).
/// True when it is done; else rank 0 prints one line naming the exercise, its chapter and
/// what the lab does `instead`, and the lab goes on that way.
pub fn done_or_instead(
    world: &SimpleCommunicator,
    lab: &str,
    instead: &str,
    probe: impl FnOnce(),
) -> bool {
    let Err(task) = unless_todo(world, probe) else {
        return true;
    };
    if world.rank() == 0 {
        let line = unfinished_line(lab, &task);
        let head = line.split(": finish it").next().unwrap_or(&line);
        let chapter = line
            .split("(chapter ")
            .nth(1)
            .and_then(|c| c.split(';').next());
        let check = chapter.map_or(String::new(), |c| format!(" (`make check CH={c:0>2}`)"));
        println!("{head}: {instead}; finish it{check} to run yours");
    }
    false
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

    #[test]
    fn the_line_names_the_exercises_own_chapter_and_command() {
        let line = unfinished_line("hier", "ex 3.1: ring reduce-scatter in place");
        assert_eq!(
            line,
            "hier: this lab runs your ex 3.1: ring reduce-scatter in place, not done yet: \
             finish it (chapter 3; `make check CH=03` checks it), then run the lab again"
        );
        assert!(unfinished_line("moe", "ex 11.2: rows").contains("`make check CH=11`"));
        let elsewhere = unfinished_line("moe", "an exercise on another rank");
        assert!(
            elsewhere.contains("`make check` lists what is left"),
            "{elsewhere}"
        );
    }
}
