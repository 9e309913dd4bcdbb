//! `make setup` says "found" only for what the build will use. Its libclang detection
//! (scripts/find_libclang.py) applies bindgen's own rules; here it runs on folders made
//! for the test, so the machine's own libraries do not matter.
//!
//! Run: `cargo test -p workbook-tests --test setup_detection`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/find_libclang.py")
}

/// A fresh folder holding files with these names, each starting like a 64-bit ELF file.
fn folder_with(test: &str, names: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("workbook-libclang-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in names {
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(64, 0);
        std::fs::write(dir.join(name), elf).unwrap();
    }
    dir
}

/// Runs the detection on one folder: Ok(found path) or Err(its message).
fn detect(dir: &Path) -> Result<String, String> {
    let out = Command::new("python3")
        .arg(script())
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

#[test]
fn only_the_cpp_library_is_not_libclang() {
    // The fresh Debian 12 machine of the bug report: libclang-cpp14 without libclang1-14.
    let dir = folder_with("cpp", &["libclang-cpp.so.14", "libclang-cpp.so"]);
    let found = detect(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        found.is_err(),
        "the C++ library was taken for libclang: {found:?}"
    );
}

#[test]
fn the_versioned_c_library_is_libclang() {
    let dir = folder_with("c", &["libclang-cpp.so.14", "libclang-14.so.1"]);
    let found = detect(&dir);
    std::fs::remove_dir_all(&dir).ok();
    let path = found.expect("libclang-14.so.1 must be found");
    assert!(path.ends_with("libclang-14.so.1"), "{path}");
}

#[test]
fn a_file_that_is_not_a_library_is_refused() {
    let dir = folder_with("text", &[]);
    std::fs::write(dir.join("libclang.so"), "INPUT(-lclang-14)").unwrap();
    let found = detect(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        found.is_err(),
        "a linker script was taken for libclang: {found:?}"
    );
}
