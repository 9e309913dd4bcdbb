//! Checks of the given layer and the lab's flags: the whole forward (`layer::forward`:
//! ex 11.1's router, ex 11.2's exchange, the experts) against the same layer in one
//! process under mpirun at 1 to 5 ranks, and the lab's bad flags refused in one line.
//! Run: `make check CH=11` or `cargo test -p ch11-experts --features solution --test main layer::`.

use ch11::config::MoeConfig;
use ch11::experts::Experts;
use ch11::flags::parse;
use ch11::layer::{forward, one_process};
use ch11::task::Task;
use mpi::traits::*;
use toolkit::testing::refused_in_one_line;

#[test]
fn bad_lab_flags_are_refused_in_one_line() {
    let bad = [
        ("--k 3", "k = 3: each token goes to 1 or 2 experts"),
        ("--experts 1 --k 2", "k = 2 with 1 expert(s)"),
        (
            "--capacity-factor -1",
            "capacity factor -1: it must be a positive number",
        ),
        ("--experts 0", "0 experts"),
        ("--hidden 0", "--hidden 0"),
        ("--tokens many", "--tokens many: not a whole number"),
        ("--k", "--k needs a value"),
        ("--expert 4", "unknown flag --expert"),
    ];
    refused_in_one_line(parse, &bad);
    let ok = parse(&["--tokens".into(), "0".into()]).unwrap();
    assert_eq!(
        (ok.tokens, ok.cfg),
        (0, MoeConfig::new(8, 2, 1.25).unwrap())
    );
}

toolkit::mpi_test! {
    /// The given forward on the lab's task, skewed, equals one process within 1e-6·(1+|y|).
    fn the_layer_forward_equals_one_process(world at &[1, 2, 3, 5]) {
        let rank = world.rank() as u64;
        for (experts, k, factor) in [(5, 1, 1.0), (8, 2, 1.25), (3, 2, 0.5)] {
            let cfg = MoeConfig::new(experts, k, factor).unwrap();
            let (task, ex) = (Task::new(experts, 6, 1), Experts::linear(experts, 6, 2));
            let batch = task.batch(20 + rank as usize, 1.5, 3 + rank);
            let got = forward(world, &cfg, &ex, &batch.logits, &batch.x)?;
            let want = one_process(&cfg, &ex, &batch.logits, &batch.x)?;
            for (i, (g, w)) in got.out.iter().zip(&want).enumerate() {
                if (g - w).abs() > 1e-6 * (1.0 + w.abs()) || got.out.len() != want.len() {
                    return Err(format!("rank {rank}, {cfg:?}: float {i}: {g}, expected {w}"));
                }
            }
        }
        Ok(())
    }
}
