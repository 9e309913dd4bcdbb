# PyTorch's side of chapter 13's anchor: scaled_dot_product_attention (the fused CPU
# kernel) on the shapes of the Rust benchmark `attention_bench`: [1, heads, seq, head_dim],
# f32, causal or not, one thread; prints `MS <best of the repetitions, in ms>`.
# `--cp-probe`: instead, try PyTorch's context parallelism (torch.distributed.tensor.
# experimental.context_parallel) on the CPU under torchrun with gloo, and print one line:
# `CP ok` or `CP <the exception>`.
#
# Run: python3 scripts/anchors/attn_sdpa.py --seq 4096 --causal (scripts/anchors/attn_job.py
# runs it).

import argparse
import time

import torch
import torch.nn.functional as F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cp-probe", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(13)
    q, k, v = (torch.randn(1, a.heads, a.seq, a.head_dim) for _ in range(3))
    if a.cp_probe:
        return cp_probe(q, k, v, a.causal)
    with torch.no_grad():
        best = float("inf")
        for _ in range(a.reps):
            t = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
            best = min(best, time.perf_counter() - t)
    print(f"MS {1e3 * best:.3f}")


def cp_probe(q, k, v, causal):
    """One line: whether context_parallel runs SDPA here (CPU, gloo)."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.experimental import context_parallel
    dist.init_process_group("gloo")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    try:
        with context_parallel(mesh, buffers=[q, k, v], buffer_seq_dims=[2, 2, 2]):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        line = "CP ok"
    except Exception as e:  # the reason is what the probe reports
        line = f"CP {type(e).__name__}: {str(e).splitlines()[0]}"
    if dist.get_rank() == 0:
        print(line)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
