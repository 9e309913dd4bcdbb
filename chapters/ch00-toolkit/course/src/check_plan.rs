//! What the course's plan (`course.toml`) tells `make check` about a chapter: the order of
//! its exercises (the book's, which "Next:" follows) and, for each test not named after
//! one exercise, the exercises it waits for (`[chapter.waits_for]`): such a test fails
//! until they pass, so while one of them does not it is shown as waiting, not failing.

use crate::check::{Exercise, Status};
use crate::course::Chapter;
use std::collections::BTreeMap;

/// The exercises in the course's order (course.toml's, the book's); those the plan does
/// not list come after, in the order given.
pub fn in_course_order<'a>(list: &'a [Exercise], chapter: Option<&Chapter>) -> Vec<&'a Exercise> {
    let rank = |id: &str| {
        let listed = chapter.and_then(|c| c.exercises.iter().position(|e| e.id == id));
        listed.unwrap_or(usize::MAX)
    };
    let mut ordered: Vec<&Exercise> = list.iter().collect();
    ordered.sort_by_key(|e| rank(&e.id)); // stable: unlisted ones keep their order
    ordered
}

/// True for an exercise the plan marks optional (`core = false`).
pub fn is_optional(chapter: Option<&Chapter>, id: &str) -> bool {
    let listed = chapter.and_then(|c| c.exercises.iter().find(|e| e.id == id));
    listed.is_some_and(|e| !e.core)
}

/// Where to go on, core work first: the first failing core exercise in the course's order,
/// else the first core one not yet passed (not started, or without a test); then the same
/// among the optional ones.
pub fn next<'a>(list: &'a [Exercise], chapter: Option<&Chapter>) -> Option<&'a Exercise> {
    let ordered = in_course_order(list, chapter);
    for optional in [false, true] {
        let mine: Vec<&'a Exercise> = ordered
            .iter()
            .copied()
            .filter(|e| is_optional(chapter, &e.id) == optional)
            .collect();
        let failing = mine.iter().find(|e| matches!(e.status, Status::Failing(_)));
        let found = failing.or_else(|| mine.iter().find(|e| e.status != Status::Passed));
        if let Some(e) = found {
            return Some(*e);
        }
    }
    None
}

/// A failing test that is not named after one exercise, as `make check` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Other {
    /// It waits for these exercises (not passed yet): not a failure of its own.
    Waiting(Vec<String>),
    /// Its exercises pass (or it waits for none) and it fails: a real failure.
    Failing,
    /// A test of the chapter's `tests/` that `course.toml` does not declare: a defect of
    /// the chapter (declare it under `[chapter.waits_for]`).
    Undeclared,
}

/// Sorts the failing tests that are not named after one exercise: waiting for unfinished
/// exercises, failing, or undeclared. `failing` holds libtest's names: a test of the
/// chapter's `tests/` is `file::name` (a module of `tests/main.rs` per file, named in
/// `modules`) and declared by its `name`; a unit test of the given code
/// (`module::tests::name`) needs no declaration.
pub fn others(
    failing: &[String],
    chapter: Option<&Chapter>,
    list: &[Exercise],
    modules: &[String],
) -> BTreeMap<String, Other> {
    let passed = |id: &str| {
        list.iter()
            .any(|e| e.id == id && e.status == Status::Passed)
    };
    let mut out = BTreeMap::new();
    for test in failing {
        // `ring::name` of the module `ring` (tests/ring.rs) is declared as `name`.
        let in_tests = test
            .split_once("::")
            .filter(|(module, name)| !name.contains("::") && modules.iter().any(|m| m == module));
        let bare = in_tests.map_or(test.as_str(), |(_, name)| name);
        let declared = chapter.and_then(|c| c.waits_for.get(bare));
        let verdict = match declared {
            Some(ids) => {
                let open: Vec<String> = ids.iter().filter(|id| !passed(id)).cloned().collect();
                match open.is_empty() {
                    true => Other::Failing,
                    false => Other::Waiting(open),
                }
            }
            None if test.contains("::") && in_tests.is_none() => Other::Failing,
            None => Other::Undeclared,
        };
        out.insert(test.clone(), verdict);
    }
    out
}

/// `["7.2", "7.5"]` -> `ex 7.2, 7.5`.
pub fn exercise_list(ids: &[String]) -> String {
    format!("ex {}", ids.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Course;

    fn chapter() -> Chapter {
        let plan = r#"
            [workshop]
            start = "09:00"
            session = 90
            sessions_per_day = 4
            break = 15
            lunch_after = 2
            lunch = 60
            [[chapter]]
            id = "07"
            title = "Pipeline"
            reading = { "index.md" = 10 }
            labs = 15
            depends = []
            exercises = [
              { id = "7.1", title = "a", minutes = 1, core = true, file = "a.rs", functions = ["f"] },
              { id = "7.3", title = "b", minutes = 1, core = true, file = "a.rs", functions = ["f"] },
              { id = "7.4", title = "c", minutes = 1, core = true, file = "a.rs", functions = ["f"] },
              { id = "7.2", title = "d", minutes = 1, core = false, file = "a.rs", functions = ["f"] },
            ]

            [chapter.waits_for]
            resume_continues_bit_for_bit = ["7.2", "7.4"]
            bad_settings_fail = []
        "#;
        Course::parse(plan).unwrap().chapters.remove(0)
    }

    fn ex(id: &str, status: Status) -> Exercise {
        let (id, task, tests) = (id.to_string(), String::new(), vec![]);
        Exercise {
            id,
            task,
            tests,
            failed: vec![],
            status,
        }
    }

    /// The table's order: numeric, as `check::verdicts` gives it.
    fn list(statuses: [Status; 4]) -> Vec<Exercise> {
        let ids = ["7.1", "7.2", "7.3", "7.4"];
        ids.iter().zip(statuses).map(|(id, s)| ex(id, s)).collect()
    }

    #[test]
    fn next_follows_the_books_order_not_the_numbers() {
        use Status::*;
        let c = chapter();
        let l = list([Passed, NotStarted, NotStarted, NotStarted]);
        assert_eq!(next(&l, Some(&c)).unwrap().id, "7.3");
        let order: Vec<&str> = in_course_order(&l, Some(&c))
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(order, ["7.1", "7.3", "7.4", "7.2"]);
        // Without the plan: the order given.
        assert_eq!(next(&l, None).unwrap().id, "7.2");
    }

    #[test]
    fn a_failing_exercise_comes_before_those_not_started() {
        use Status::*;
        let c = chapter();
        let l = list([Passed, NotStarted, Passed, Failing("x".into())]);
        assert_eq!(next(&l, Some(&c)).unwrap().id, "7.4");
        let l = list([Failing("x".into()), NotStarted, Passed, Failing("y".into())]);
        assert_eq!(next(&l, Some(&c)).unwrap().id, "7.1");
        let l = list([Passed, Passed, Passed, Passed]);
        assert!(next(&l, Some(&c)).is_none());
    }

    #[test]
    fn core_work_comes_before_optional_work() {
        use Status::*;
        let c = chapter();
        // 7.2 (optional) fails, 7.3 (core) is not started: 7.3 first.
        let l = list([Passed, Failing("x".into()), NotStarted, Passed]);
        assert_eq!(next(&l, Some(&c)).unwrap().id, "7.3");
        assert!(is_optional(Some(&c), "7.2") && !is_optional(Some(&c), "7.3"));
        // Only optional work left: it is next.
        let l = list([Passed, Failing("x".into()), Passed, Passed]);
        assert_eq!(next(&l, Some(&c)).unwrap().id, "7.2");
    }

    #[test]
    fn a_test_waits_for_its_unfinished_exercises() {
        use Status::*;
        let c = chapter();
        let failing = [
            "trainer::resume_continues_bit_for_bit".to_string(),
            "bad_settings_fail".to_string(),
            "nobody_declared_me".to_string(),
            "plan::tests::given".to_string(),
        ];
        let l = list([Passed, NotStarted, Passed, Failing("x".into())]);
        let modules = ["trainer".to_string()];
        let o = others(&failing, Some(&c), &l, &modules);
        let waiting = Other::Waiting(vec!["7.2".into(), "7.4".into()]);
        assert_eq!(o["trainer::resume_continues_bit_for_bit"], waiting);
        assert_eq!(exercise_list(&["7.2".into(), "7.4".into()]), "ex 7.2, 7.4");
        assert_eq!(o["bad_settings_fail"], Other::Failing);
        assert_eq!(o["nobody_declared_me"], Other::Undeclared);
        assert_eq!(o["plan::tests::given"], Other::Failing);
        // Once its exercises pass, the test's failure is its own.
        let l = list([Passed, Passed, Passed, Passed]);
        let o = others(&failing, Some(&c), &l, &modules);
        assert_eq!(o["trainer::resume_continues_bit_for_bit"], Other::Failing);
    }
}
