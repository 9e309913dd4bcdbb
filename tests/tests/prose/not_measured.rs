//! The numbers in the book's prose that are not measurements, each with its reason;
//! `figures_in_prose` skips them.

/// (page, figure as the prose writes it, why it is not a measurement).
pub const NOT_MEASURED: &[(&str, &str, &str)] = &[
    (
        "ch00-toolkit/harness.md",
        "10 ms",
        "the pause the planted slow case makes before each message (failure_reports.rs)",
    ),
    (
        "ch10-troubleshooting/checklist.md",
        "20 s",
        "the default of WORKBOOK_CASE_TIMEOUT",
    ),
    (
        "ch10-troubleshooting/checklist.md",
        "300 s",
        "the default of WORKBOOK_JOB_TIMEOUT",
    ),
    (
        "ch00-toolkit/harness.md",
        "10 s",
        "the margin a test body's budget keeps before the job deadline (watchdog::body_limit)",
    ),
    (
        "ch00-toolkit/harness.md",
        "20 s",
        "the default of WORKBOOK_CASE_TIMEOUT",
    ),
    (
        "ch01-send-recv/exercises.md",
        "20 s",
        "the default of WORKBOOK_CASE_TIMEOUT",
    ),
    (
        "ch04-halo-exchange/exchange.md",
        "20 s",
        "the default of WORKBOOK_CASE_TIMEOUT",
    ),
    (
        "ch07-pipeline/exercises.md",
        "20 s",
        "the default of WORKBOOK_CASE_TIMEOUT",
    ),
    (
        "ch01-send-recv/index.md",
        "100 ms",
        "the lab's chosen delay before the receive",
    ),
    (
        "ch01-send-recv/exercises.md",
        "10 GB/s",
        "question 6's given bandwidth",
    ),
    (
        "ch01-send-recv/exercises.md",
        "0.1 us",
        "question 6's worked answer",
    ),
    (
        "ch01-send-recv/exercises.md",
        "1.1 ms",
        "question 6's worked answer",
    ),
    (
        "ch01-send-recv/exercises.md",
        "102 us",
        "question 6's worked answer",
    ),
    (
        "ch01-send-recv/exercises.md",
        "0.1 ms",
        "question 6's worked answer",
    ),
    (
        "ch05-hybrid/exercises.md",
        "12 s",
        "a worked answer in unit costs",
    ),
    (
        "ch05-hybrid/exercises.md",
        "9 s",
        "a worked answer in unit costs",
    ),
    (
        "ch05-hybrid/exercises.md",
        "11 s",
        "a worked answer in unit costs",
    ),
    ("ch05-hybrid/exercises.md", "1.7x", "the benchmark's target"),
    ("ch05-hybrid/exercises.md", "10%", "the benchmark's target"),
    ("ch05-hybrid/hybrid.md", "10%", "the benchmark's target"),
    (
        "ch05-hybrid/gpu.md",
        "25 GB/s",
        "the assumed node's PCIe copy bandwidth",
    ),
    (
        "ch05-hybrid/gpu.md",
        "30%",
        "the cost model's share for the assumed node",
    ),
    (
        "ch05-hybrid/gpu.md",
        "12 GB/s",
        "the assumed node's network and pageable copies",
    ),
    (
        "ch05-hybrid/gpu.md",
        "47%",
        "the cost model's share for the assumed node",
    ),
    ("ch05-hybrid/gpu.md", "10%", "ex 5.7's test's target"),
    (
        "ch05-hybrid/gpu.md",
        "151 ms",
        "arithmetic: the H200 lab's staged whole minus staged chunked at 128 MiB",
    ),
    (
        "ch05-hybrid/gpu.md",
        "25%",
        "the overlap model's tolerance (issue 21's target)",
    ),
    (
        "ch05-hybrid/hybrid.md",
        "0.48 ms",
        "arithmetic: the two captures' ms/step, 2.23 minus 1.75",
    ),
    (
        "ch05-hybrid/hybrid.md",
        "0.49 ms",
        "arithmetic: 22% of the benchmark's 2.23 ms/step",
    ),
    (
        "ch05-hybrid/hybrid.md",
        "0.07 ms",
        "arithmetic: 4% of the lab's 1.75 ms/step",
    ),
    (
        "ch05-hybrid/hybrid.md",
        "0.42 ms",
        "arithmetic: 0.49 minus 0.07 ms of exchange",
    ),
    (
        "ch06-data-parallel/index.md",
        "95%",
        "the accuracy test's threshold",
    ),
    (
        "ch06-data-parallel/exercises.md",
        "4x",
        "p = 4 ranks: the learning rate's factor",
    ),
    (
        "ch07-pipeline/exercises.md",
        "10%",
        "the question's target bubble",
    ),
    ("ch07-pipeline/exercises.md", "43%", "the worked answer 3/7"),
    (
        "ch10-troubleshooting/exercises.md",
        "0.50 ms",
        "the threshold a planted mistake's check is given (its message quoted)",
    ),
    (
        "ch10-troubleshooting/exercises.md",
        "1.60 ms",
        "the threshold a planted mistake's check is given (its message quoted)",
    ),
    (
        "ch10-troubleshooting/exercises.md",
        "5 ms",
        "a self-check question's made-up lateness",
    ),
    (
        "ch10-troubleshooting/exercises.md",
        "1 ms",
        "a self-check question's threshold",
    ),
];
