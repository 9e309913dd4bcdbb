//! Which failure of a failing exercise `make check` shows first, and which function its
//! "Next:" line opens: the tests of an exercise are ranked by how specific they are
//! (`course.toml`'s `[chapter.checks]` maps each to the functions it checks), and a
//! panic's chain of the learner's functions names the exercise's own.

use crate::check::Exercise;
use crate::course::Chapter;

impl Chapter {
    /// The functions `[chapter.checks]` says `test` checks, with the test's place there.
    pub fn checked(&self, test: &str) -> Option<(usize, Vec<String>)> {
        let at = self.checks.keys().position(|k| k == test)?;
        let list = self.checks[test]
            .as_array()?
            .iter()
            .filter_map(|v| v.as_str());
        Some((at, list.map(str::to_string).collect()))
    }
}

/// `[chapter.checks]` read: every entry a list of function names, else the line to fix.
pub fn lists_of_functions(c: &Chapter) -> Result<(), String> {
    for (test, fs) in &c.checks {
        if !fs.as_array().is_some_and(|a| a.iter().all(|v| v.is_str())) {
            return Err(format!(
                "chapter {}: checks.{test} is not a list of functions",
                c.id
            ));
        }
    }
    Ok(())
}

/// How specific a test of an exercise is, the most specific smallest: the number of the
/// exercise's functions it checks (`[chapter.checks]`: a unit check of one function before
/// an end-to-end "equals one process"), then its place in that list (the plan lists an
/// exercise's tests from the most telling message to the least). A test the plan does not
/// map comes last.
pub fn specificity(chapter: Option<&Chapter>, test: &str) -> (usize, usize) {
    let bare = test.rsplit("::").next().unwrap_or(test);
    match chapter.and_then(|c| c.checked(bare)) {
        Some((at, functions)) => (functions.len(), at),
        None => (usize::MAX, usize::MAX),
    }
}

/// The functions to open for a failing exercise: the one of its functions the failure
/// names first as `your NAME` (a panic's place: the innermost of the exercise's own), else those its
/// most specific failing test checks (`[chapter.checks]`), else the stub's function.
pub fn blamed(chapter: Option<&Chapter>, e: &Exercise, stub_function: &str) -> Vec<String> {
    let functions: Vec<String> = chapter
        .and_then(|c| c.exercises.iter().find(|x| x.id == e.id))
        .map(|x| x.functions.clone())
        .unwrap_or_default();
    let Some((test, why)) = e.failed.first() else {
        return vec![stub_function.to_string()];
    };
    let mut named: Vec<(usize, &String)> = functions
        .iter()
        .filter_map(|f| Some((why.find(&format!("your {f} "))?, f)))
        .collect();
    named.sort();
    // The innermost of the exercise's own; and when that one called the library itself
    // (the first `your` of the chain), its caller of the same exercise too: which of the
    // two passed the wrong arguments, the chain cannot tell.
    let first_yours = why.find("your ");
    match named.as_slice() {
        [(at, f), (_, caller), ..] if Some(*at) == first_yours => {
            return vec![f.to_string(), caller.to_string()];
        }
        [(_, f), ..] => return vec![f.to_string()],
        [] => {}
    }
    let bare = test.rsplit("::").next().unwrap_or(test);
    match chapter.and_then(|c| c.checked(bare)) {
        Some((_, fs)) if !fs.is_empty() => fs,
        _ => vec![stub_function.to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;
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
              { id = "7.4", title = "c", minutes = 1, core = true, file = "a.rs", functions = ["f", "g", "h"] },
            ]
            [chapter.checks]
            ex7_4_whole = ["f", "g", "h"]
            ex7_4_f_alone = ["f"]
            ex7_4_g_alone = ["g"]
            ex7_4_f_and_h = ["f", "h"]
        "#;
        Course::parse(plan).unwrap().chapters.remove(0)
    }

    fn ex(id: &str, status: Status) -> Exercise {
        let (id, task, tests, failed) = (id.to_string(), String::new(), vec![], vec![]);
        Exercise {
            id,
            task,
            tests,
            failed,
            status,
        }
    }

    #[test]
    fn a_unit_check_comes_before_an_end_to_end_one_and_names_its_function() {
        let c = chapter();
        let mut tests = [
            "m::ex7_4_whole",
            "m::ex7_4_f_and_h",
            "m::ex7_4_g_alone",
            "m::ex7_4_f_alone",
            "m::ex7_4_unmapped",
        ];
        tests.sort_by_key(|t| specificity(Some(&c), t));
        assert_eq!(
            tests,
            [
                "m::ex7_4_f_alone",
                "m::ex7_4_g_alone",
                "m::ex7_4_f_and_h",
                "m::ex7_4_whole",
                "m::ex7_4_unmapped"
            ]
        );
        let mut e = ex("7.4", Status::Failing("x".into()));
        e.failed = vec![("m::ex7_4_g_alone".into(), "g is wrong".into())];
        assert_eq!(blamed(Some(&c), &e, "f"), ["g"]);
        e.failed = vec![("m::ex7_4_whole".into(), "differs".into())];
        assert_eq!(blamed(Some(&c), &e, "f"), ["f", "g", "h"]);
        // A panic's chain names the exercise's own function (innermost first): it wins.
        let chain = "panicked at mpi/src/datatype.rs:1458, called from your helper at src/x.rs:3, from your h at src/a.rs:9, from your f at src/a.rs:2";
        e.failed = vec![("m::ex7_4_whole".into(), chain.into())];
        assert_eq!(blamed(Some(&c), &e, "f"), ["h"]);
        // The library called by the exercise's own helper: the helper and its caller.
        let own = "panicked at mpi/src/datatype.rs:1458, called from your g at src/a.rs:3, from your h at src/a.rs:9";
        e.failed = vec![("m::ex7_4_whole".into(), own.into())];
        assert_eq!(blamed(Some(&c), &e, "f"), ["g", "h"]);
        e.failed = vec![];
        assert_eq!(blamed(Some(&c), &e, "f"), ["f"]);
    }
}
