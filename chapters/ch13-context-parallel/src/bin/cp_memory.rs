//! Lab: what context parallelism buys. Chapter 9's GPT (2 blocks, h = 96, 6 heads, f32)
//! with its sequence split over CP = 1, 2 and 4 ranks (ring attention inside): the bytes
//! a rank's forward pass keeps for the backward, measured on the heap (glibc's
//! `mallinfo2`), at a context of 1x, 2x and 4x `--seq`, next to the formula `A · b · s /
//! cp` (A, the bytes per token, read at CP 1 and 1x); the scores of one block pair (`b · H
//! · (s/cp)² · 8`, f64) that exist while it is computed; then the longest context whose
//! activations fit `--max-mem` MiB per rank at each CP, and its measured bytes.
//!
//! Run: `make run CH=13 BIN=cp_memory SOLUTION=1` (4 ranks: CP 1, 2 and 4 as groups of
//! 1, 2 and 4 consecutive ranks, those that divide the ranks: at NP=3 CP 1 alone). A bad
//! flag is refused in one line before MPI starts. It needs chapter 9's exercises and ex
//! 13.1 and 13.2; until they are written it says which.

use ch09::corpus::Corpus;
use ch13::flags::read;
use ch13::memory::{block_pair_scores, held_by_forward, model, MemoryFlags};
use mpi::traits::*;
use toolkit::gate::unless_todo;

const MIB: f64 = 1024.0 * 1024.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        use clap::CommandFactory;
        return print!("{}", MemoryFlags::command().render_help());
    }
    let refuse = |why: String| -> ! {
        eprintln!("cp_memory: {why}");
        std::process::exit(2);
    };
    let f = read::<MemoryFlags>("cp_memory", &args)
        .and_then(|f| f.check().map(|_| f))
        .unwrap_or_else(|why| refuse(why));
    let corpus = Corpus::shipped().unwrap_or_else(|why| refuse(why));
    let universe = toolkit::init();
    let world = universe.world();
    tch::set_num_threads(1);
    let p = world.size() as usize;
    let cps: Vec<usize> = [1, 2, 4]
        .into_iter()
        .filter(|c| p.is_multiple_of(*c))
        .collect();
    let say = |line: String| {
        if world.rank() == 0 {
            println!("{line}");
        }
    };
    let (b, s0, v) = (f.batch, f.seq, corpus.vocab());
    let held = |seq: usize, cp: usize| held_by_forward(&world, &corpus, &model(v, b, seq), cp);
    let ran = unless_todo(&world, || {
        held(s0, 1); // the first forward also allocates LibTorch's own state: not counted
        let per_token = held(s0, 1) as f64 / (b * s0) as f64;
        say(format!(
            "cp_memory: {p} ranks; chapter 9's GPT (2 blocks, h = 96, 6 heads, f32), batch {b}; \
             A = {per_token:.0} B a token (measured at CP 1, context {s0})"
        ));
        say(format!(
            "{:>4} {:>8} {:>14} {:>14} {:>10} {:>18}",
            "CP", "context", "held, MiB", "A b s/cp, MiB", "measured/", "block pair's"
        ));
        say(format!(
            "{:>4} {:>8} {:>14} {:>14} {:>10} {:>18}",
            "", "", "(measured)", "(formula)", "formula", "scores, MiB"
        ));
        for &cp in &cps {
            for k in [1, 2, 4] {
                let seq = k * s0;
                let got = held(seq, cp) as f64;
                let want = per_token * (b * seq / cp) as f64;
                let scores = block_pair_scores(&model(v, b, seq), seq / cp) as f64;
                say(format!(
                    "{cp:>4} {seq:>8} {:>14.1} {:>14.1} {:>10.3} {:>18.1}",
                    got / MIB,
                    want / MIB,
                    got / want,
                    scores / MIB
                ));
            }
        }
        let budget = f.max_mem as f64 * MIB;
        say(format!("the longest context whose activations fit --max-mem {} MiB a rank (A b s / cp <= budget):", f.max_mem));
        for &cp in &cps {
            let per_rank = (budget / (per_token * b as f64)).floor() as usize;
            let seq = per_rank * cp;
            let got = held(seq, cp) as f64;
            say(format!(
                "  CP {cp}: {seq} characters ({per_rank} a rank); measured there {:.1} MiB ({:.1}% of the budget)",
                got / MIB,
                100.0 * got / budget
            ));
        }
    });
    if let Err(task) = ran {
        toolkit::gate::stop_unfinished(&world, "cp_memory", &task);
    }
}
