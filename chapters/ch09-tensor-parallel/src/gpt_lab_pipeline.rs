//! Given: the lab `gpt` on a DP x TP x PP grid (`--pp`, `--micro`): the same loop as
//! [`crate::gpt_lab`] on a [`PipeTrainer`]; then, per rank, the parameters its stage
//! holds and one step's bytes on each communicator (TP, DP, PP, the embedding group)
//! against the formulas of [`crate::counts`], and a sample drawn through the stages.

use crate::corpus::Corpus;
use crate::counts::{gpt_stage_params, gpt_stage_sends, gpt_stage_tp_allreduces};
use crate::gpt::GptConfig;
use crate::gpt_flags::GptFlags;
use crate::gpt_lab::{train, LabTrainer};
use crate::grid::{Grid, Layout};
use crate::pipeline::PipeTrainer;
use crate::shards::vocab_range;
use crate::stage::stage_blocks;
use crate::train::StepStats;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tabled::{Table, Tabled};
use tch::{Kind, Tensor};

impl LabTrainer for PipeTrainer<'_> {
    fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats {
        PipeTrainer::step(self, corpus, seed, step)
    }
    fn mean_over_replicas(&self, loss: f64) -> f64 {
        PipeTrainer::mean_over_replicas(self, loss)
    }
    fn shape(&self) -> (usize, usize, usize, usize) {
        let g = self.grid;
        (
            self.global_batch(),
            self.cfg.block.seq,
            g.layout.dp,
            g.me.dp,
        )
    }
    fn loss_only(&self, x: &Tensor, y: &Tensor) -> f64 {
        PipeTrainer::loss_only(self, x, y)
    }
    fn layout(&self) -> Layout {
        self.grid.layout
    }
    fn save(
        &self,
        world: &SimpleCommunicator,
        dir: &std::path::Path,
        step: u64,
    ) -> Result<(), String> {
        crate::gpt_ckpt::save(world, self, dir, step) // a part per stage
    }
}

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "rank (dp, tp, pp)")]
    rank: String,
    #[tabled(rename = "parameters held")]
    params: String,
    #[tabled(rename = "TP allreduces")]
    tp: String,
    #[tabled(rename = "DP allreduce")]
    dp: String,
    #[tabled(rename = "PP sends")]
    pp: String,
    #[tabled(rename = "embedding group")]
    embedding: String,
}

/// One rank's row: what it measured (`c`: parameters, then calls and bytes on TP, DP, PP
/// and the embedding group) next to the formulas.
fn row(cfg: &GptConfig, layout: Layout, micro: usize, rank: usize, c: &[i64]) -> Row {
    let elem = Kind::Float.elt_size_in_bytes() as i64;
    let at = layout.coords(rank);
    let ends = (at.pp == 0, at.pp + 1 == layout.pp);
    let blocks = stage_blocks(cfg.layers, layout.pp, at.pp);
    let v_r = vocab_range(cfg.vocab, layout.tp, at.tp).len();
    let held = gpt_stage_params(cfg, layout.tp, v_r, blocks.len(), ends);
    let (tp_n, tp_e) = gpt_stage_tp_allreduces(cfg, blocks.len(), ends, micro);
    let (pp_n, pp_e) = gpt_stage_sends(cfg, ends, micro);
    let shared = layout.pp > 1 && (ends.0 || ends.1);
    let (emb_n, emb_e) = (
        usize::from(shared),
        usize::from(shared) * v_r * cfg.block.hidden,
    );
    let pair = |n: i64, b: i64, fn_: usize, fe: usize| {
        format!("{n}, {b} B ({fn_}, {} B)", fe as i64 * elem)
    };
    Row {
        rank: format!("{rank} ({}, {}, {})", at.dp, at.tp, at.pp),
        params: format!("{} ({held}; blocks {blocks:?})", c[0]),
        tp: pair(c[1], c[2], tp_n, tp_e),
        dp: pair(c[3], c[4], 1, held),
        pp: pair(c[5], c[6], pp_n, pp_e),
        embedding: pair(c[7], c[8], emb_n, emb_e),
    }
}

/// The lab's body on every rank of `world` at `--pp` > 1 or `--micro` > 1 (after the
/// header).
pub fn run(
    world: &SimpleCommunicator,
    f: &GptFlags,
    corpus: &Corpus,
    grid: &Grid,
    cfg: GptConfig,
) -> Result<(), String> {
    let head = world.rank() == 0;
    let seed = f.common.seed;
    let ran = toolkit::gate::unless_todo(world, || -> Result<_, String> {
        let mut tr = PipeTrainer::new(grid, cfg, f.micro, Kind::Float, seed as i64, f.common.lr)?;
        let start = crate::gpt_lab_start::resume(&mut tr, f, head)?;
        let last = train(world, &mut tr, f, corpus, start)?;
        let text = tr.generate(&corpus.encode(&f.prompt)?, f.sample, 0.8, seed);
        Ok((tr.params.numel(), last, corpus.decode(&text)))
    });
    let (numel, s, text) = ran.map_err(|task| crate::flags::not_done(&task))??;
    let mine = [
        numel as i64,
        s.tp_calls.0 as i64,
        s.tp_calls.1,
        s.dp_calls.0 as i64,
        s.dp_calls.1,
        s.pp_sends.0 as i64,
        s.pp_sends.1,
        s.embedding_calls.0 as i64,
        s.embedding_calls.1,
    ];
    let layout = grid.layout;
    let mut all = vec![0i64; mine.len() * layout.ranks()];
    world.all_gather_into(&mine[..], &mut all[..]);
    if !head {
        return Ok(());
    }
    let rows = all.chunks(mine.len()).enumerate();
    let rows: Vec<Row> = rows
        .map(|(r, c)| row(&cfg, layout, f.micro, r, c))
        .collect();
    println!("one step, per rank: measured (formula); calls, bytes");
    println!("{}", Table::new(rows));
    let b = &cfg.block;
    println!(
        "formulas: parameters [V_r h] + [s h] + L_s [block's] + [2h] (first stage: table, positions; last: table, final norm); \
         TP m (e + 4 L_s + 4 f) calls, (e + 4 L_s + f) n h + 3 f n elements, n = {} tokens a replica; \
         PP m sends each way across each boundary, 2 m (b/m) s h = {} elements a boundary; \
         embedding group: the first and last stage's V_r h table gradients, summed (x {} B)",
        b.batch * b.seq,
        2 * b.batch * b.seq * b.hidden,
        Kind::Float.elt_size_in_bytes()
    );
    println!("sample (temperature 0.8, seed {seed}, through the stages), each line indented:");
    for line in text.lines() {
        println!("    {line}");
    }
    Ok(())
}
