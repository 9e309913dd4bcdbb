//! The appendix page `mpi-names.md` maps every rsmpi call the chapters make to its MPI C
//! name. This test finds the rsmpi calls in `chapters/` and `solutions/` (method calls
//! and paths from rsmpi's API, listed in [`RSMPI`]) and fails when the page does not name
//! one, so a chapter that starts using a new call gets its row.
//!
//! Run: `cargo test -p workbook-tests --test mpi_names`.

use workbook_tests::{files_under, repo_root};

/// rsmpi's calls, as they appear in code (`.name(` or a path); the ones the course may use.
const RSMPI: &[&str] = &[
    "process_at_rank",
    "send",
    "send_with_tag",
    "synchronous_send",
    "ready_send",
    "buffered_send",
    "receive",
    "receive_into",
    "receive_with_tag",
    "receive_into_with_tag",
    "receive_vec",
    "receive_vec_with_tag",
    "matched_probe",
    "matched_probe_with_tag",
    "probe",
    "probe_with_tag",
    "immediate_send",
    "immediate_send_with_tag",
    "immediate_receive_into",
    "immediate_receive_into_with_tag",
    "immediate_synchronous_send",
    "send_receive",
    "send_receive_into",
    "send_receive_with_tags",
    "send_receive_into_with_tags",
    "send_receive_replace_into",
    "broadcast_into",
    "gather_into",
    "gather_into_root",
    "gather_varcount_into",
    "gather_varcount_into_root",
    "scatter_into",
    "scatter_into_root",
    "scatter_varcount_into",
    "scatter_varcount_into_root",
    "all_gather_into",
    "all_gather_varcount_into",
    "all_to_all_into",
    "all_to_all_varcount_into",
    "reduce_into",
    "reduce_into_root",
    "all_reduce_into",
    "scan_into",
    "exclusive_scan_into",
    "barrier",
    "immediate_barrier",
    "immediate_all_reduce_into",
    "immediate_broadcast_into",
    "split_shared",
    "split_by_color",
    "split_by_color_with_key",
    "duplicate",
    "create_cartesian_communicator",
    "rank_to_coordinates",
    "coordinates_to_rank",
    "threading_support",
    "initialize_with_threading",
    "processor_name",
    "wait_all",
    "multiple_scope",
    "abort",
    "source_rank",
];

/// The rsmpi calls named in `code`: `.name(` or `::name(` for a name in [`RSMPI`].
fn calls_in(code: &str) -> Vec<&'static str> {
    RSMPI
        .iter()
        .copied()
        .filter(|name| {
            [format!(".{name}("), format!("::{name}(")]
                .iter()
                .any(|call| code.contains(call.as_str()))
        })
        .collect()
}

#[test]
fn every_rsmpi_call_of_the_chapters_has_its_mpi_name_on_the_page() {
    let root = repo_root();
    let page = std::fs::read_to_string(root.join("book/src/mpi-names.md")).unwrap();
    let mut used = std::collections::BTreeSet::new();
    for dir in ["chapters", "solutions"] {
        for file in files_under(&root.join(dir), &|p| {
            p.extension().is_some_and(|x| x == "rs")
        }) {
            let code = std::fs::read_to_string(&file).unwrap();
            used.extend(calls_in(&code));
        }
    }
    assert!(used.len() > 20, "only {used:?} found: is the scan right?");
    let missing: Vec<_> = used
        .iter()
        .filter(|name| !page.contains(&format!("{name}(")))
        .collect();
    assert!(
        missing.is_empty(),
        "book/src/mpi-names.md lacks a row for these rsmpi calls the chapters use: {missing:?}"
    );
}

#[test]
fn the_scan_finds_method_and_path_calls() {
    let code = "world.process_at_rank(1).send(&x); mpi::request::multiple_scope(2, |s, r| {});";
    assert_eq!(
        calls_in(code),
        ["process_at_rank", "send", "multiple_scope"]
    );
}
