//! Lab: one tensor-parallel transformer block (attention split by heads, the MLP by
//! features) forward and backward at t ranks (the job's size, default 4), checked against
//! one process with the whole block.
//!
//! Run: `make run CH=09 SOLUTION=1` (or `NP=3 make run CH=09 SOLUTION=1`; `cargo run
//! --release -p ch09-tensor-parallel --features solution --bin tp_block -- --help` for the
//! flags). Expect: the block's shape, the largest differences of the output, the input's
//! gradient and the worst parameter gradient from one process's, each under its bound
//! (`ch09::compare`), then one row per rank: the parameters it holds, the activation
//! bytes of one forward, the allreduces it called forward and backward (counted by the
//! harness's PMPI wrappers) with their bytes, and the formulas (`ch09::counts`). A layout
//! t cannot share (t not dividing the heads) is refused in one line before MPI starts.

use trainer_kit::entry::Report;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", ch09::flags::USAGE);
        return;
    }
    let cfg = ch09::flags::parse_or_todo(&args, trainer_kit::cli::ranks_from_env()).unwrap_or_else(
        |why| {
            eprintln!("tp_block: {why}");
            std::process::exit(2);
        },
    );
    trainer_kit::entry::run_and_exit("tp_block", Report::Alike, |world| {
        ch09::lab::run(world, &cfg)
    })
}
