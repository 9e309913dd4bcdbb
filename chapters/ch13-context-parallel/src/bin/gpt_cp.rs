//! Lab: chapter 9's GPT (character level, trained on the book's own pages) with a fourth
//! axis: its sequence split over `--cp` ranks, attention by ring (ex 13.2 forward, ex 13.5
//! backward), composed with chapter 9's `--dp`, `--tp` and `--pp`.
//!
//! Run: `make run CH=13 BIN=gpt_cp SOLUTION=1` (4 ranks: cp 2 x tp 2; `NP=2 ... ARGS="--tp
//! 1"` is cp 2 alone; `NP=8 ... ARGS="--cp 2 --dp 2 --tp 2"`; `ARGS=--help` for the
//! flags). Expect: the model and the grid; the training and validation loss every 250
//! steps, falling from about ln V as chapter 9's `gpt` does at the same flags; rank 0's
//! collectives of the last step. A layout the ranks cannot share, or a context `--cp`
//! does not divide, is refused in one line before MPI starts. It needs chapter 9's
//! exercises 9.1 to 9.6 and this chapter's 13.1, 13.2 and 13.5.

use ch09::corpus::Corpus;
use ch13::gpt_cp_lab::{run, GptCpFlags};
use trainer_kit::entry::Report;

fn main() {
    let flags: GptCpFlags = trainer_kit::cli::from_command_line();
    let refuse = |why: String| -> ! {
        eprintln!("gpt_cp: {why}");
        std::process::exit(2);
    };
    let corpus = Corpus::shipped().unwrap_or_else(|why| refuse(why));
    if let Err(why) = flags.gpt.check_resume(corpus.vocab()) {
        refuse(why);
    }
    trainer_kit::entry::run_and_exit("gpt_cp", Report::Alike, |world| run(world, &flags, &corpus))
}
