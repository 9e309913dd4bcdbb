//! Checks of exercises 6.6 (atomic save) and 6.7 (load and restore, refusing what does
//! not fit). Files are built and read with the given format (`ckpt_format`), so each
//! exercise is checked on its own.
//!
//! Run: `make check CH=06` or `cargo test -p ch06-data-parallel --features solution
//! --test main checkpoint::`.

use crate::common::values;
use ch06::checkpoint::{load_checkpoint, restore, save_checkpoint};
use ch06::ckpt_format::{decode, encode, Checkpoint, CheckpointError, Entry};
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// A folder of its own under the system's temp folder, removed when dropped: also when
/// the test fails or stops at a stub's `todo!`.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("ch06-ckpt-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A checkpoint of two named tensors (and momentum) with distinct values.
fn sample(model: &str) -> Checkpoint {
    let entry = |name: &str, shape: Vec<i64>, base: f32| Entry {
        name: name.into(),
        data: (0..shape.iter().product::<i64>())
            .map(|i| base + i as f32 * 0.25)
            .collect(),
        shape,
    };
    Checkpoint {
        model: model.into(),
        epoch: 3,
        step_in_epoch: 5,
        global_step: 71,
        seed: 6,
        params: vec![
            entry("a.weight", vec![2, 3], 1.0),
            entry("b.bias", vec![4], -2.0),
        ],
        momentum: vec![
            entry("a.weight", vec![2, 3], 0.5),
            entry("b.bias", vec![4], 0.125),
        ],
    }
}

fn model_like() -> (Vec<(String, Tensor)>, Vec<Tensor>) {
    let z = |s: &[i64]| Tensor::zeros(s, (Kind::Float, Device::Cpu));
    let params = vec![
        ("a.weight".to_string(), z(&[2, 3])),
        ("b.bias".to_string(), z(&[4])),
    ];
    (params, vec![z(&[2, 3]), z(&[4])])
}

#[test]
fn ex6_6_save_writes_the_whole_checkpoint_atomically() {
    let dir = scratch("save");
    let path = dir.join("model.ckpt");
    save_checkpoint(&path, &sample("cnn")).expect("first save");
    assert_eq!(decode(&std::fs::read(&path).unwrap()), Ok(sample("cnn")));
    let mut newer = sample("cnn");
    newer.global_step = 80;
    save_checkpoint(&path, &newer).expect("second save over the first");
    assert_eq!(decode(&std::fs::read(&path).unwrap()), Ok(newer));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "save left other files behind: {left:?}");
    // The temp-file-then-rename protocol: a crash while writing leaves <path>.tmp half
    // written and <path> untouched. Simulate the crash's leftovers, then save again.
    let tmp = dir.join("model.ckpt.tmp");
    std::fs::write(&tmp, &encode(&sample("cnn"))[..10]).unwrap();
    save_checkpoint(&path, &sample("cnn")).expect("save over a stale temp file");
    assert!(
        !tmp.exists(),
        "save_checkpoint must write <path>.tmp and rename it"
    );
}

#[test]
fn ex6_6_a_failed_save_keeps_the_previous_checkpoint() {
    let dir = scratch("fail");
    let path = dir.join("model.ckpt");
    std::fs::write(&path, encode(&sample("cnn"))).unwrap();
    // The temp file cannot be created (a directory has its name): save must fail and
    // leave the good checkpoint as it was, never write into it in place.
    std::fs::create_dir_all(dir.join("model.ckpt.tmp")).unwrap();
    let mut newer = sample("cnn");
    newer.global_step = 99;
    assert!(
        save_checkpoint(&path, &newer).is_err(),
        "save_checkpoint hid an error"
    );
    assert_eq!(decode(&std::fs::read(&path).unwrap()), Ok(sample("cnn")));
}

#[test]
fn ex6_7_load_and_restore_a_good_checkpoint() {
    let dir = scratch("load");
    let path = dir.join("model.ckpt");
    std::fs::write(&path, encode(&sample("cnn"))).unwrap();
    let ckpt = load_checkpoint(&path).expect("load a good checkpoint");
    assert_eq!(ckpt, sample("cnn"));
    let (mut params, mut momentum) = model_like();
    restore(&ckpt, "cnn", &mut params, &mut momentum).expect("restore");
    for ((_, t), e) in params.iter().zip(&ckpt.params) {
        assert_eq!(values::<f32>(t), e.data, "{}", e.name);
    }
    for (t, e) in momentum.iter().zip(&ckpt.momentum) {
        assert_eq!(values::<f32>(t), e.data, "momentum {}", e.name);
    }
}

#[test]
fn ex6_7_refuses_broken_files_with_a_clear_error() {
    let dir = scratch("broken");
    let path = dir.join("model.ckpt");
    let missing = load_checkpoint(&path).unwrap_err();
    assert!(
        matches!(missing, CheckpointError::Io(ref m) if m.contains("model.ckpt")),
        "{missing:?}"
    );
    let bytes = encode(&sample("cnn"));
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let cut = load_checkpoint(&path).unwrap_err();
    assert!(matches!(cut, CheckpointError::Truncated { .. }), "{cut:?}");
    assert!(cut.to_string().contains("truncated"), "{cut}");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    std::fs::write(&path, &flipped).unwrap();
    assert_eq!(load_checkpoint(&path), Err(CheckpointError::Corrupt));
    std::fs::write(&path, b"PK\x03\x04 a zip file, not a checkpoint").unwrap();
    assert_eq!(load_checkpoint(&path), Err(CheckpointError::NotACheckpoint));
}

#[test]
fn ex6_7_refuses_a_checkpoint_of_another_model() {
    let (mut params, mut momentum) = model_like();
    let before = values::<f32>(&params[0].1);
    let mut cases = vec![];
    cases.push((sample("mlp"), "`mlp`"));
    let mut renamed = sample("cnn");
    renamed.params[1].name = "c.bias".into();
    cases.push((renamed, "c.bias"));
    let mut reshaped = sample("cnn");
    reshaped.params[0].shape = vec![3, 2];
    cases.push((reshaped, "[3, 2]"));
    let mut short = sample("cnn");
    short.momentum.pop();
    cases.push((short, "momentum"));
    for (ckpt, needle) in cases {
        let err = restore(&ckpt, "cnn", &mut params, &mut momentum).unwrap_err();
        assert!(matches!(err, CheckpointError::Mismatch(_)), "{err:?}");
        assert!(
            err.to_string().contains(needle),
            "`{err}` should name {needle}"
        );
        assert_eq!(
            values::<f32>(&params[0].1),
            before,
            "a refused restore wrote into the model"
        );
    }
}
