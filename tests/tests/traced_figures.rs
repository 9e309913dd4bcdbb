//! The message figures of the book are what the code really sent: each is drawn by a lab
//! from a trace of the messages (chapter 2's `patterns`, chapter 3's `ring_steps`), and the
//! lab's captured output holds that trace as text. This test redraws every such figure
//! from the captured output and fails when the committed SVG differs, so a figure cannot
//! drift from the run the book shows (regenerate both with `make outputs CH=NN`).
//!
//! Run: `cargo test -p workbook-tests --test traced_figures`.

// The toolkit's drawing code itself, compiled into this test: diagram.rs uses only std,
// and this crate must build without MPI (the toolkit crate links it). One source, no copy.
#[allow(dead_code)]
#[path = "../../chapters/ch00-toolkit/harness/src/diagram.rs"]
mod diagram;
#[path = "../../chapters/ch00-toolkit/harness/src/xml.rs"]
mod xml;

use diagram::{from_text, rounds_svg};
use workbook_tests::{files_under, repo_root};

/// (output file, figure file name, the SVG the trace in the output draws), for every
/// `traced:` block followed by a `figure:` line in the book's captured outputs.
fn traced_figures() -> Vec<(String, String, String)> {
    let book = repo_root().join("book/src");
    let outputs = files_under(&book, &|p| {
        p.extension().is_some_and(|x| x == "txt")
            && p.parent().is_some_and(|d| d.ends_with("output"))
    });
    let mut found = vec![];
    for path in outputs {
        let text = std::fs::read_to_string(&path).unwrap();
        let diagrams = from_text(&text);
        let mut block = None;
        for line in text.lines() {
            if line.starts_with("traced: ") {
                block = Some(block.map_or(0, |b| b + 1));
            }
            let Some(figure) = line.trim_start().strip_prefix("figure: ") else {
                continue;
            };
            let (name, ranks, by, arrows) =
                &diagrams[block.expect("a figure line before any trace")];
            let file = figure.rsplit('/').next().unwrap().to_string();
            let shown = path.strip_prefix(&book).unwrap().display().to_string();
            found.push((shown, file, rounds_svg(name, by, *ranks, arrows)));
        }
    }
    found
}

#[test]
fn every_traced_figure_equals_the_trace_in_its_captured_output() {
    let book = repo_root().join("book/src");
    let figures = traced_figures();
    let mut problems = vec![];
    for (output, file, want) in &figures {
        let chapter = output.split('/').next().unwrap();
        let committed = book.join(chapter).join("img").join(file);
        match std::fs::read_to_string(&committed) {
            Ok(got) if &got == want => {}
            Ok(_) => problems.push(format!(
                "{}: differs from the trace in {output}",
                committed.display()
            )),
            Err(e) => problems.push(format!("{}: {e} (traced in {output})", committed.display())),
        }
    }
    assert!(
        problems.is_empty(),
        "figures out of step with their captured traces (run `make outputs CH=NN`):\n{}",
        problems.join("\n")
    );
    let names: Vec<&str> = figures.iter().map(|f| f.1.as_str()).collect();
    for needed in [
        "ch02-broadcast.svg",
        "ch02-reduce.svg",
        "ch02-allgather.svg",
        "ch02-alltoall.svg",
        "ch03-reduce-scatter.svg",
        "ch03-allgather.svg",
    ] {
        assert!(
            names.contains(&needed),
            "no captured trace draws {needed}; found {names:?}"
        );
    }
}

#[test]
fn a_changed_arrow_changes_the_figure() {
    let text = "traced: ring, 2 ranks, by step\n  step 1: 0->1 c0 | 1->0 c1\n";
    let (name, ranks, by, mut arrows) = from_text(text).remove(0);
    let svg = rounds_svg(&name, &by, ranks, &arrows);
    arrows[1].label = "c0".into();
    assert_ne!(svg, rounds_svg(&name, &by, ranks, &arrows));
}
