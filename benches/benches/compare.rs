//! What checking a result costs: every lockstep case compares a vector with the truth,
//! so the comparison must stay cheap next to the communication it checks.
//!
//! Run: `cargo bench -p workbook-benches --bench compare`. Expect both to run at memory
//! speed (well under a millisecond for 1M elements).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use toolkit::compare::{close_sums, exact};

fn comparisons(c: &mut Criterion) {
    let mut group = c.benchmark_group("compare");
    for n in [1usize << 10, 1 << 20] {
        let ints: Vec<i64> = (0..n as i64).collect();
        let floats: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
        let abs = floats.clone();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("exact i64", n), &n, |b, _| {
            b.iter(|| exact("v", black_box(&ints), black_box(&ints)))
        });
        group.bench_with_input(BenchmarkId::new("close_sums f64", n), &n, |b, _| {
            b.iter(|| close_sums("v", black_box(&floats), black_box(&floats), &abs, 8))
        });
    }
    group.finish();
}

criterion_group!(benches, comparisons);
criterion_main!(benches);
