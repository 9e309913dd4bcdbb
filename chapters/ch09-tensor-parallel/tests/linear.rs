//! Checks of exercise 9.3 (the column- and row-parallel layers) at t = 1..4 ranks, in
//! f64: the shards against the whole weight's rows and columns; the column-parallel
//! forward within one reordered dot product (each output feature is the same dot product
//! as in one process, but LibTorch's matrix kernel may order its K terms differently for
//! a narrower weight: 3.6e-15 apart on an AMD EPYC, bit for bit elsewhere); the
//! row-parallel forward within `compare::row_bound` element by element (the
//! allreduce sums the partial products in another order), its bias counted once; both
//! backwards (through f, and through g) against one process's gradients.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main linear::`.

use crate::common;

use crate::common::{close, drawn, RANKS};
use ch09::compare::{block_bound, max_diff, row_bound};
use ch09::linear::{column_forward, column_shard, row_forward, row_shard};
use ch09::tape::{backward_from, Tape};
use ch09::tp::Tp;
use tch::{Kind, Tensor};
use toolkit::mpi_test;

const IN: i64 = 24;
const OUT: i64 = 36; // divided by 1, 2, 3, 4
const TOKENS: i64 = 10;

/// A layer `[OUT, IN]`, its bias, an input and an output gradient, the same on every rank.
fn layer(out: i64, inp: i64) -> (Tensor, Tensor, Tensor, Tensor) {
    let k = Kind::Double;
    let w = drawn(&[out, inp], k, 1).set_requires_grad(true);
    let b = drawn(&[out], k, 2).set_requires_grad(true);
    let x = drawn(&[TOKENS, inp], k, 3).set_requires_grad(true);
    let dy = drawn(&[TOKENS, out], k, 4);
    (w, b, x, dy)
}

/// How far two orders of the sums over the tokens in a weight's gradient `dy^T x` may
/// differ (the largest element of `compare::row_bound`; LibTorch reduces a narrower `dy`
/// in another order): for `x` = ones, the bias's gradient.
fn token_sum_bound(dy: &Tensor, x: &Tensor) -> f64 {
    row_bound(&dy.tr(), &x.tr()).max().double_value(&[])
}

/// A new leaf that requires grad, with `t`'s values.
fn leaf(t: &Tensor) -> Tensor {
    t.detach().copy().set_requires_grad(true)
}

mpi_test! {
    fn ex9_3_column_parallel_is_the_whole_layers_columns(world at RANKS) {
        let tp = Tp::new(world);
        let (r, t) = (tp.rank(), tp.size());
        let (w, b, x, dy) = layer(OUT, IN);
        let cols = common::even(OUT as usize, t, r);
        let (c0, n) = (cols.start as i64, cols.len() as i64);
        let (ws, bs) = column_shard(&w, &b, cols.clone());
        common::close("the column shard of W", &tp, &ws, &w.narrow(0, c0, n), 0.0)
            .map_err(|e| format!("{e}: rank r keeps W's rows (output features) {cols:?}"))?;
        close("the column shard of b", &tp, &bs, &b.narrow(0, c0, n), 0.0)?;
        // One process: the whole layer, its gradients.
        let want = x.linear(&w, Some(&b));
        backward_from(&want, &dy);
        // Rank r: its columns from the whole input, through f.
        let (ws, bs, xs) = (leaf(&ws), leaf(&bs), leaf(&x));
        let mut tape = Tape::new();
        let xf = tape.f(&tp, &xs);
        let got = column_forward(&xf, &ws, &bs);
        // The same IN products and the bias, which a kernel may sum in another order:
        // the bound of two orders of that sum ([x 1] against [W b]).
        let ones = x.ones_like().narrow(1, 0, 1);
        let (x1, wb) = (Tensor::cat(&[&x, &ones], 1), Tensor::cat(&[&w, &b.unsqueeze(1)], 1));
        let dot_bound = row_bound(&x1, &wb).max().double_value(&[]);
        close("the column-parallel output", &tp, &got, &want.narrow(1, c0, n), dot_bound)?;
        let dx = tape.backward(&got, &dy.narrow(1, c0, n));
        let (dw_bound, db_bound) = (token_sum_bound(&dy, &x), token_sum_bound(&dy, &x.ones_like()));
        close("the gradient of W's rows", &tp, &ws.grad(), &w.grad().narrow(0, c0, n), dw_bound)?;
        close("the gradient of b's elements", &tp, &bs.grad(), &b.grad().narrow(0, c0, n), db_bound)?;
        // dx sums over the output features: t partial sums, in another order.
        let bound = row_bound(&dy, &w.tr()).max().double_value(&[]);
        close("the input's gradient (after f's sum)", &tp, &dx, &x.grad(), bound)
    }
}

mpi_test! {
    fn ex9_3_row_parallel_sums_partials_and_adds_the_bias_once(world at RANKS) {
        let tp = Tp::new(world);
        let (r, t) = (tp.rank(), tp.size());
        let (w, b, x, dy) = layer(IN, OUT); // the input features OUT are split
        let rows = common::even(OUT as usize, t, r);
        let (r0, n) = (rows.start as i64, rows.len() as i64);
        let ws = row_shard(&w, rows.clone());
        close("the row shard of W", &tp, &ws, &w.narrow(1, r0, n), 0.0)
            .map_err(|e| format!("{e}: rank r keeps W's columns (input features) {rows:?}"))?;
        let want = x.linear(&w, Some(&b));
        backward_from(&want, &dy);
        // Rank r: its input features (a column-parallel layer's output), through g.
        let (ws, bs, xs) = (leaf(&ws), leaf(&b), leaf(&x.narrow(1, r0, n)));
        let mut tape = Tape::new();
        let got = row_forward(&mut tape, &tp, &xs, &ws, &bs);
        let bound = row_bound(&x, &w);
        let over = (&got - &want).abs() - &bound;
        let worst = over.max().double_value(&[]);
        if worst > 0.0 {
            let off = max_diff(&(&got - &want), &((t as f64 - 1.0) * &b.detach()));
            let hint = match t > 1 && off <= block_bound(&want, OUT as usize) {
                true => ": off by (t - 1) x b, the bias added on every rank before the sum (add it once, after g)",
                false => "",
            };
            return Err(format!(
                "rank {r} of {t}: your row_forward's output is {worst:.3e} beyond 2 γ_K |x||W|^T{hint}"
            ));
        }
        let _partials_grad = tape.backward(&got, &dy);
        let (dw_bound, db_bound) = (token_sum_bound(&dy, &x), token_sum_bound(&dy, &x.ones_like()));
        close("the gradient of W's columns", &tp, &ws.grad(), &w.grad().narrow(1, r0, n), dw_bound)?;
        close("the gradient of b (whole, on every rank)", &tp, &bs.grad(), &b.grad(), db_bound)?;
        // dx = dy W sums over the output features, whole on every rank: the same sums.
        let dx_bound = row_bound(&dy, &w.tr()).max().double_value(&[]);
        close("the gradient of this rank's input features", &tp, &xs.grad(), &x.grad().narrow(1, r0, n), dx_bound)
    }
}
