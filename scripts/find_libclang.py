#!/usr/bin/env python3
"""Find the libclang that bindgen will use, by bindgen's own rules, and prove it loads.

Usage:
  find_libclang.py                 search where bindgen (clang-sys, runtime loading) looks
  find_libclang.py --dir D [...]   search only the folders given (for tests); no loading

Prints the path of the first usable library and exits 0, or prints why none is usable
and exits 1. rsmpi generates its MPI bindings with bindgen, which loads the C library
libclang at build time. Debian also ships the C++ library libclang-cpp.so.N (package
libclang-cpp14): its name looks alike, but bindgen skips it, so it must not count as
"found" (package libclang1-14 or libclang-dev brings the right one).

The rules, as clang-sys 1.9 applies them on Linux when it loads libclang at run time:
- file names libclang.so, libclang-*.so, libclang.so.*, libclang-*.so.*, never one
  containing "-cpp." (the C++ library);
- folders: $LIBCLANG_PATH alone when set; else `llvm-config --prefix`/{bin,lib,lib64},
  $LD_LIBRARY_PATH, $LIBRARY_PATH, then /usr/local/llvm*/lib*, /usr/local/lib*/*/*,
  /usr/local/lib*/*, /usr/local/lib*, /usr/lib*/*/*, /usr/lib*/*, /usr/lib*;
- the file must be a 64-bit ELF shared library.
On top of the name rules, a system search loads the library and asks it its version.
"""
import ctypes
import fnmatch
import glob
import os
import subprocess
import sys

PATTERNS = ["libclang.so", "libclang-*.so", "libclang.so.*", "libclang-*.so.*"]
SYSTEM_DIRS = [
    "/usr/local/llvm*/lib*",
    "/usr/local/lib*/*/*",
    "/usr/local/lib*/*",
    "/usr/local/lib*",
    "/usr/lib*/*/*",
    "/usr/lib*/*",
    "/usr/lib*",
]


def is_libclang_name(name):
    """True for a file name bindgen would try: libclang-14.so.1 yes, libclang-cpp.so.14 no."""
    if "-cpp." in name:
        return False
    return any(fnmatch.fnmatchcase(name, p) for p in PATTERNS)


def is_elf64(path):
    try:
        with open(path, "rb") as f:
            head = f.read(5)
    except OSError:
        return False
    return head[:4] == b"\x7fELF" and head[4:5] == b"\x02"


def candidates(folder):
    """Usable-looking libclang files in one folder, by name and ELF header."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    paths = [os.path.join(folder, n) for n in names if is_libclang_name(n)]
    return [p for p in paths if os.path.isfile(p) and is_elf64(p)]


def search_folders():
    """The folders clang-sys searches, in its order."""
    if os.environ.get("LIBCLANG_PATH"):
        path = os.environ["LIBCLANG_PATH"]
        return [os.path.dirname(path) if os.path.isfile(path) else path]
    folders = []
    try:
        prefix = subprocess.run(["llvm-config", "--prefix"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        if prefix:
            folders += [os.path.join(prefix, d) for d in ("bin", "lib", "lib64")]
    except (OSError, subprocess.SubprocessError):
        pass
    for var in ("LD_LIBRARY_PATH", "LIBRARY_PATH"):
        folders += [d for d in os.environ.get(var, "").split(":") if d]
    for pattern in SYSTEM_DIRS:
        folders += sorted(d for d in glob.glob(pattern) if os.path.isdir(d))
    return folders


def loads(path):
    """Loads the library and asks its version: the proof that bindgen can use it."""
    try:
        lib = ctypes.CDLL(path)
        lib.clang_getClangVersion  # the first symbol bindgen needs exists
        return True, ""
    except (OSError, AttributeError) as e:
        return False, str(e)


def main(argv):
    if argv[:1] == ["--dir"]:
        found = [p for d in argv[1:] if d != "--dir" for p in candidates(d)]
        if found:
            print(found[0])
            return 0
        print("no libclang C library (libclang.so / libclang-N.so.1) in: " + " ".join(argv[1:]))
        return 1
    broken = []
    seen = set()
    for folder in search_folders():
        for path in candidates(folder):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            ok, why = loads(path)
            if ok:
                print(path)
                return 0
            broken.append(f"{path} ({why})")
    if broken:
        print("libclang is there but does not load: " + "; ".join(broken))
    else:
        cpp = glob.glob("/usr/lib/llvm-*/lib/libclang-cpp.so*")
        extra = f" (only the C++ library {cpp[0]}, which bindgen cannot use)" if cpp else ""
        print("no libclang C library where bindgen looks" + extra)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
