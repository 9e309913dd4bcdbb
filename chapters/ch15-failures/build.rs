//! Binaries and tests of this package link LibTorch: its folder becomes their run path (no
//! LD_LIBRARY_PATH needed) and, with a CUDA LibTorch, its CUDA libraries stay linked.
fn main() {
    torch_link::link_libtorch();
}
