//! Checks of exercise 6.1 (the tensor <-> MPI buffer bridge) on every element type it
//! claims (f32, f64, i32, i64), on non-contiguous tensors, through a real MPI allreduce,
//! and its refusals (f16, bf16, wrong type, wrong length). GPU staging is checked only
//! where CUDA is available (otherwise the test says why it skipped it).
//!
//! Run: `make check CH=06` or `cargo test -p ch06-data-parallel --features solution
//! --test main bridge::`.

use crate::common::values;
use ch06::bridge::{element_type, read_tensor, write_tensor};
use ch06::elem::{BridgeError, ElementType, MpiElement};
use mpi::collective::SystemOperation;
use mpi::traits::*;
use tch::{Device, Kind, Tensor};
use toolkit::mpi_test;

/// A (3, 5) tensor of `T` with distinct values, and its transpose (not contiguous).
fn sample<T: MpiElement>(offset: i64) -> (Tensor, Tensor) {
    let t = (Tensor::arange(15, (Kind::Int64, Device::Cpu)) * 7 + offset).to_kind(T::KIND);
    let t = t.view([3, 5]);
    let tt = t.tr();
    (t, tt)
}

fn round_trip<T: MpiElement>(device: Device) {
    for (i, t) in <[Tensor; 2]>::from(sample::<T>(-20))
        .into_iter()
        .enumerate()
    {
        let t = t.to_device(device);
        let mut buf = vec![T::default(); t.numel()];
        read_tensor(&t, &mut buf).unwrap_or_else(|e| panic!("read_tensor {:?}: {e}", T::TYPE));
        assert_eq!(
            buf,
            values::<T>(&t.to_device(Device::Cpu)),
            "read_tensor {:?} #{i}",
            T::TYPE
        );
        let mut target = t.zeros_like();
        if i == 1 {
            target = target.tr().contiguous().tr(); // a non-contiguous destination
        }
        write_tensor(&buf, &mut target)
            .unwrap_or_else(|e| panic!("write_tensor {:?}: {e}", T::TYPE));
        assert_eq!(target.device(), device, "write_tensor moved the tensor");
        assert_eq!(
            values::<T>(&target.to_device(Device::Cpu)),
            buf,
            "write_tensor {:?} #{i}",
            T::TYPE
        );
    }
}

#[test]
fn ex6_1_every_type_round_trips() {
    assert_eq!(element_type(Kind::Float), Ok(ElementType::F32));
    assert_eq!(element_type(Kind::Double), Ok(ElementType::F64));
    assert_eq!(element_type(Kind::Int), Ok(ElementType::I32));
    assert_eq!(element_type(Kind::Int64), Ok(ElementType::I64));
    round_trip::<f32>(Device::Cpu);
    round_trip::<f64>(Device::Cpu);
    round_trip::<i32>(Device::Cpu);
    round_trip::<i64>(Device::Cpu);
}

#[test]
fn ex6_1_refuses_what_it_cannot_move() {
    for kind in [Kind::Half, Kind::BFloat16] {
        let err = element_type(kind).unwrap_err();
        assert_eq!(err, BridgeError::Unsupported(kind));
        assert!(err.to_string().contains("16-bit"), "{err}");
        let t = Tensor::zeros([4], (kind, Device::Cpu));
        let mut buf = vec![0f32; 4];
        assert_eq!(
            read_tensor(&t, &mut buf),
            Err(BridgeError::Unsupported(kind))
        );
    }
    assert_eq!(
        element_type(Kind::Bool),
        Err(BridgeError::Unsupported(Kind::Bool))
    );
    let t = Tensor::zeros([4], (Kind::Float, Device::Cpu));
    let mut wrong_type = vec![0f64; 4];
    let mismatch = BridgeError::TypeMismatch {
        tensor: ElementType::F32,
        buffer: ElementType::F64,
    };
    assert_eq!(read_tensor(&t, &mut wrong_type), Err(mismatch.clone()));
    let mut target = t.shallow_clone();
    assert_eq!(write_tensor(&wrong_type, &mut target), Err(mismatch));
    let mut short = vec![0f32; 3];
    assert_eq!(
        read_tensor(&t, &mut short),
        Err(BridgeError::Length {
            tensor: 4,
            buffer: 3
        })
    );
    assert_eq!(
        write_tensor(&short, &mut target),
        Err(BridgeError::Length {
            tensor: 4,
            buffer: 3
        })
    );
}

#[test]
fn ex6_1_writes_into_a_parameter() {
    let vs = tch::nn::VarStore::new(Device::Cpu);
    let mut w = vs.root().zeros("w", &[2, 3]);
    assert!(w.requires_grad());
    write_tensor(&[1f32, 2., 3., 4., 5., 6.], &mut w).expect("write into a parameter");
    assert_eq!(values::<f32>(&w.detach()), vec![1., 2., 3., 4., 5., 6.]);
}

#[test]
fn ex6_1_stages_gpu_tensors() {
    if torch_link::skip_without_gpu("ex6_1_stages_gpu_tensors", tch::Cuda::is_available()) {
        return;
    }
    round_trip::<f32>(Device::Cuda(0));
    round_trip::<f64>(Device::Cuda(0));
    round_trip::<i32>(Device::Cuda(0));
    round_trip::<i64>(Device::Cuda(0));
}

fn allreduce_through_the_bridge<T: MpiElement>(
    world: &mpi::topology::SimpleCommunicator,
) -> Result<(), String> {
    let rank = i64::from(world.rank());
    let (t, _) = sample::<T>(rank);
    let mut send = vec![T::default(); 15];
    read_tensor(&t, &mut send).map_err(|e| e.to_string())?;
    let mut sum = vec![T::default(); 15];
    world.all_reduce_into(&send[..], &mut sum[..], SystemOperation::sum());
    let mut out = t.zeros_like();
    write_tensor(&sum, &mut out).map_err(|e| e.to_string())?;
    let size = i64::from(world.size());
    let want = Tensor::arange(15, (Kind::Int64, Device::Cpu)) * 7 * size + size * (size - 1) / 2;
    let want = values::<T>(&want.to_kind(T::KIND).view([3, 5]));
    toolkit::compare::exact(
        &format!("{:?} allreduce", T::TYPE),
        &values::<T>(&out),
        &want,
    )
}

mpi_test! {
    fn ex6_1_carries_every_type_through_mpi(world at &[3]) for T in [f32, f64, i32, i64] {
        allreduce_through_the_bridge::<T>(world)
    }
}
