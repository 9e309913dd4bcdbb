//! Given: the start of the lab `gpt`: its first lines (the corpus, the model, the grid,
//! the device) and, with `--resume`, the checkpoint installed into a trainer of either
//! kind ([`crate::gpt_lab`], [`crate::gpt_lab_pipeline`]).
//!
//! Run: `make run CH=09 BIN=gpt SOLUTION=1` (`ARGS="--checkpoint DIR --resume"` resumes).

use crate::corpus::Corpus;
use crate::gpt::GptConfig;
use crate::gpt_ckpt_read;
use crate::gpt_ckpt_state::Checkpointed;
use crate::gpt_flags::GptFlags;
use crate::grid::Grid;
use crate::stage::stage_blocks;
use tch::Device;

/// With `--resume`: the checkpoint of `--checkpoint DIR` installed into `tr`, at any
/// layout, pipelined or not (checked before MPI started, by `GptFlags::check_resume`);
/// the step it was saved at (else 0).
pub fn resume(tr: &mut impl Checkpointed, f: &GptFlags, head: bool) -> Result<u64, String> {
    let (Some(dir), true) = (&f.common.checkpoint, f.common.resume) else {
        return Ok(0);
    };
    let saved = gpt_ckpt_read::open_for(dir, tr).map_err(|e| format!("--resume: {e}"))?;
    saved.install(tr)?;
    if head {
        println!(
            "resumed at step {} from {} ({} part{}: whole tensors, sliced for this grid)",
            saved.step,
            dir.display(),
            saved.parts.len(),
            if saved.parts.len() == 1 { "" } else { "s" }
        );
    }
    Ok(saved.step)
}

/// The run's first lines: the corpus, the model, the grid.
pub fn header(f: &GptFlags, corpus: &Corpus, grid: &Grid, cfg: &GptConfig, device: Device) {
    let (train, valid) = corpus.sizes();
    let b = &cfg.block;
    println!(
        "gpt: {} book pages, {train} characters to train on, {valid} to validate; V = {} characters (ln V = {:.3})",
        corpus.pages,
        corpus.vocab(),
        (corpus.vocab() as f64).ln()
    );
    println!(
        "model: {} blocks, h = {}, {} heads, MLP {}, context {}, head tied to the embedding; f32, Adam lr {}",
        cfg.layers, b.hidden, b.heads, b.ffn, b.seq, f.common.lr
    );
    println!(
        "grid: dp {} x tp {}{} over {} ranks (TP groups of consecutive ranks); global batch {} = {} a replica",
        grid.layout.dp,
        grid.layout.tp,
        match grid.layout.pp {
            1 => String::new(),
            pp => format!(" x pp {pp}"),
        },
        grid.layout.ranks(),
        b.batch * grid.layout.dp,
        b.batch
    );
    if let Device::Cuda(_) = device {
        println!(
            "device: each rank's GPU (its local rank mod the GPUs): parameters, activations and \
             Adam's state on it; the collectives staged through host memory"
        );
    }
    if grid.layout.pp > 1 || f.micro > 1 {
        let stages = (0..grid.layout.pp).map(|s| stage_blocks(cfg.layers, grid.layout.pp, s));
        let stages: Vec<String> = stages.map(|r| format!("{r:?}")).collect();
        println!(
            "pipeline: pp {} stages x dp {} x tp {} over {} ranks (TP innermost, PP outermost), blocks {}; GPipe over {} micro-batches of {}",
            grid.layout.pp, grid.layout.dp, grid.layout.tp, grid.layout.ranks(), stages.join(", "),
            f.micro, b.batch / f.micro
        );
    }
}
