//! Given: one training step of the GPT on a DP x TP x PP grid: GPipe over `m`
//! micro-batches on each pipeline, the tied table's gradients summed over the embedding
//! group, the gradients averaged over the DP group, Adam on the stage's shard.
//!
//! A replica's rows of the global batch are split into `m` micro-batches of `b / m`
//! sequences. GPipe: all `m` forwards, then all `m` backwards (the last micro-batch
//! first). A forward on stage s receives the activations `[b/m, s, h]` from stage s - 1
//! (unless first), runs the stage ([`crate::stage::stage_forward`], its TP allreduces
//! inside) and sends its output to stage s + 1 (unless last), keeping its tape; the last
//! stage computes the micro-batch's cross-entropy instead. A backward receives its
//! output's gradient from s + 1 (the last stage takes the cross-entropy's, divided by
//! `m`: the batch's loss is the mean of the micro-batches' means), runs the tape backward
//! (the graph was cut where the activations arrived, as chapter 7's executor cuts it) and
//! sends its input's gradient to s - 1 (unless first). The parameters' gradients
//! accumulate over the micro-batches: their sum is the whole batch's gradient. The
//! messages go through [`crate::pipe::Pipe`] (tag: the micro-batch, `m +` it backward):
//! each send is completed by the next receive, as in chapter 7's executor.

use crate::corpus::Corpus;
use crate::gpt::{GptConfig, GptParams};
use crate::grid::Grid;
use crate::pipe::Pipe;
use crate::sample::draw;
use crate::shards::vocab_range;
use crate::stage::{stage_forward, StageInput, StageParams};
use crate::step_trace::Axis;
use crate::tape::Tape;
use crate::tp::Tp;
use crate::train::{average_over_replicas, mean_over, replica_batch, zero_grads, StepStats};
use crate::vocab::cross_entropy;
use tch::{Kind, Tensor};
use trainer_kit::optim::{Optimizer, Rule};
use trainer_kit::rng::SplitMix64;

/// `Err` in one line unless `micro` micro-batches split a replica's `batch` sequences.
pub fn check_micro(batch: usize, micro: usize) -> Result<(), String> {
    match micro > 0 && batch.is_multiple_of(micro) {
        true => Ok(()),
        false => Err(format!(
            "--micro {micro} does not split a replica's {batch} sequences into equal micro-batches"
        )),
    }
}

/// One micro-batch's forward, kept for its backward.
struct Pending<'a> {
    tape: Tape<'a>,
    out: Tensor,
    /// The last stage's gradient of its logits (for the loss / m); `None` elsewhere.
    dout: Option<Tensor>,
}

/// This rank's stage of the model, its optimizer, and the groups it trains on.
pub struct PipeTrainer<'g> {
    pub grid: &'g Grid,
    pub tp: Tp<'g>,
    pub dp: Tp<'g>,
    pub pipe: Pipe<'g>,
    embedding: Option<Tp<'g>>,
    pub cfg: GptConfig,
    /// Micro-batches per step.
    pub micro: usize,
    pub params: StageParams,
    kind: Kind,
    /// Adam over `params.named()`'s tensors (its m, v and step count: the checkpoints').
    pub opt: Optimizer,
}

impl<'g> PipeTrainer<'g> {
    /// This rank's stage of its shard of the model drawn from `seed` in `kind`
    /// (`cfg.block.batch`: one replica's batch, split in `micro`), with Adam at `lr`.
    pub fn new(
        grid: &'g Grid,
        cfg: GptConfig,
        micro: usize,
        kind: Kind,
        seed: i64,
        lr: f64,
    ) -> Result<Self, String> {
        check_micro(cfg.block.batch, micro)?;
        let (tp, dp, pipe) = (
            Tp::new(&grid.tp),
            Tp::on(&grid.dp, Axis::Dp),
            Pipe::new(&grid.pp),
        );
        let shard = GptParams::whole(&cfg, kind, seed).shard(&cfg, tp.size(), tp.rank())?;
        let params = StageParams::of(shard, &cfg, grid.layout.pp, grid.me.pp);
        let opt = Optimizer::new(Rule::Adam { lr }, &params.tensors());
        let embedding = grid.embedding.as_ref().map(|g| Tp::on(g, Axis::Embedding));
        Ok(PipeTrainer {
            grid,
            tp,
            dp,
            pipe,
            embedding,
            cfg,
            micro,
            params,
            kind,
            opt,
        })
    }

    /// The global batch (over the replicas).
    pub fn global_batch(&self) -> usize {
        self.cfg.block.batch * self.grid.layout.dp
    }

    /// The `m` forwards of GPipe on this stage over `x`, `y` (a replica's rows): their
    /// tapes, and on the last stage the sum of the micro-batches' losses.
    fn forwards(&self, x: &Tensor, y: &Tensor, m: usize) -> (Vec<Pending<'_>>, f64) {
        let (stage, last) = (self.pipe.stage(), self.pipe.last());
        let (x, y) = (&self.tp.local_tokens(x), &self.tp.local_tokens(y));
        let mb = x.size()[0] / m as i64;
        let (s, h) = (x.size()[1], self.cfg.block.hidden as i64);
        let ids = vocab_range(self.cfg.vocab, self.tp.size(), self.tp.rank());
        let (mut kept, mut loss) = (vec![], 0.0);
        for j in 0..m {
            let (xj, yj) = (
                x.narrow(0, j as i64 * mb, mb),
                y.narrow(0, j as i64 * mb, mb),
            );
            let mut tape = Tape::new();
            let received =
                (stage > 0).then(|| self.pipe.recv(&[mb, s, h], self.kind, stage - 1, j as i32));
            let input = match &received {
                Some(a) => StageInput::Activations(a),
                None => StageInput::Tokens(&xj),
            };
            let out = stage_forward(&mut tape, &self.tp, &self.params, &self.cfg, input);
            if !last {
                self.pipe.send(&out, stage + 1, j as i32);
                kept.push(Pending {
                    tape,
                    out,
                    dout: None,
                });
                continue;
            }
            let flat = out.view([-1, ids.len() as i64]);
            let (l, dlogits) = cross_entropy(&self.tp, &flat, ids.clone(), &yj.view([-1]));
            loss += l.double_value(&[]);
            let dout = Some(dlogits / m as f64);
            kept.push(Pending {
                tape,
                out: flat,
                dout,
            });
        }
        (kept, loss)
    }

    /// GPipe's `m` backwards, the last micro-batch first.
    fn backwards(&self, mut kept: Vec<Pending<'_>>) {
        let (stage, m) = (self.pipe.stage(), kept.len());
        for j in (0..m).rev() {
            let p = kept.pop().expect("one forward per micro-batch");
            let tag = (m + j) as i32;
            let dout = match p.dout {
                Some(d) => d,
                None => self.pipe.recv(&p.out.size(), self.kind, stage + 1, tag),
            };
            let dx = p.tape.backward(&p.out, &dout);
            if stage > 0 {
                self.pipe.send(&dx, stage - 1, tag);
            }
        }
    }

    /// Step `step` on the batch drawn from `seed`; the stage's summed and averaged
    /// gradients are left in its `.grad()` (the checks read them), then Adam updates it.
    pub fn step(&mut self, corpus: &Corpus, seed: u64, step: u64) -> StepStats {
        let (x, y) = replica_batch(corpus, self.grid, &self.cfg, seed, step);
        let mut tensors = self.params.tensors();
        zero_grads(&mut tensors);
        self.pipe.take_sent();
        toolkit::tally::start();
        let (kept, loss) = self.forwards(&x, &y, self.micro);
        self.backwards(kept);
        self.pipe.flush();
        let tp_log = toolkit::tally::stop();
        let pp_sends = self.pipe.take_sent();
        let loss = self.pipe.from_last(loss / self.micro as f64);
        toolkit::tally::start();
        if let (Some(group), Some(tok)) = (&self.embedding, &self.params.tok) {
            let mut g = tok.grad(); // the two copies' gradients summed, in place
            let both = group.sum(&g);
            tch::no_grad(|| g.copy_(&both));
        }
        let embedding_log = toolkit::tally::stop();
        let grads: Vec<Tensor> = tensors.iter().map(Tensor::grad).collect();
        toolkit::tally::start();
        average_over_replicas(&self.dp, &grads);
        let dp_log = toolkit::tally::stop();
        self.opt.step(&mut tensors, &grads);
        let count =
            |log: &[toolkit::tally::Collective]| toolkit::tally::count(log, "MPI_Allreduce");
        StepStats {
            loss,
            tp_calls: count(&tp_log),
            dp_calls: count(&dp_log),
            pp_sends,
            embedding_calls: count(&embedding_log),
        }
    }

    /// The mean cross-entropy of `targets` after `tokens` (a replica's rows), no backward,
    /// the batch whole through the stages: the same on every stage.
    pub fn loss_only(&self, tokens: &Tensor, targets: &Tensor) -> f64 {
        let loss = tch::no_grad(|| self.forwards(tokens, targets, 1).1);
        let loss = self.pipe.from_last(loss); // the owed send completed first
        self.pipe.take_sent(); // not the step's
        loss
    }

    /// `loss` (one replica's) averaged over the DP group: the global batch's loss.
    pub fn mean_over_replicas(&self, loss: f64) -> f64 {
        mean_over(&self.dp, loss)
    }

    /// `prompt` followed by `n` tokens drawn at `temperature` from `seed`: each token's
    /// context forward through the stages, drawn on the last stage
    /// ([`crate::sample::draw`]) and broadcast from it, the same on every rank.
    pub fn generate(&self, prompt: &[i64], n: usize, temperature: f64, seed: u64) -> Vec<i64> {
        let (stage, last) = (self.pipe.stage(), self.pipe.last());
        let h = self.cfg.block.hidden as i64;
        let mut rng = SplitMix64(seed);
        let mut text = prompt.to_vec();
        for _ in 0..n {
            let from = text.len().saturating_sub(self.cfg.block.seq);
            let context = Tensor::from_slice(&text[from..]).view([1, -1]);
            let shape = [1, context.size()[1], h];
            let received = (stage > 0).then(|| self.pipe.recv(&shape, self.kind, stage - 1, 0));
            let input = match &received {
                Some(a) => StageInput::Activations(a),
                None => StageInput::Tokens(&context),
            };
            let out = tch::no_grad(|| {
                stage_forward(&mut Tape::new(), &self.tp, &self.params, &self.cfg, input)
            });
            let mut pick = 0i64;
            match last {
                true => pick = draw(&self.tp, &self.cfg, &out, temperature, &mut rng),
                false => self.pipe.send(&out, stage + 1, 0),
            }
            text.push(self.pipe.from_last(pick));
        }
        self.pipe.take_sent();
        text
    }
}
