#!/usr/bin/env python3
"""Assemble a libtorch folder from PyPI wheels (no CUDA downloads).

Usage: fetch_libtorch.py [--cuda] VERSION DEST CACHE

Without --cuda: the CPU libraries (what `make setup` puts in ./libtorch).
With --cuda: also libtorch_cuda.so and libc10_cuda.so and the real libtorch.so, to BUILD
binaries that use a GPU (`make gpu-kit`). The NVIDIA libraries those need (cuBLAS, cuDNN,
NCCL: gigabytes) are not fetched: the GPU machine has them, and the binaries find them
there at run time, so this folder links but does not run CUDA code on this machine.

The torch wheel on PyPI carries a complete libtorch under torch/lib and torch/include.
We take the CPU libraries and headers. libtorch_cpu.so also lists libcudart.so.13 and
libcupti.so.13 as needed, so we take those two small libraries from their own wheels.
The wheel's libtorch.so only forwards to libtorch_cuda.so: it is replaced by an empty
stub. torch-sys checks the version only if build-version exists, so it is written.
libtorch_cpu.so has RPATH $ORIGIN: the stubs and libgomp next to it are found at run time.
"""
import glob
import os
import shutil
import subprocess
import sys
import zipfile

CUDA_RUNTIME = {"nvidia-cuda-runtime": "13.0.96", "nvidia-cuda-cupti": "13.0.85"}
TORCH_LIBS = ["libtorch_cpu.so", "libc10.so", "libgomp.so.1"]
TORCH_CUDA_LIBS = ["libtorch_cuda.so", "libc10_cuda.so", "libtorch_nvshmem.so", "libtorch.so"]
CUDA_LIBS = ["libcudart.so.13", "libcupti.so.13"]


def download(cache, requirement):
    os.makedirs(cache, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", cache, requirement]
    subprocess.run(cmd, check=True)


def wheel(cache, prefix):
    found = sorted(glob.glob(os.path.join(cache, prefix + "-*.whl")))
    if not found:
        sys.exit(f"fetch_libtorch: no {prefix} wheel in {cache}")
    return found[-1]


def main():
    args = sys.argv[1:]
    cuda = "--cuda" in args
    version, dest, cache = [a for a in args if a != "--cuda"][:3]
    torch_wheel = glob.glob(os.path.join(cache, f"torch-{version}-*.whl"))
    if not torch_wheel:
        print(f"fetch_libtorch: downloading torch=={version} from PyPI (~530 MB)", flush=True)
        download(cache, f"torch=={version}")
    for name, v in CUDA_RUNTIME.items():
        if not glob.glob(os.path.join(cache, name.replace("-", "_") + f"-{v}-*.whl")):
            download(cache, f"{name}=={v}")

    tmp = dest + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "lib"))
    with zipfile.ZipFile(wheel(cache, f"torch-{version}")) as z:
        for member in z.namelist():
            if member.startswith("torch/include/") and not member.endswith("/"):
                target = os.path.join(tmp, member[len("torch/"):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(member) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
        for lib in TORCH_LIBS + (TORCH_CUDA_LIBS if cuda else []):
            with z.open("torch/lib/" + lib) as src, open(os.path.join(tmp, "lib", lib), "wb") as out:
                shutil.copyfileobj(src, out)
    for name, v in CUDA_RUNTIME.items():
        with zipfile.ZipFile(wheel(cache, name.replace("-", "_") + f"-{v}")) as z:
            for member in z.namelist():
                base = os.path.basename(member)
                if base in CUDA_LIBS:
                    with z.open(member) as src, open(os.path.join(tmp, "lib", base), "wb") as out:
                        shutil.copyfileobj(src, out)
    if not cuda:
        stub = os.path.join(tmp, "lib", "libtorch.so")
        subprocess.run(["cc", "-shared", "-x", "c", "-", "-o", stub, "-Wl,-soname,libtorch.so"],
                       input=b"", check=True)
    with open(os.path.join(tmp, "build-version"), "w") as f:
        f.write(version + "\n")
    # Only a complete folder takes the final name.
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)


if __name__ == "__main__":
    main()
