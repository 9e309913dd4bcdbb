//! How the harness tells a failure in the learner's terms: an MPI error, a panic inside a
//! property case or inside the `mpi` crate, a hang in a communicator constructor, and
//! several threads of a rank blocked at once. Each test plants the fault and asserts the
//! message. Run: `cargo test -p toolkit --test failure_reports` (about 15 s).
//!
//! The `planted_*` functions are the faulty programs, `#[ignore]`d: only the test after
//! each starts them, under mpirun, through `launch_self`.

use mpi::environment::Threading;
use mpi::topology::Color;
use mpi::traits::*;
use proptest::prelude::*;
use std::time::Duration;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, keep_for_the_book, launch_self, learner_view};
use toolkit::testing::{run_body, run_body_with};

/// A receive buffer smaller than the message (the classic slip in ex 3.1's chunk sizes).
#[test]
#[ignore = "planted fault: started by an_mpi_error_names_rank_call_meaning_and_case"]
fn planted_truncated_receive() {
    run_body("planted_truncated_receive", |world| {
        let (rank, size) = (world.rank(), world.size());
        let right = world.process_at_rank((rank + 1) % size);
        let left = world.process_at_rank((rank + size - 1) % size);
        property(world, "shift a vector to the right")
            .cases(2)
            .check(Just(8usize), |&n| {
                let mine = vec![rank as f64; n];
                let mut theirs = vec![0.0; n / 2]; // half the size of what arrives
                mpi::point_to_point::send_receive_into(&mine[..], &right, &mut theirs[..], &left);
                Ok(())
            })
    });
}

#[test]
fn an_mpi_error_names_rank_call_meaning_and_case() {
    let out = launch_self("planted_truncated_receive", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let view = learner_view(&out);
    assert!(view.contains("MPI_Sendrecv(dest="), "{view}\n{text}");
    assert!(view.contains("smaller than the message"), "{view}");
    assert!(
        view.contains("in `shift a vector to the right case 1: 8`"),
        "{view}"
    );
    assert!(view.contains("reproduce: WORKBOOK_SEED="), "{view}");
    keep_for_the_book(
        "failure_reports",
        "an_mpi_error_names_rank_call_meaning_and_case",
        &view,
    );
}

/// A panic in the middle of a property case: the report names the case and the seed.
#[test]
#[ignore = "planted fault: started by a_panic_in_a_case_names_the_case_and_the_seed"]
fn planted_panic_in_case() {
    run_body("planted_panic_in_case", |world| {
        property(world, "the third element exists").cases(4).check(
            prop::collection::vec(0u8..10, 0..2),
            |xs| {
                let third = xs[2]; // out of bounds: the vectors have 0 or 1 elements
                exact("third", &[third], &[third])
            },
        )
    });
}

#[test]
fn a_panic_in_a_case_names_the_case_and_the_seed() {
    let out = launch_self("planted_panic_in_case", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let view = learner_view(&out);
    assert!(
        view.contains("panicked at chapters/ch00-toolkit/harness/tests/failure_reports.rs"),
        "{view}\n{text}"
    );
    assert!(
        view.contains("in `the third element exists case 1:"),
        "{view}"
    );
    assert!(
        view.contains("reproduce: WORKBOOK_SEED=20261129 with 2 ranks"),
        "{view}"
    );
}

/// Every rank calls `gather_into_root`: rsmpi asserts on the ranks that are not the root.
#[test]
#[ignore = "planted fault: started by a_panic_inside_the_mpi_crate_names_the_callers_line"]
fn planted_gather_on_every_rank() {
    run_body("planted_gather_on_every_rank", |world| {
        let mut all = vec![0i32; world.size() as usize];
        let root = world.process_at_rank(0);
        root.gather_into_root(&world.rank(), &mut all[..]); // non-roots must call gather_into
        Ok(())
    });
}

#[test]
fn a_panic_inside_the_mpi_crate_names_the_callers_line() {
    let out = launch_self("planted_gather_on_every_rank", 2, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let view = learner_view(&out);
    let line = view
        .lines()
        .find(|l| l.contains("rank 1: panicked at mpi-"));
    let line = line.unwrap_or_else(|| panic!("{view}\n{text}"));
    assert!(line.contains("called from "), "{line}");
    assert!(line.contains("tests/failure_reports.rs:"), "{line}");
    assert!(view.contains("hint: a `..._root` collective"), "{view}");
    keep_for_the_book(
        "failure_reports",
        "a_panic_inside_the_mpi_crate_names_the_callers_line",
        &view,
    );
}

/// One rank skips the communicator split that the others call: a collective hang.
#[test]
#[ignore = "planted fault: started by a_hang_in_a_communicator_constructor_is_named"]
fn planted_missing_split() {
    run_body("planted_missing_split", |world| {
        property(world, "split by parity")
            .cases(1)
            .check(Just(()), |_| {
                if world.rank() != 1 {
                    let _half = world.split_by_color(Color::with_value(world.rank() % 2));
                }
                Ok(())
            })
    });
}

#[test]
fn a_hang_in_a_communicator_constructor_is_named() {
    let out = launch_self(
        "planted_missing_split",
        3,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let rank0 = out.rank_lines(0).join("\n");
    assert!(
        rank0.contains("blocked in MPI_Comm_split(color=0 key=0)"),
        "{text}"
    );
    let rank1 = out.rank_lines(1).join("\n");
    assert!(
        rank1.contains("finished the case and waits for the others"),
        "{text}"
    );
}

/// Two threads of each rank wait for messages that never come (MPI_THREAD_MULTIPLE).
#[test]
#[ignore = "planted fault: started by the_watchdog_names_each_threads_blocked_call"]
fn planted_two_threads_waiting() {
    run_body_with(
        "planted_two_threads_waiting",
        Threading::Multiple,
        |world| {
            let left = (world.rank() + world.size() - 1) % world.size();
            property(world, "two receivers")
                .cases(1)
                .check(Just(()), |_| {
                    std::thread::scope(|s| {
                        for t in 0..2 {
                            let name = format!("receiver-{t}");
                            let spawned =
                                std::thread::Builder::new()
                                    .name(name)
                                    .spawn_scoped(s, move || {
                                        // rsmpi's communicators cannot cross threads: the C call, on world.
                                        let mut x = 0f64;
                                        let mut status = std::mem::MaybeUninit::uninit();
                                        // SAFETY: a valid buffer of one double; MPI_THREAD_MULTIPLE granted.
                                        unsafe {
                                            use mpi::ffi::*;
                                            let buf = (&mut x as *mut f64).cast();
                                            let world = RSMPI_COMM_WORLD;
                                            MPI_Recv(
                                                buf,
                                                1,
                                                RSMPI_DOUBLE,
                                                left,
                                                7 + t,
                                                world,
                                                status.as_mut_ptr(),
                                            );
                                        }
                                    });
                            spawned.expect("spawn");
                        }
                    });
                    Ok(())
                })
        },
    );
}

#[test]
fn the_watchdog_names_each_threads_blocked_call() {
    let out = launch_self(
        "planted_two_threads_waiting",
        2,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(15));
    for tag in [7, 8] {
        let t = tag - 7;
        let want = format!("thread `receiver-{t}`: blocked in MPI_Recv(source=1 tag={tag}");
        assert!(
            out.rank_lines(0).iter().any(|l| l.contains(&want)),
            "{want}\n{text}"
        );
    }
    assert!(text.contains("2 threads in blocking calls"), "{text}");
    assert!(
        learner_view(&out).contains("every rank waits to receive"),
        "{text}"
    );
    keep_for_the_book(
        "failure_reports",
        "the_watchdog_names_each_threads_blocked_call",
        &learner_view(&out),
    );
}

/// A case that is slow, not stuck: thousands of tiny messages (a message per element)
/// pass the deadline while every call still returns.
#[test]
#[ignore = "planted fault: started by a_slow_case_is_told_from_a_stuck_one"]
fn planted_message_per_element() {
    run_body("planted_message_per_element", |world| {
        let (rank, size) = (world.rank(), world.size());
        let right = world.process_at_rank((rank + 1) % size);
        let left = world.process_at_rank((rank + size - 1) % size);
        property(world, "shift one element at a time")
            .cases(1)
            .check(Just(u64::MAX), |&n| {
                let (mut sent, mut got) = (0u64, 0u64);
                for x in 0..n {
                    // 10 ms a message: as slow as a tiny message on a link with 10 ms of latency.
                    std::thread::sleep(Duration::from_millis(10));
                    let _ = mpi::point_to_point::send_receive_into(&x, &right, &mut got, &left);
                    sent += 1;
                }
                exact("messages", &[sent], &[n])
            })
    });
}

#[test]
fn a_slow_case_is_told_from_a_stuck_one() {
    let out = launch_self(
        "planted_message_per_element",
        2,
        &[("WORKBOOK_CASE_TIMEOUT", "3")],
    );
    let text = assert_failed_within(&out, Duration::from_secs(15));
    let view = learner_view(&out);
    assert!(
        view.contains("SLOW? `shift one element at a time case 1"),
        "{view}\n{text}"
    );
    assert!(!view.contains("DEADLOCK?"), "{view}");
    assert!(view.contains("the case is slow, not stuck"), "{view}");
    keep_for_the_book(
        "failure_reports",
        "a_slow_case_is_told_from_a_stuck_one",
        &view,
    );
}
