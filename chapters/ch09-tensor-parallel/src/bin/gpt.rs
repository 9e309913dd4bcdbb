//! Lab: a small GPT (character level, trained on the book's own pages) over a DP x TP
//! grid of ranks: tensor-parallel blocks and a vocabulary-parallel embedding and head
//! inside each replica, gradients averaged over the replicas, Adam on each rank's shard.
//!
//! Run: `make run CH=09 BIN=gpt SOLUTION=1` (4 ranks: dp 2 x tp 2; `NP=1`, `NP=3` too;
//! `cargo run --release -p ch09-tensor-parallel --features solution --bin gpt -- --help`
//! for the flags). Expect: the corpus, the model and the grid; the training and
//! validation loss every 250 steps, falling from about ln V toward 2, with tokens/s; one
//! row per rank: the parameters it holds and the allreduces and bytes of one step on
//! each group against the formulas (`ch09::counts`); then a sample of text. A layout the
//! ranks cannot share is refused in one line before MPI starts. `--pp P --micro M` adds
//! pipeline stages (GPipe over M micro-batches): the table then has the PP sends and the
//! embedding group too (`NP=8 ... -- --dp 2 --tp 2 --pp 2 --micro 2`). `--checkpoint DIR`
//! saves at any layout and `--resume` loads into any other. `--device cuda` trains each
//! rank's shard on its GPU (at --pp 1 --micro 1; where no GPU can be used, refused in one
//! line that says why). The corpus: `$WORKBOOK_DATA/book-pages/` when set (the GPU kit).

use ch09::corpus::Corpus;
use ch09::gpt_flags::GptFlags;
use trainer_kit::entry::Report;

fn main() {
    let flags: GptFlags = trainer_kit::cli::from_command_line();
    let refuse = |why: String| -> ! {
        eprintln!("gpt: {why}");
        std::process::exit(2);
    };
    let corpus = Corpus::shipped().unwrap_or_else(|why| refuse(why));
    if let Err(why) = corpus.encode(&flags.prompt) {
        refuse(format!("--prompt: {why}"));
    }
    if let Err(why) = flags.check_resume(corpus.vocab()) {
        refuse(why);
    }
    trainer_kit::entry::run_and_exit("gpt", Report::Alike, |world| {
        ch09::gpt_lab::run(world, &flags, &corpus)
    })
}
