//! Finding an exercise's answer outside its stub: a function of `chapters/` with the name
//! of an exercise's function that shares a statement with its solution, parameters
//! renamed to the solution's in order (`n, parts, i` reads as `len, size, rank`).

use course::check::rust_files;
use std::path::{Path, PathBuf};

/// For each chapter folder of `chapters` (under `root`): every statement of a solution in
/// `solutions/` found in a non-stub function of the same name anywhere in `chapters/`,
/// as `path: `name` gives away `statement``. Only the functions an exercise asks for (a
/// stub with `todo!(` in the chapter's `src/`) count.
pub fn given_away(root: &Path, chapters: &[PathBuf]) -> Vec<String> {
    let read = |f: &PathBuf| std::fs::read_to_string(f).unwrap_or_default();
    let given: Vec<(PathBuf, String)> = chapters
        .iter()
        .flat_map(|d| rust_files(d))
        .map(|f| (f.clone(), read(&f)))
        .collect();
    let mut problems = vec![];
    for dir in chapters {
        let stubs: Vec<String> = rust_files(&dir.join("src")).iter().map(read).collect();
        let solutions = root
            .join("solutions")
            .join(dir.file_name().unwrap_or_default());
        for file in rust_files(&solutions) {
            let text = read(&file);
            for name in pub_fn_names(&text) {
                let stubbed = |s: &String| definitions(s, &name).iter().any(|d| d.is_stub);
                let Some(solution) = definitions(&text, &name).into_iter().next() else {
                    continue;
                };
                if !stubs.iter().any(stubbed) {
                    continue;
                }
                for (path, code) in &given {
                    for d in definitions(code, &name).iter().filter(|d| !d.is_stub) {
                        for statement in shared(d, &solution) {
                            let path = path.strip_prefix(root).unwrap_or(path).display();
                            problems.push(format!("{path}: `{name}` gives away `{statement}`"));
                        }
                    }
                }
            }
        }
    }
    problems
}

/// The names of the `pub fn` items of `text`.
fn pub_fn_names(text: &str) -> Vec<String> {
    let names = text.split("pub fn ").skip(1);
    let names = names.map(|rest| {
        rest.split(['(', '<'])
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    });
    let mut names: Vec<String> = names.filter(|n| !n.is_empty()).collect();
    names.sort();
    names.dedup();
    names
}

/// One function definition: its parameters' names and its body's statements, each with
/// its whitespace collapsed.
#[derive(Debug, PartialEq)]
pub struct Definition {
    /// The parameters' names, in order (`self` included where present).
    pub params: Vec<String>,
    /// The body's statements, split at `;` and at the body's last expression.
    pub statements: Vec<String>,
    /// The body calls `todo!(`: a stub.
    pub is_stub: bool,
}

/// Every definition `fn name(...) ... { ... }` in `text` (comment lines left out).
pub fn definitions(text: &str, name: &str) -> Vec<Definition> {
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let code = code.join("\n");
    let needle = format!("fn {name}");
    let mut out = vec![];
    for (at, _) in code.match_indices(&needle) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + needle.len()..];
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('<') {
            Some(r) => r.split_once('>').map_or("", |(_, r)| r),
            None => rest,
        };
        let Some(rest) = rest.strip_prefix('(') else {
            continue; // `fn name_longer(` or a call
        };
        let Some(params) = balanced(rest, '(', ')') else {
            continue;
        };
        let after = &rest[params.len() + 1..];
        let (Some(open), semi) = (after.find('{'), after.find(';')) else {
            continue;
        };
        if semi.is_some_and(|s| s < open) {
            continue; // a declaration without a body
        }
        let Some(body) = balanced(&after[open + 1..], '{', '}') else {
            continue;
        };
        out.push(Definition {
            params: param_names(params),
            statements: statements(body),
            is_stub: body.contains("todo!("),
        });
    }
    out
}

/// The text up to the bracket that closes the one just before `text` (excluded).
fn balanced(text: &str, open: char, close: char) -> Option<&str> {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(&text[..i]);
            }
        }
    }
    None
}

fn param_names(params: &str) -> Vec<String> {
    let mut names = vec![];
    let mut depth = 0;
    let mut start = 0;
    let mut parts = vec![];
    for (i, c) in params.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&params[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&params[start..]);
    for part in parts {
        let name = part.split(':').next().unwrap_or("").trim();
        let name = name
            .trim_start_matches('&')
            .trim_start_matches("mut ")
            .trim();
        if !name.is_empty() {
            names.push(name.to_string());
        }
    }
    names
}

/// The statements of a body: split at each `;` outside brackets (not in `vec![x; n]`).
fn statements(body: &str) -> Vec<String> {
    let (mut parts, mut depth, mut start) = (vec![], 0i32, 0);
    for (i, c) in body.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ';' if depth <= 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
        .into_iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

/// `statement` with each whole word `from[k]` replaced by `to[k]`.
pub fn renamed(statement: &str, from: &[String], to: &[String]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let k = from.iter().position(|f| f == word);
        out.push_str(k.and_then(|k| to.get(k)).unwrap_or(word));
        word.clear();
    };
    for c in statement.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The statements of `given` that are statements of `solution` too, once `given`'s
/// parameters carry the solution's names, when they are at least half of the solution's:
/// a line of boilerplate in common (`let layout = cart.get_layout()`) is not an answer.
/// Statements of 12 characters or fewer (`Ok(())`, `out`) are left out.
pub fn shared(given: &Definition, solution: &Definition) -> Vec<String> {
    let common: Vec<String> = given
        .statements
        .iter()
        .map(|s| renamed(s, &given.params, &solution.params))
        .filter(|s| s.len() > 12 && solution.statements.contains(s))
        .collect();
    if 2 * common.len() >= solution.statements.len() {
        common
    } else {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = "pub fn block_range(len: usize, size: usize, rank: usize) -> R {
        let (base, extra) = (len / size, len % size);
        let start = rank * base + rank.min(extra);
        start..start + base + usize::from(rank < extra)
    }";

    #[test]
    fn a_renamed_copy_shares_statements_and_another_formulation_does_not() {
        let sol = &definitions(SOLUTION, "block_range")[0];
        assert_eq!(sol.params, ["len", "size", "rank"]);
        assert!(!sol.is_stub);
        let copy = "/// doc\npub fn block_range(n: usize, parts: usize, i: usize) -> R {
            let (base, extra) = (n / parts, n % parts);
            let start = i * base + i.min(extra);
            start..start + base + usize::from(i < extra)
        }";
        let copy = &definitions(copy, "block_range")[0];
        assert_eq!(shared(copy, sol).len(), 3);
        let dealt = "fn block_range(n: usize, parts: usize, i: usize) -> R {
            let dealt = |j: usize| n.saturating_sub(j).div_ceil(parts);
            let start: usize = (0..i).map(dealt).sum();
            start..start + dealt(i)
        }";
        assert!(shared(&definitions(dealt, "block_range")[0], sol).is_empty());
        let stub = "pub fn block_range(len: usize) -> R { todo!(\"ex 0.1: x\") }";
        assert!(definitions(stub, "block_range")[0].is_stub);
        let one_line = "fn block_range(n: usize, p: usize, i: usize) -> R {
            let (base, extra) = (n / p, n % p); let a = vec![0; 3]; let b = 1 + 2 + 3 + 4 + 5;
            let c = 6 + 7 + 8 + 9 + 10; a.len()..b + c + base + extra
        }";
        assert!(shared(&definitions(one_line, "block_range")[0], sol).is_empty());
        assert!(definitions("fn block_ranges(a: u8) { a; }", "block_range").is_empty());
    }
}
