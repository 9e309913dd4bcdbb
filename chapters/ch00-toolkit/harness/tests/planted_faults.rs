//! The harness checks itself: each test plants a fault and asserts that the harness
//! reports it as it promises (named, quickly, with the rank and the call).
//!
//! The `planted_*` functions are the faulty programs. They are `#[ignore]`d: only the
//! test above each starts them, under mpirun, through `launch_self`.

use mpi::collective::SystemOperation;
use mpi::environment::Threading;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use proptest::prelude::*;
use std::time::Duration;
use toolkit::compare::exact;
use toolkit::lockstep::property;
use toolkit::testing::{assert_failed_within, at_ranks, launch_self, learner_view};
use toolkit::testing::{run_body, run_body_with, verdict};

/// Keeps what the harness printed for a planted fault, for the book (`make outputs CH=00`).
fn keep_for_the_book(test: &str, text: &str) {
    let shown = format!("$ cargo test -p toolkit --test planted_faults {test}\n{text}");
    toolkit::report::write_file(&format!("planted/{test}.txt"), &shown)
        .expect("write target/workbook/planted");
}

/// Allreduce (sum) by recursive doubling: exchange with `rank ^ mask`, for mask = 1, 2, 4...
/// With `skip_missing_partner` it has the classic bug: partners past the last rank are
/// skipped, which is only right when the rank count is a power of two.
fn recursive_doubling(
    world: &SimpleCommunicator,
    xs: &[i64],
    skip_missing_partner: bool,
) -> Vec<i64> {
    let (rank, size) = (world.rank(), world.size());
    if !skip_missing_partner {
        let mut sum = vec![0; xs.len()];
        world.all_reduce_into(xs, &mut sum[..], SystemOperation::sum());
        return sum;
    }
    let mut acc = xs.to_vec();
    let mut mask = 1;
    while mask < size {
        let partner = rank ^ mask;
        if partner < size {
            let mut theirs = vec![0i64; acc.len()];
            let p = world.process_at_rank(partner);
            mpi::point_to_point::send_receive_into(&acc[..], &p, &mut theirs[..], &p);
            acc.iter_mut().zip(&theirs).for_each(|(a, t)| *a += t);
        }
        mask <<= 1;
    }
    acc
}

/// Property: the allreduce equals the sum computed from what every rank contributed.
fn sum_property(world: &SimpleCommunicator, buggy: bool) -> Result<(), String> {
    let (rank, size) = (world.rank() as i64, world.size() as i64);
    property(world, "recursive-doubling sum equals the true sum")
        .cases(64)
        .check(prop::collection::vec(-1000i64..1000, 0..64), |xs| {
            let mine: Vec<i64> = xs.iter().map(|x| x + rank).collect();
            let want: Vec<i64> = xs
                .iter()
                .map(|x| size * x + size * (size - 1) / 2)
                .collect();
            exact("sum", &recursive_doubling(world, &mine, buggy), &want)
        })
}

#[test]
fn a_correct_program_passes_at_1_2_3_4_8_ranks() {
    at_ranks(
        "a_correct_program_passes_at_1_2_3_4_8_ranks",
        &[1, 2, 3, 4, 8],
        |world| sum_property(world, false),
    );
}

#[test]
#[ignore = "planted fault: started by off_by_one_at_3_ranks_is_found_and_shrunk"]
fn planted_power_of_two_bug() {
    run_body("planted_power_of_two_bug", |world| {
        sum_property(world, true)
    });
}

#[test]
fn off_by_one_at_3_ranks_is_found_and_shrunk() {
    for n in [1, 2, 4] {
        let out = launch_self("planted_power_of_two_bug", n, &[]);
        assert!(
            verdict("planted_power_of_two_bug", n, &out).is_ok(),
            "{}",
            out.text()
        );
    }
    let out = launch_self("planted_power_of_two_bug", 3, &[]);
    let text = out.text();
    assert!(!out.success(), "the bug at 3 ranks went unnoticed:\n{text}");
    // Every rank adds its rank, so any one-element vector fails: shrinking must get there
    // (usually to [0]; proptest's shrinker may stop at another single value).
    assert!(text.contains("FAILED at 3 ranks"), "{text}");
    let case = text
        .split("minimal failing case: ")
        .nth(1)
        .and_then(|t| t.lines().next());
    let case = case.unwrap_or_else(|| panic!("no minimal case reported:\n{text}"));
    assert!(
        case.starts_with('[') && case.ends_with(']') && !case.contains(','),
        "not shrunk: {case}"
    );
    // Rank 1 misses rank 2's contribution.
    assert!(text.contains("rank 1 says: sum: element 0 is"), "{text}");
    assert!(text.contains("reproduce: WORKBOOK_SEED="), "{text}");
    keep_for_the_book(
        "off_by_one_at_3_ranks_is_found_and_shrunk",
        &learner_view(&out),
    );
}

/// Both ranks send 4 MiB first, then receive: beyond the eager limit a send waits for
/// its receive, so both wait forever.
#[test]
#[ignore = "planted fault: started by a_deadlock_is_named_within_its_deadline"]
fn planted_deadlock() {
    run_body("planted_deadlock", |world| {
        let other = world.process_at_rank(1 - world.rank());
        property(world, "swap 4 MiB with the other rank")
            .cases(2)
            .check(Just(1usize << 19), |&n| {
                let mine = vec![world.rank() as f64; n];
                other.send(&mine[..]);
                let (theirs, _) = other.receive_vec::<f64>();
                exact("received length", &[theirs.len()], &[n])
            })
    });
}

#[test]
fn a_deadlock_is_named_within_its_deadline() {
    let out = launch_self("planted_deadlock", 2, &[("WORKBOOK_CASE_TIMEOUT", "3")]);
    let text = assert_failed_within(&out, Duration::from_secs(15));
    for rank in 0..2 {
        let line = out
            .rank_lines(rank)
            .into_iter()
            .find(|l| l.contains("DEADLOCK?"));
        let line = line.unwrap_or_else(|| panic!("rank {rank} did not report:\n{text}"));
        assert!(
            line.contains("swap 4 MiB with the other rank case 1"),
            "{line}"
        );
        let peer = 1 - rank;
        assert!(
            line.contains(&format!("blocked in MPI_Send(dest={peer} tag=")),
            "{line}"
        );
        assert!(line.contains("4194304 bytes"), "{line}");
    }
    assert!(
        learner_view(&out).contains("every rank is sending"),
        "{text}"
    );
    keep_for_the_book(
        "a_deadlock_is_named_within_its_deadline",
        &learner_view(&out),
    );
}

#[test]
#[ignore = "planted fault: started by a_panicking_rank_ends_the_job_quickly"]
fn planted_panic() {
    run_body("planted_panic", |world| {
        if world.rank() == 2 {
            let counts: Vec<usize> = vec![];
            let _ = counts[world.rank() as usize]; // index out of bounds on rank 2 only
        }
        world.barrier(); // the other ranks would wait here forever
        Ok(())
    });
}

#[test]
fn a_panicking_rank_ends_the_job_quickly() {
    let out = launch_self("planted_panic", 4, &[]);
    let text = assert_failed_within(&out, Duration::from_secs(10));
    let said = out.rank_lines(2).join("\n");
    assert!(
        said.contains("rank 2: panicked at") && said.contains("index out of bounds"),
        "{text}"
    );
    keep_for_the_book("a_panicking_rank_ends_the_job_quickly", &learner_view(&out));
}

/// The last line of defence: a job that outlives its deadline (here two ranks that sleep
/// without any MPI call, so no watchdog can speak) is killed whole, ranks included.
#[test]
fn a_job_past_its_deadline_is_killed_with_all_its_ranks() {
    let marker = "97.25"; // an unusual sleep length, to find leftover processes by
    let job = toolkit::launch::Job::new("sleep").args([marker]).ranks(2);
    let out = job.timeout(Duration::from_secs(2)).run().expect("mpirun");
    assert!(out.timed_out && out.status.is_none(), "{}", out.text());
    assert!(out.wall < Duration::from_secs(10), "took {:?}", out.wall);
    let leftovers: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.starts_with("sleep ") && c.contains(marker))
        .collect();
    assert!(
        leftovers.is_empty(),
        "ranks outlived the kill: {leftovers:?}"
    );
}

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
    keep_for_the_book("an_mpi_error_names_rank_call_meaning_and_case", &view);
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
        view.contains("panicked at chapters/ch00-toolkit/harness/tests/planted_faults.rs"),
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
    assert!(line.contains("tests/planted_faults.rs:"), "{line}");
    assert!(view.contains("hint: a `..._root` collective"), "{view}");
    keep_for_the_book("a_panic_inside_the_mpi_crate_names_the_callers_line", &view);
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
        "the_watchdog_names_each_threads_blocked_call",
        &learner_view(&out),
    );
}
