//! Given: a rank's shard [`Layout`] (from ex 8.1), the flat parameters that the model's
//! tensors live in ([`FlatParams`]), Adam over a slice ([`ShardAdam`]), and a saved
//! checkpoint's slices ([`saved_slice`], [`SliceCopy`]: ex 8.4's terms).
//!
//! ZeRO works on one flat buffer: the model's P parameters one after the other, padded
//! with zeros to N * S elements so that every rank's shard has the same length S (what
//! MPI_Reduce_scatter_block and MPI_Allgather need). Here the model's parameter tensors
//! are views into that buffer (PyTorch FSDP's "flat parameter"), so an allgather into it
//! updates the model with no copy.

use crate::layout;
use std::ops::Range;
use tch::{Device, Kind, Tensor};
use trainer_kit::optim::{Optimizer, Rule};

/// A part of one parameter tensor inside a shard: the tensor's index (in flat order) and
/// its elements in the shard (in the tensor's own element numbers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub tensor: usize,
    pub within: Range<usize>,
}

/// Where one rank's shard lies in the padded flat buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// P: the model's parameters (elements).
    pub params: usize,
    /// N: ranks sharing them.
    pub ranks: usize,
    /// This rank.
    pub rank: usize,
    /// S: elements per shard (ex 8.1's `shard_len`).
    pub shard: usize,
    /// N * S: the flat buffer's length, padding included.
    pub padded: usize,
    /// This rank's elements of the flat buffer (ex 8.1's `shard_range`).
    pub mine: Range<usize>,
}

impl Layout {
    /// The layout of `rank` among `ranks` sharing `params` parameters; refused by
    /// [`Layout::check`].
    pub fn new(params: usize, ranks: usize, rank: usize) -> Result<Layout, String> {
        Layout::check(params, ranks)?;
        let shard = layout::shard_len(params, ranks);
        Ok(Layout {
            params,
            ranks,
            rank,
            shard,
            padded: shard * ranks,
            mine: layout::shard_range(params, ranks, rank),
        })
    }

    /// Refuses no ranks, and more ranks than parameters (some rank would own nothing but
    /// padding, and its memory would not fall): one line that says what to do.
    pub fn check(params: usize, ranks: usize) -> Result<(), String> {
        if ranks == 0 {
            return Err("0 ranks: a shard layout needs at least one rank".into());
        }
        if ranks > params {
            return Err(format!(
                "{ranks} ranks for {params} parameters: sharding needs at least one \
                 parameter per rank (run at most {params} ranks)"
            ));
        }
        Ok(())
    }

    /// Zeros added after the last parameter: N * S - P.
    pub fn padding(&self) -> usize {
        self.padded - self.params
    }

    /// The real parameters of this rank's shard: [`Layout::mine`] without the padding
    /// (empty when the shard lies in the padding).
    pub fn real(&self) -> Range<usize> {
        self.mine.start.min(self.params)..self.mine.end.min(self.params)
    }
}

/// One copy of a reshard (ex 8.4): elements `src` of saved rank `from`'s slice (numbered
/// from the start of that slice) go to elements `dst` of the new shard (numbered from its
/// start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceCopy {
    pub from: usize,
    pub src: Range<usize>,
    pub dst: Range<usize>,
}

/// The real elements of the flat buffer that saved rank `q` of `saved_ranks` holds in a
/// sharded checkpoint of `params` parameters: its shard without the padding (empty if all
/// padding).
pub fn saved_slice(params: usize, saved_ranks: usize, q: usize) -> Range<usize> {
    let s = params.div_ceil(saved_ranks);
    (q * s).min(params)..((q + 1) * s).min(params)
}

/// The model's parameters as one padded flat f32 buffer on the CPU (or, with
/// [`FlatParams::new_on`], on a GPU): each parameter tensor is re-pointed at its part of it
/// (`set_data`), so the model reads what the buffer holds, and writing the buffer (an
/// allgather, Adam on a shard) updates the model.
pub struct FlatParams {
    flat: Tensor,
    /// The model's parameter tensors, in flat order (views into the buffer).
    pub params: Vec<Tensor>,
}

impl FlatParams {
    /// Moves `params` (CPU f32 tensors, in the order to flatten them) into one buffer of
    /// `padded` elements (the padding zeros), keeping their values.
    pub fn new(params: Vec<Tensor>, padded: usize) -> FlatParams {
        FlatParams::new_on(params, padded, Device::Cpu)
    }

    /// As [`FlatParams::new`], with the buffer (and so the model's tensors) on `device`.
    pub fn new_on(mut params: Vec<Tensor>, padded: usize, device: Device) -> FlatParams {
        let flat = Tensor::zeros([padded as i64], (Kind::Float, device));
        let mut offset = 0i64;
        for p in params.iter_mut() {
            let n = p.numel() as i64;
            let mut part = flat.narrow(0, offset, n).view(p.size().as_slice());
            tch::no_grad(|| {
                part.copy_(p);
                p.set_data(&part);
            });
            offset += n;
        }
        assert!(offset as usize <= padded, "FlatParams: {offset} > {padded}");
        FlatParams { flat, params }
    }

    /// Elements in the buffer (padding included).
    pub fn len(&self) -> usize {
        self.flat.numel()
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buffer as a tensor, on its device (`zero --device cuda`: the staged step).
    pub fn tensor(&self) -> &Tensor {
        &self.flat
    }

    /// The buffer as a slice, for MPI and for Adam (a CPU buffer only: a panic otherwise).
    pub fn values(&self) -> &[f32] {
        assert_eq!(
            self.flat.device(),
            Device::Cpu,
            "FlatParams::values: not on the CPU"
        );
        // SAFETY: `flat` is a contiguous CPU f32 tensor of `len()` elements that `self`
        // owns; the slice borrows `self`, so the buffer outlives it.
        unsafe { std::slice::from_raw_parts(self.flat.data_ptr() as *const f32, self.len()) }
    }

    /// The buffer as a mutable slice. The model's tensors see the writes (they are views).
    pub fn values_mut(&mut self) -> &mut [f32] {
        assert_eq!(
            self.flat.device(),
            Device::Cpu,
            "FlatParams::values_mut: not on the CPU"
        );
        // SAFETY: as in `values`; the `&mut self` borrow keeps every other Rust access to
        // the buffer out while the slice lives (the views are used only between steps).
        unsafe { std::slice::from_raw_parts_mut(self.flat.data_ptr() as *mut f32, self.len()) }
    }
}

/// Adam (the trainer kit's, PyTorch's update) over one slice of f32 values: its m and v
/// hold exactly `len` elements each, whatever slice it is given. A ZeRO rank makes one
/// for its shard (S elements); plain data parallelism one for the whole buffer.
pub struct ShardAdam {
    opt: Optimizer,
    len: usize,
}

impl ShardAdam {
    /// Adam with learning rate `lr` over `len` elements (its m and v zeros).
    pub fn new(lr: f64, len: usize) -> ShardAdam {
        ShardAdam::new_on(lr, len, Device::Cpu)
    }

    /// As [`ShardAdam::new`], with m and v on `device` (for [`ShardAdam::step_tensor`]).
    pub fn new_on(lr: f64, len: usize, device: Device) -> ShardAdam {
        let zeros = Tensor::zeros([len as i64], (Kind::Float, device));
        ShardAdam {
            opt: Optimizer::new(Rule::Adam { lr }, &[zeros]),
            len,
        }
    }

    /// Elements of m (and of v).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it covers no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of its state, measured: m and v as allocated.
    pub fn state_bytes(&self) -> usize {
        let elems: usize = self
            .opt
            .m
            .iter()
            .chain(&self.opt.v)
            .map(Tensor::numel)
            .sum();
        elems * std::mem::size_of::<f32>()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.opt.t
    }

    /// Copies of m and v ([`ShardAdam::len`] elements each): what a checkpoint saves.
    pub fn moments(&self) -> (Vec<f32>, Vec<f32>) {
        let copy = |t: &Tensor| Vec::<f32>::try_from(t.flatten(0, -1)).expect("f32 state");
        (copy(&self.opt.m[0]), copy(&self.opt.v[0]))
    }

    /// Restores m, v (each [`ShardAdam::len`] elements) and the step count, as saved.
    pub fn restore(&mut self, m: &[f32], v: &[f32], steps: u64) {
        assert!(
            m.len() == self.len && v.len() == self.len,
            "Adam restore: wrong length"
        );
        tch::no_grad(|| {
            self.opt.m[0].copy_(&Tensor::from_slice(m));
            self.opt.v[0].copy_(&Tensor::from_slice(v));
        });
        self.opt.t = steps;
    }

    /// One Adam update of `params` with `grads` (already averaged), in place. Both must
    /// hold exactly [`ShardAdam::len`] elements: a panic names the mismatch.
    pub fn step(&mut self, params: &mut [f32], grads: &[f32]) {
        assert!(
            params.len() == self.len && grads.len() == self.len,
            "Adam was given {} parameters and {} gradients, but its m and v hold {} \
             elements: step this rank's shard only (params[layout.mine.clone()] and the \
             averaged gradient shard)",
            params.len(),
            grads.len(),
            self.len
        );
        let view = |ptr: *const f32| {
            // SAFETY: `ptr` points at `self.len` contiguous f32 values of a slice that
            // outlives the view (dropped at the end of this call); Adam writes only the
            // parameters' view, which comes from the `&mut` slice.
            unsafe {
                Tensor::from_blob(
                    ptr as *const u8,
                    &[self.len as i64],
                    &[],
                    Kind::Float,
                    Device::Cpu,
                )
            }
        };
        let mut p = [view(params.as_ptr())];
        let g = [view(grads.as_ptr())];
        self.opt.step(&mut p, &g);
    }

    /// As [`ShardAdam::step`], on tensors of m and v's device: `params` (a view, updated in
    /// place) and `grads`, [`ShardAdam::len`] elements each.
    pub fn step_tensor(&mut self, params: &Tensor, grads: &Tensor) {
        assert!(
            params.numel() == self.len && grads.numel() == self.len,
            "Adam was given {} parameters and {} gradients for {} elements",
            params.numel(),
            grads.numel(),
            self.len
        );
        self.opt
            .step(&mut [params.shallow_clone()], &[grads.shallow_clone()]);
    }
}
