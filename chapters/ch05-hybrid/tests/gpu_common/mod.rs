//! What the GPU half's tests share (and the planted mistakes reuse): the placement
//! property, and the property "the staged allreduce equals MPI_Allreduce".
#![allow(dead_code)] // each test file uses a part

use ch05::placement::Gpu;
use ch05::stream::{Staging, TorchElem};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use tch::{Device, Tensor};
use toolkit::compare::{abs_sums, close_sums, exact};
use toolkit::lockstep::property;

/// The signature of ex 5.5.
pub type ChooseFn = fn(usize, usize, usize, Option<&str>, bool) -> Result<Gpu, String>;

/// A node: its ranks, its GPUs, CUDA_VISIBLE_DEVICES, and whether sharing is allowed.
#[derive(Clone, Debug)]
pub struct Node {
    pub local_size: usize,
    pub gpus: usize,
    pub visible: Option<String>,
    pub share: bool,
}

/// Nodes of 1-16 ranks and 0-8 GPUs; one in two with a CUDA_VISIBLE_DEVICES of 1-8
/// distinct ids in any order (spaces after commas now and then).
pub fn nodes() -> impl Strategy<Value = Node> {
    let ids = Just((0..16usize).collect::<Vec<_>>()).prop_shuffle();
    let list = (ids, 1usize..=8, any::<bool>()).prop_map(|(ids, n, spaced)| {
        let names: Vec<String> = ids[..n].iter().map(|i| i.to_string()).collect();
        names.join(if spaced { ", " } else { "," })
    });
    let visible = prop_oneof![Just(None), list.prop_map(Some)];
    (1usize..=16, 0usize..=8, visible, any::<bool>()).prop_map(
        |(local_size, gpus, visible, share)| Node {
            local_size,
            gpus,
            visible,
            share,
        },
    )
}

/// Checks `choose` for every local rank of `node`.
pub fn placement_holds(choose: ChooseFn, node: &Node) -> Result<(), String> {
    let names: Vec<String> = match &node.visible {
        Some(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
        None => (0..node.gpus).map(|i| i.to_string()).collect(),
    };
    let count = names.len();
    let vis = node.visible.as_deref();
    let (size, share) = (node.local_size, node.share);
    let refuse = count == 0 || (size > count && !share);
    let mut users = vec![0usize; count];
    let mut first_user: Vec<Option<usize>> = vec![None; count];
    for r in 0..size {
        let got = choose(r, size, node.gpus, vis, share);
        let gpu = match (got, refuse) {
            (Err(why), true) => {
                one_sentence(&why)?;
                continue;
            }
            (Ok(g), true) => {
                return Err(format!(
                    "local rank {r} of {size} got GPU {} though {}: refuse with a sentence \
                     that names the fix",
                    g.index,
                    if count == 0 {
                        "no GPU is visible".to_string()
                    } else {
                        format!("{size} ranks cannot have {count} GPU(s) each to themselves")
                    }
                ))
            }
            (Err(why), false) => {
                return Err(format!(
                    "local rank {r} of {size} refused with {count} GPU(s): {why}"
                ))
            }
            (Ok(g), false) => g,
        };
        if gpu.index >= count {
            return Err(format!(
                "local rank {r} got GPU index {} but CUDA sees only {count} (indices 0..{count}{})",
                gpu.index,
                if vis.is_some() {
                    ": CUDA_VISIBLE_DEVICES renumbers the GPUs it lists"
                } else {
                    ""
                }
            ));
        }
        if gpu.physical != names[gpu.index] {
            return Err(format!(
                "local rank {r}: index {} is GPU {:?} of the node, not {:?}",
                gpu.index, names[gpu.index], gpu.physical
            ));
        }
        if size <= count {
            if let Some(other) = first_user[gpu.index] {
                return Err(format!(
                    "local ranks {other} and {r} both use GPU {} though the node has {count} \
                     GPU(s) for {size} rank(s): each rank should have a GPU of its own",
                    gpu.index
                ));
            }
        }
        first_user[gpu.index].get_or_insert(r);
        users[gpu.index] += 1;
    }
    if !refuse {
        let (lo, hi) = (users.iter().min().unwrap(), users.iter().max().unwrap());
        if hi - lo > 1 && size >= count {
            return Err(format!(
                "{size} ranks share {count} GPUs unevenly: ranks per GPU {users:?} (at most one \
                 more on any GPU than on another)"
            ));
        }
    }
    Ok(())
}

/// A refusal is one line that says what to do.
pub fn one_sentence(why: &str) -> Result<(), String> {
    if why.is_empty() || why.contains('\n') || !why.contains(':') {
        return Err(format!(
            "refusal {why:?}: say in one line what is wrong, then `:` and the fix"
        ));
    }
    Ok(())
}

/// Runs the placement property over `cases` random nodes (a fixed seed); the report of
/// the minimal failing node, if any.
pub fn placement_property(choose: ChooseFn, cases: u32) -> Result<(), String> {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[5; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    match runner.run(&nodes(), |node| {
        placement_holds(choose, &node).map_err(TestCaseError::fail)
    }) {
        Ok(()) => Ok(()),
        Err(TestError::Fail(why, node)) => Err(format!("minimal failing node: {node:?}\n{why}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A staged allreduce of one element type (ex 5.6 at one type).
pub type StageFn<T> = fn(&SimpleCommunicator, &mut Tensor, &mut Staging<T>);

/// A tensor to reduce: its length, the chunk, integers or floats, and a seed.
#[derive(Clone, Copy, Debug)]
pub struct StageCase {
    pub len: usize,
    pub chunk: usize,
    pub ints: bool,
    pub seed: u64,
}

/// The most chunks a case stages: each chunk is a copy, a synchronisation and an
/// allreduce, so 2000 chunks of 1 element at 4 ranks on 2 cores (MPICH's waiting ranks
/// spin) took past the case deadline, slow but not wrong.
const MAX_CHUNKS: usize = 200;

/// Lengths 0-2000 in at most [`MAX_CHUNKS`] chunks, chunks 1-2500 (one element and larger
/// than the tensor included).
pub fn stage_cases() -> impl Strategy<Value = StageCase> {
    let chunk = prop_oneof![Just(1usize), 1usize..=64, 1usize..=2500];
    (0usize..=2000, chunk, any::<bool>(), any::<u64>()).prop_map(|(len, chunk, ints, seed)| {
        StageCase {
            len: len % ((chunk * MAX_CHUNKS).min(2000) + 1),
            chunk,
            ints,
            seed,
        }
    })
}

/// Rank `rank`'s data: never 0, so a buffer reduced before it was filled shows.
fn data_of(case: &StageCase, rank: i32) -> (Vec<i64>, Vec<f32>) {
    let mut x = case.seed ^ (rank as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let ints = (0..case.len).map(|_| 1 + (next() % 1000) as i64).collect();
    let sign = |v: u64| if v & 1 == 0 { 1.0 } else { -1.0 };
    let floats = (0..case.len)
        .map(|_| {
            let v = next();
            sign(v) * (0.5 + (v >> 40) as f32 / (1u64 << 24) as f32 * 100.0)
        })
        .collect();
    (ints, floats)
}

fn stage_one<T: TorchElem>(
    world: &SimpleCommunicator,
    stage: StageFn<T>,
    case: &StageCase,
    (mine, device): (&[T], Device),
    all: Vec<Vec<T>>,
) -> Result<(), String> {
    let mut t = Tensor::from_slice(mine).to_device(device);
    let mut staging = Staging::<T>::new(case.chunk, case.len, device)?;
    stage(world, &mut t, &mut staging);
    if t.size() != [case.len as i64] || t.kind() != ch05::stream::kind_of::<T>() {
        return Err(format!(
            "the tensor changed shape or kind: {:?} {:?}",
            t.size(),
            t.kind()
        ));
    }
    let mut got = vec![T::default(); case.len];
    t.to_device(Device::Cpu).copy_data(&mut got, case.len);
    let mut want = vec![T::default(); case.len];
    world.all_reduce_into(mine, &mut want[..], SystemOperation::sum());
    let what = format!(
        "staged allreduce of {} elements in chunks of {}",
        case.len, case.chunk
    );
    let verdict = if T::IS_FLOAT {
        let sums = abs_sums::<T, _>(case.len, all);
        close_sums(&what, &got, &want, &sums, world.size() as usize)
    } else {
        exact(&what, &got, &want)
    };
    // No input is 0: a 0 in the result is a slot MPI read before its copy landed.
    let stale = got.iter().any(|x| *x == T::default());
    verdict.map_err(|why| match stale {
        true => format!(
            "{why}; a 0 where no input is 0: MPI read a host slot before its copy landed \
             (synchronize the stream before handing a slot to MPI)"
        ),
        false => why,
    })
}

/// The staged allreduce (`ints` for i64 tensors, `floats` for f32) equals MPI_Allreduce
/// of the same data on every case: the property of ex 5.6.
pub fn staging_property(
    world: &SimpleCommunicator,
    ints: StageFn<i64>,
    floats: StageFn<f32>,
    cases: u32,
) -> Result<(), String> {
    staging_property_on(world, (ints, floats), cases, Device::Cpu)
}

/// The same property with the tensors on `device` (a GPU: the host staging is real).
pub fn staging_property_on(
    world: &SimpleCommunicator,
    (ints, floats): (StageFn<i64>, StageFn<f32>),
    cases: u32,
    device: Device,
) -> Result<(), String> {
    let name = "the staged allreduce equals MPI_Allreduce";
    property(world, name)
        .cases(cases)
        .check(stage_cases(), |case| {
            let (size, rank) = (world.size(), world.rank());
            let (mi, mf) = data_of(case, rank);
            if case.ints {
                let all = (0..size).map(|r| data_of(case, r).0).collect();
                stage_one(world, ints, case, (&mi, device), all)
            } else {
                let all = (0..size).map(|r| data_of(case, r).1).collect();
                stage_one(world, floats, case, (&mf, device), all)
            }
        })
}
