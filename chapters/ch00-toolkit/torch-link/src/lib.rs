//! How the LibTorch chapters (5, 6, 7 and the toolchain smoke test) link LibTorch, and
//! why a binary cannot use a GPU when it cannot.
//!
//! Used twice by each of those packages:
//! - as a build dependency: its `build.rs` is one call, [`link_libtorch`];
//! - as a dependency: `--device cuda` on a build or a machine that cannot says
//!   [`why_no_cuda`] in one line.
//!
//! The trap it avoids: a CUDA LibTorch ships `libtorch_cuda.so`, but a Rust binary never
//! calls a function of it by name (CUDA kernels register themselves when the library
//! loads). Linkers drop a shared library nothing references when `--as-needed` is on, and
//! rustc turns it on, so the binary ends up without CUDA. LibTorch says it itself: "The
//! CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA
//! library!". The cure is to link those libraries with `--no-as-needed`.

use std::path::Path;

/// The CUDA parts of LibTorch that must be loaded for `Device::Cuda` to work.
pub const CUDA_LIBRARIES: [&str; 2] = ["torch_cuda", "c10_cuda"];

/// For a build script: records LibTorch's folder as the binary's run path (so it runs
/// without LD_LIBRARY_PATH) and, when that LibTorch has CUDA, links its CUDA libraries
/// with `--no-as-needed` so that they stay needed. torch-sys tells us the folder
/// (`DEP_TCH_LIBTORCH_LIB`): the package must depend on torch-sys directly.
pub fn link_libtorch() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    for arg in cuda_link_args(Path::new(&lib)) {
        println!("cargo:rustc-link-arg={arg}");
    }
}

/// The linker arguments that keep a CUDA LibTorch's CUDA libraries needed; none for a
/// CPU LibTorch. `--allow-shlib-undefined`: the NVIDIA libraries those need (cuBLAS,
/// cuDNN, NCCL...) are found at run time on the GPU machine, not at link time here.
pub fn cuda_link_args(libtorch_lib: &Path) -> Vec<String> {
    if !libtorch_lib.join("libtorch_cuda.so").exists() {
        return vec![];
    }
    let mut args = vec!["-Wl,--no-as-needed".to_string()];
    for name in CUDA_LIBRARIES {
        if libtorch_lib.join(format!("lib{name}.so")).exists() {
            args.push(format!("-l{name}"));
        }
    }
    args.push("-Wl,--as-needed".into());
    args.push("-Wl,--allow-shlib-undefined".into());
    args
}

/// Why this process cannot use a GPU through LibTorch, in one line, or `None` when it can.
/// `cuda_available` is `tch::Cuda::is_available()` (asked by the caller, so that this
/// crate needs no LibTorch). Tells apart a build without CUDA, a machine without a
/// driver or GPU, and a CUDA_VISIBLE_DEVICES that hides every GPU.
pub fn why_no_cuda(cuda_available: bool) -> Option<String> {
    if cuda_available {
        return None;
    }
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    Some(diagnose(&maps, std::env::var("CUDA_VISIBLE_DEVICES").ok()))
}

/// The reason, from the libraries this process has loaded (`/proc/self/maps`) and
/// CUDA_VISIBLE_DEVICES.
pub fn diagnose(maps: &str, visible: Option<String>) -> String {
    if !maps.contains("libtorch_cuda.so") {
        return "this build has no CUDA: it was linked against a CPU-only LibTorch \
                (libtorch_cuda.so is not loaded); rebuild with LIBTORCH=<a CUDA LibTorch 2.11> \
                (`make setup` says which one this build uses; `make gpu-kit` makes a GPU build)"
            .into();
    }
    if let Some(v) = visible.filter(|v| v.trim().is_empty() || v.trim() == "-1") {
        return format!(
            "LibTorch has CUDA, but CUDA_VISIBLE_DEVICES={v:?} hides every GPU: unset it"
        );
    }
    if !maps.contains("libcuda.so") {
        return "LibTorch has CUDA, but the NVIDIA driver's libcuda.so did not load: \
                no driver on this machine (does `nvidia-smi` list a GPU?)"
            .into();
    }
    "LibTorch has CUDA and the driver loaded, but CUDA finds no usable GPU \
     (`nvidia-smi` lists what the driver sees)"
        .into()
}

/// For a test that needs a GPU: returns `true` (skip it) after printing why, when this
/// process cannot use one. With `WORKBOOK_REQUIRE_GPU=1` (the GPU kit sets it) it panics
/// instead, so that a run on a GPU machine cannot pass by skipping.
pub fn skip_without_gpu(test: &str, cuda_available: bool) -> bool {
    let Some(why) = why_no_cuda(cuda_available) else {
        return false;
    };
    if std::env::var("WORKBOOK_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("{test}: WORKBOOK_REQUIRE_GPU=1, but {why}");
    }
    println!("{test}: skipped: {why}");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_libtorch_gets_no_cuda_arguments() {
        let dir = std::env::temp_dir().join(format!("torch-link-cpu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("libtorch_cpu.so"), b"").unwrap();
        assert!(cuda_link_args(&dir).is_empty());
        std::fs::write(dir.join("libtorch_cuda.so"), b"").unwrap();
        std::fs::write(dir.join("libc10_cuda.so"), b"").unwrap();
        let args = cuda_link_args(&dir).join(" ");
        assert_eq!(
            args,
            "-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed -Wl,--allow-shlib-undefined"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_reason_names_what_is_missing() {
        let cpu = "7f00-7f01 r-xp 0 0:0 0 /x/libtorch_cpu.so\n";
        assert!(diagnose(cpu, None).contains("CPU-only LibTorch"));
        let cuda = "7f00-7f01 r-xp 0 0:0 0 /x/libtorch_cuda.so\n";
        assert!(diagnose(cuda, Some("".into())).contains("CUDA_VISIBLE_DEVICES"));
        assert!(diagnose(cuda, None).contains("no driver"));
        let driver = format!("{cuda}7f02-7f03 r-xp 0 0:0 0 /usr/lib/libcuda.so.1\n");
        assert!(diagnose(&driver, Some("0".into())).contains("finds no usable GPU"));
    }
}
