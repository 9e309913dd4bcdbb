# PyTorch mirror of chapter 14's `mixed` lab at one rank (chapters/ch14-precision/src/
# trainer.rs and weights.rs): chapter 6's CNN on the shipped digits, global batch 48 in the
# lab's order (shuffle::shuffled(len, seed, epoch), consecutive slices), SGD with momentum
# on f32 weights, in f32, bf16 or f16, one of two ways:
#   --mode autocast: PyTorch's way, torch.autocast("cpu", dtype) around the forward pass,
#                    f16 under torch.amp.GradScaler (init_scale 2^16, growth_interval 100);
#   --mode master:   the lab's way, a working copy of the model in the format, the logits
#                    cast to f32 for the loss, an f32 master copy stepped by the optimizer
#                    and rounded back into the working copy; f16 under the same scaler's
#                    rules written out (halve and skip on an inf or NaN, double after 100
#                    clean steps).
# Part of `make anchors` (scripts/anchors/amp_job.py); alone:
#   python3 scripts/anchors/amp_cnn.py --precision bf16 --mode autocast
# Prints `MS <mean ms per step>`, `ACCURACY <test %>`, `SKIPPED <n>`.

import argparse
import copy
import gzip
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from ddp_cnn import Cnn, shuffled

FORMATS = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def digits(data):
    """data::digits: (train images, train labels, test images, test labels)."""
    with gzip.open(os.path.join(data, "digits/digits.csv.gz"), "rt") as f:
        rows = np.array([[float(v) for v in l.split(",")] for l in f if l.strip()])
    images = torch.from_numpy((rows[:, :64] / 16.0).astype(np.float32)).view(-1, 1, 8, 8)
    labels = torch.from_numpy(rows[:, 64].astype(np.int64))
    order = torch.tensor(shuffled(len(labels), 2024, 0))
    cut = len(order) - len(order) // 5
    return images[order[:cut]], labels[order[:cut]], images[order[cut:]], labels[order[cut:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--precision", choices=list(FORMATS), default="bf16")
    ap.add_argument("--mode", choices=["autocast", "master"], default="autocast")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=48)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args()
    dtype = FORMATS[args.precision]
    here = os.path.dirname(os.path.abspath(__file__))
    x_train, y_train, x_test, y_test = digits(os.path.join(here, "../../data"))
    torch.manual_seed(args.seed)
    model = Cnn()
    per_epoch = len(y_train) // args.batch
    orders = [shuffled(len(y_train), args.seed, e) for e in range(args.epochs)]
    f16 = dtype == torch.float16
    skipped = 0
    if args.mode == "autocast":
        opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=100,
                                      enabled=f16)
    else:
        master = [p.detach().clone() for p in model.parameters()]
        working = copy.deepcopy(model).to(dtype)
        opt = torch.optim.SGD(master, lr=args.lr, momentum=0.9)
        scale, clean = (2.0**16 if f16 else 1.0), 0
    start = time.perf_counter()
    for epoch, order in enumerate(orders):
        for s in range(per_epoch):
            idx = torch.tensor(order[s * args.batch:(s + 1) * args.batch])
            x, y = x_train.index_select(0, idx), y_train.index_select(0, idx)
            if args.mode == "autocast":
                opt.zero_grad()
                with torch.autocast("cpu", dtype=dtype, enabled=dtype != torch.float32):
                    logits = model(x)
                scaler.scale(F.cross_entropy(logits.float(), y)).backward()
                before = scaler.get_scale() if f16 else 1.0
                scaler.step(opt)
                scaler.update()
                skipped += int(f16 and scaler.get_scale() < before)
                continue
            working.zero_grad()
            loss = F.cross_entropy(working(x.to(dtype)).float(), y)
            (loss * scale).backward()
            grads = [p.grad.float() for p in working.parameters()]
            if f16 and not all(torch.isfinite(g).all() for g in grads):
                scale, clean, skipped = scale / 2, 0, skipped + 1
                continue
            for m, g in zip(master, grads):
                m.grad = g / scale
            opt.step()
            with torch.no_grad():
                for w, m in zip(working.parameters(), master):
                    w.copy_(m)
            clean += 1
            if f16 and clean == 100:
                scale, clean = scale * 2, 0
    ms = (time.perf_counter() - start) * 1e3 / (per_epoch * args.epochs)
    net = model if args.mode == "autocast" else working
    with torch.no_grad(), torch.autocast("cpu", dtype=dtype,
                                         enabled=args.mode == "autocast" and dtype != torch.float32):
        x = x_test if args.mode == "autocast" else x_test.to(dtype)
        right = (net(x).float().argmax(1) == y_test).sum().item()
    print(f"MS {ms:.4f}")
    print(f"ACCURACY {100.0 * right / len(y_test):.1f}")
    print(f"SKIPPED {skipped}")


if __name__ == "__main__":
    main()
