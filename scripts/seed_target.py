#!/usr/bin/env python3
"""Seed a second cargo target folder with the dependencies the first one already built.

    python3 scripts/seed_target.py target/debug target/mpich/debug

`make test-mpich` builds the workspace again in a target folder of its own (rsmpi's build
script does not rerun when the MPI changes). Most of what it builds does not link MPI at
all: LibTorch's bindings (torch-sys compiles a large C++ wrapper), proptest, clap, serde...
This copies those from the first folder: every artifact of a crate that comes from the
registry (Cargo.lock), except rsmpi's (mpi, mpi-sys, mpi-derive) and the workspace's own
crates, which then build against the other MPI. Cargo checks each copied unit's
fingerprint as usual and rebuilds whatever does not match, so a wrong guess costs time,
never a wrong build.

Does nothing when the destination exists already (a second run keeps its own build) or
the source does not.
"""
import os
import re
import shutil
import sys

# rsmpi's crates: they link the MPI (or are built for the crates that do).
MPI_CRATES = {"mpi", "mpi_sys", "mpi_derive"}


def registry_crates(lock_path):
    """The names (hyphens as underscores) of the registry packages in Cargo.lock."""
    names, name = set(), None
    with open(lock_path) as f:
        for line in f:
            m = re.match(r'name = "([^"]+)"', line)
            if m:
                name = m.group(1).replace("-", "_")
            elif line.startswith("source = \"registry+") and name:
                names.add(name)
    return names - MPI_CRATES


def crate_of(entry):
    """`libmpi_sys-0123abcd.rlib` or `mpi-sys-0123abcd` -> `mpi_sys`."""
    stem = entry.split(".", 1)[0]
    stem = stem[3:] if stem.startswith("lib") else stem
    m = re.match(r"(.+)-[0-9a-f]{16}$", stem)
    return m.group(1).replace("-", "_") if m else None


def seed(src, dest, lock_path):
    if os.path.exists(dest) or not os.path.isdir(src):
        return 0
    keep = registry_crates(lock_path)
    copied = 0
    for sub in ("deps", "build", ".fingerprint"):
        here = os.path.join(src, sub)
        if not os.path.isdir(here):
            continue
        os.makedirs(os.path.join(dest, sub), exist_ok=True)
        for entry in os.listdir(here):
            crate = crate_of(entry)
            # A `lib` prefix is also a crate's own (libc, libffi, libloading).
            alt = crate_of("lib" + entry) if entry.startswith("lib") else None
            if crate not in keep and alt not in keep:
                continue
            a, b = os.path.join(here, entry), os.path.join(dest, sub, entry)
            if os.path.isdir(a):
                shutil.copytree(a, b, symlinks=True)
            else:
                shutil.copy2(a, b)
            copied += 1
    return copied


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: seed_target.py FROM_PROFILE_DIR TO_PROFILE_DIR")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    n = seed(sys.argv[1], sys.argv[2], os.path.join(root, "Cargo.lock"))
    if n:
        print(f"seed_target: {n} dependency artifacts copied from {sys.argv[1]} to {sys.argv[2]}")
