//! Binaries and tests of this package link libtorch: record where it lives (as an rpath)
//! so they run without LD_LIBRARY_PATH. torch-sys tells us the folder.
fn main() {
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
}
