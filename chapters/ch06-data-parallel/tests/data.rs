//! Checks of the given data loaders: the shipped digits, and MNIST's idx format on small
//! files this test writes (no download). Not tied to an exercise.
//!
//! Run: `cargo test -p ch06-data-parallel --test main data::`.

use ch06::data::{digits, mnist};
use std::path::Path;
use tch::Kind;

#[test]
fn the_digits_ship_with_the_repository() {
    let split = digits().expect("data/digits/digits.csv.gz");
    assert_eq!((split.train.len(), split.test.len()), (1438, 359));
    assert_eq!(split.train.images.size(), vec![1438, 1, 8, 8]);
    let (lo, hi) = (
        split.train.images.min().double_value(&[]),
        split.train.images.max().double_value(&[]),
    );
    assert!(
        lo >= 0.0 && hi <= 1.0 && hi > 0.9,
        "pixels in [0, 1]: {lo}..{hi}"
    );
    let labels = Vec::<i64>::try_from(&split.test.labels).unwrap();
    assert!(labels.iter().all(|&l| (0..10).contains(&l)));
    assert!(
        (0..10).all(|d| labels.contains(&d)),
        "every digit in the test set"
    );
}

/// Writes an idx file: magic, dims (big-endian u32), bytes.
fn idx(path: &Path, magic: u32, dims: &[u32], data: &[u8]) {
    let mut out = magic.to_be_bytes().to_vec();
    dims.iter().for_each(|d| out.extend(d.to_be_bytes()));
    out.extend(data);
    std::fs::write(path, out).unwrap();
}

#[test]
fn mnist_idx_files_load() {
    let dir = std::env::temp_dir().join(format!("ch06-mnist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pixels: Vec<u8> = (0..5 * 6 * 4).map(|i| (i * 2) as u8).collect();
    idx(
        &dir.join("train-images-idx3-ubyte"),
        2051,
        &[5, 6, 4],
        &pixels,
    );
    idx(
        &dir.join("train-labels-idx1-ubyte"),
        2049,
        &[5],
        &[3, 1, 4, 1, 5],
    );
    idx(
        &dir.join("t10k-images-idx3-ubyte"),
        2051,
        &[2, 6, 4],
        &pixels[..48],
    );
    idx(&dir.join("t10k-labels-idx1-ubyte"), 2049, &[2], &[9, 2]);
    let split = mnist(&dir).expect("small idx files");
    assert_eq!(split.train.images.size(), vec![5, 1, 6, 4]);
    assert_eq!(split.train.images.kind(), Kind::Float);
    assert_eq!(
        Vec::<i64>::try_from(&split.train.labels).unwrap(),
        vec![3, 1, 4, 1, 5]
    );
    let first = split.train.images.double_value(&[0, 0, 0, 1]);
    assert!((first - 2.0 / 255.0).abs() < 1e-6, "{first}");
    assert_eq!(split.test.len(), 2);
    // A truncated file is an error that names it.
    idx(
        &dir.join("t10k-images-idx3-ubyte"),
        2051,
        &[2, 6, 4],
        &pixels[..20],
    );
    let err = mnist(&dir).err().expect("truncated idx accepted");
    assert!(
        err.contains("t10k-images-idx3-ubyte") && err.contains("truncated"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mnist(&dir).err().unwrap().contains("no such folder"));
}
