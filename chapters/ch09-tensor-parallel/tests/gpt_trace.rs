//! The trace of one step (`ch09::step_trace`, the lab's `--trace`): at 8 ranks, dp 2 x tp 2
//! x pp 2 in 2 micro-batches, every rank's spans on each axis are its step's own
//! communication: as many TP, DP and embedding-group spans as the harness's tally counted
//! allreduces on those groups, a PP span for each send (and for each receive), and world
//! rank 0 gathers all of them into a Perfetto trace with four tracks per rank.
//!
//! Run: `make check CH=09` (after exercises 9.1 to 9.6) or `cargo test -p
//! ch09-tensor-parallel --features solution --test main gpt_trace::`.

use ch09::corpus::{repository_root, Corpus};
use ch09::gpt::GptConfig;
use ch09::grid::{Grid, Layout};
use ch09::params::BlockConfig;
use ch09::pipeline::PipeTrainer;
use ch09::step_trace::{self, Axis};
use tch::Kind;
use toolkit::mpi_test;

mpi_test! {
    fn the_trace_of_a_step_holds_each_groups_communication(world at &[8]) {
        let corpus = Corpus::book(&repository_root())?;
        let block = BlockConfig::new(4, 16, 24, 6)?; // a replica's 4 sequences of 16
        let cfg = GptConfig { vocab: corpus.vocab(), layers: 2, block };
        let grid = Grid::new(world, Layout::staged(2, 2, 2, 2, 8)?);
        let mut tr = PipeTrainer::new(&grid, cfg, 2, Kind::Float, 5, 0.01)?;
        tr.step(&corpus, 5, 1);
        step_trace::start(world);
        let stats = tr.step(&corpus, 5, 2);
        let spans = step_trace::stop();
        let on = |axis: Axis| spans.iter().filter(|s| s[0] as usize == axis as usize).count();
        let me = format!("rank (dp {}, tp {}, stage {})", grid.me.dp, grid.me.tp, grid.me.pp);
        let expected = [
            (Axis::Tp, stats.tp_calls.0),
            (Axis::Dp, stats.dp_calls.0),
            (Axis::Embedding, stats.embedding_calls.0),
        ];
        for (axis, calls) in expected {
            if on(axis) != calls || calls == 0 {
                return Err(format!("{me}: {} {axis:?} spans for {calls} allreduces", on(axis)));
            }
        }
        // Each stage sends m = 2 messages and receives 2 (stage 0: gradients in; 1: activations).
        if on(Axis::Pp) != 2 * stats.pp_sends.0 || stats.pp_sends.0 != 2 {
            return Err(format!("{me}: {} PP spans for {} sends", on(Axis::Pp), stats.pp_sends.0));
        }
        if spans.iter().any(|s| !(0.0 <= s[1] && s[1] <= s[2])) {
            return Err(format!("{me}: a span ends before it starts: {spans:?}"));
        }
        if let Some(ranks) = step_trace::gather(world, &spans) {
            let mine_again = &ranks[0];
            if ranks.len() != 8 || mine_again != &spans {
                return Err(format!("rank 0 gathered {} ranks' spans, its own changed", ranks.len()));
            }
            let json = step_trace::to_json("step 2", &ranks, |r| format!("rank {r}"));
            for track in ["rank 0: TP", "rank 3: DP", "rank 4: PP", "rank 7: embedding"] {
                if !json.contains(&format!("\"{track}\"")) {
                    return Err(format!("the trace has no track {track:?}"));
                }
            }
        }
        Ok(())
    }
}
