//! Given: the lab `tp_block`: one block forward and backward at t ranks, against one
//! process, and what each rank holds and sends against the formulas of [`crate::counts`].

use crate::block::block_forward;
use crate::compare::{block_bound, max_diff};
use crate::counts::{activation_elements, allreduce_elements, params_per_rank, ALLREDUCES};
use crate::flags::{kind_name, LabConfig};
use crate::params::BlockParams;
use crate::tape::{backward_from, Tape};
use crate::tp::Tp;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use tabled::{Table, Tabled};
use tch::{Device, Tensor};
use toolkit::tally;

#[derive(Tabled)]
struct Row {
    #[tabled(rename = "rank")]
    rank: usize,
    #[tabled(rename = "parameters held")]
    params: String,
    #[tabled(rename = "activation B by formula (whole + sharded)")]
    activations: String,
    #[tabled(rename = "allreduces fwd")]
    forward: String,
    #[tabled(rename = "allreduces bwd")]
    backward: String,
}

/// The largest difference of the sharded run from one process's, and its bound, for the
/// output, the input's gradient and the worst parameter gradient (relative to its bound).
fn differences(
    cfg: &LabConfig,
    tp: &Tp,
    counts: &mut [i64; 6],
) -> Result<Vec<(String, f64, f64)>, String> {
    let b = &cfg.block;
    let (t, r) = (tp.size(), tp.rank());
    let whole = BlockParams::whole(b, cfg.kind, 7);
    let shape = [b.batch as i64, b.seq as i64, b.hidden as i64];
    tch::manual_seed(8);
    let x = Tensor::randn(shape, (cfg.kind, Device::Cpu)).set_requires_grad(true);
    let dy = Tensor::randn(shape, (cfg.kind, Device::Cpu));
    let want = crate::reference::block(&whole, b, &x);
    backward_from(&want, &dy);
    let want_grads = whole.grads().shard(b, t, r)?;
    let mine = whole.shard(b, t, r)?;
    let mut tape = Tape::new();
    tally::start();
    let y = block_forward(&mut tape, tp, &mine, b, &x.detach());
    let forward = tally::count(&tally::stop(), "MPI_Allreduce");
    tally::start();
    let dx = tape.backward(&y, &dy);
    let backward = tally::count(&tally::stop(), "MPI_Allreduce");
    *counts = [
        mine.numel() as i64,
        forward.0 as i64,
        forward.1,
        backward.0 as i64,
        backward.1,
        0,
    ];
    let bound = |reference: &Tensor| block_bound(reference, b.ffn);
    let got = mine.grads();
    let pairs = got.named().into_iter().zip(want_grads.named());
    let each = pairs.map(|((_, g), (_, w))| (max_diff(g, w), bound(w)));
    let (d, bd) = each.fold((0.0, f64::INFINITY), |worst, (d, bd)| {
        if d / bd > worst.0 / worst.1 || worst.1.is_infinite() {
            (d, bd)
        } else {
            worst
        }
    });
    let worst = ("parameter gradients (worst of 16)".to_string(), d, bd);
    Ok(vec![
        ("output".to_string(), max_diff(&y, &want), bound(&want)),
        (
            "input gradient".to_string(),
            max_diff(&dx, &x.grad()),
            bound(&x.grad()),
        ),
        worst,
    ])
}

/// The lab's body on every rank of `world` (the tensor-parallel group).
pub fn run(world: &SimpleCommunicator, cfg: &LabConfig) -> Result<(), String> {
    tch::set_num_threads(1);
    let tp = Tp::new(world);
    let (b, t) = (&cfg.block, tp.size());
    let elem = cfg.kind.elt_size_in_bytes() as i64;
    let mut mine = [0i64; 6];
    let ran = toolkit::gate::unless_todo(world, || differences(cfg, &tp, &mut mine));
    let diffs = ran.map_err(|task| crate::flags::not_done(&task))??;
    // The worst difference over the ranks (each compared its own shard).
    let local: Vec<f64> = diffs.iter().map(|d| d.1).collect();
    let mut worst = vec![0.0; local.len()];
    world.all_reduce_into(
        &local[..],
        &mut worst[..],
        mpi::collective::SystemOperation::max(),
    );
    let mut all = vec![0i64; 6 * t];
    world.all_gather_into(&mine[..], &mut all[..]);
    let fails = diffs.iter().zip(&worst).any(|(d, w)| *w > d.2);
    if world.rank() != 0 {
        return if fails {
            Err("beyond the bound".into())
        } else {
            Ok(())
        };
    }
    println!(
        "tp_block: one transformer block at t = {t}, {}: b = {}, s = {}, h = {}, {} heads, MLP {}",
        kind_name(cfg.kind),
        b.batch,
        b.seq,
        b.hidden,
        b.heads,
        b.ffn
    );
    println!("against one process (the largest difference over the ranks; bound 8 F u max(1, max|reference|), F = {}):", b.ffn);
    for ((what, _, bound), w) in diffs.iter().zip(&worst) {
        let verdict = if *w <= *bound {
            "ok"
        } else {
            "BEYOND THE BOUND"
        };
        println!("  {what:<36} {w:.2e}  bound {bound:.2e}  {verdict}");
    }
    let (whole, sharded) = activation_elements(b, t);
    let per = allreduce_elements(b) as i64;
    let rows: Vec<Row> = all
        .chunks(6)
        .enumerate()
        .map(|(rank, c)| Row {
            rank,
            params: format!("{} (formula {})", c[0], params_per_rank(b, t)),
            activations: format!("{} + {}", whole as i64 * elem, sharded as i64 * elem),
            forward: format!("{} x {} B", c[1], c[2] / c[1].max(1)),
            backward: format!("{} x {} B", c[3], c[4] / c[3].max(1)),
        })
        .collect();
    println!("{}", Table::new(rows));
    println!(
        "formulas: parameters (4h² + 2hF)/t + (3h + F)/t + 6h; activations 6bsh + (4bsh + 2bas² + 2bsF)/t \
         elements (x {elem} B); allreduces {} forward and {} backward, b*s*h = {per} elements ({} B) each",
        ALLREDUCES.0,
        ALLREDUCES.1,
        per * elem
    );
    match fails {
        true => Err("the sharded block is beyond the bound of one process's".into()),
        false => Ok(()),
    }
}
