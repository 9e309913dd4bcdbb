//! What the chapter's tests share: traceable values of the four element types
//! (`toolkit::elem::Elem`), and the properties.
//!
//! Every element a test sends encodes where it came from (rank, buffer, index), so a
//! wrong value is reported as *whose* data arrived, e.g. "rank 2's `to_left`[0]", not
//! just as a wrong number. The property functions take the function under test as an
//! argument: the exercise tests pass the learner's, the planted-mistake tests a wrong one.
#![allow(dead_code)] // each test file uses a part

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use proptest::prelude::*;
use toolkit::compare::first_difference;
use toolkit::elem::Elem;
use toolkit::lockstep::property;

/// The element holding `v` (exact for |v| < 2^24, which covers every code below).
fn make<T: Elem>(v: i64) -> T {
    T::from_f64(v as f64)
}

/// The number an element holds.
fn value<T: Elem>(x: T) -> i64 {
    x.to_f64() as i64
}

/// The value of element `i` of buffer number `part` (0 or 1) on `rank`: below 2^24 for
/// up to 8 ranks and 2^20 elements, so f32 holds it exactly.
pub fn code(rank: i32, part: usize, i: usize) -> i64 {
    i64::from(rank) * (1 << 21) + (part as i64) * (1 << 20) + i as i64
}

/// A buffer of `n` elements of `part` on `rank`.
pub fn buffer<T: Elem>(rank: i32, part: usize, n: usize) -> Vec<T> {
    (0..n).map(|i| make(code(rank, part, i))).collect()
}

/// What the tests put into a receive buffer before the call: negative, so it decodes as
/// "untouched".
pub fn untouched<T: Elem>(n: usize) -> Vec<T> {
    (0..n).map(|i| make(-1 - i as i64)).collect()
}

/// Says whose element `v` is, naming the buffers `parts[0]`, `parts[1]`.
pub fn whose(v: i64, parts: &[&str]) -> String {
    if v < 0 {
        return "the value the test put there: nothing was received into it".into();
    }
    let (rank, part, i) = (v >> 21, ((v >> 20) & 1) as usize, v & ((1 << 20) - 1));
    format!("rank {rank}'s `{}`[{i}]", parts.get(part).unwrap_or(&"?"))
}

/// Ok if `got == want`; else which element differs, and whose data each one is.
pub fn traced<T: Elem>(what: &str, got: &[T], want: &[T], parts: &[&str]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements but expected {}",
            got.len(),
            want.len()
        ));
    }
    match first_difference(got, want) {
        None => Ok(()),
        Some((i, count)) => Err(format!(
            "{what}[{i}] holds {} but must hold {} ({count} of {} elements wrong)",
            whose(value(got[i]), parts),
            whose(value(want[i]), parts),
            got.len()
        )),
    }
}

/// Lengths: mostly small (0 included), one case in four far beyond the eager limit
/// (1<<17 .. 1<<19 elements: 0.5 to 4 MiB), where a blocking send waits for its receive.
pub fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..=64, 1 => (1usize << 17)..=(1 << 19)]
}

/// Halo widths: mostly small (0 included), one case in four up to 1 MiB of f64.
pub fn widths() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..=64, 1 => (1usize << 14)..=(1 << 17)]
}

/// Signature of ex 1.1.
pub type TokenFn<T> = fn(&SimpleCommunicator, &[T]) -> (Vec<T>, i32);
/// Signature of ex 1.2.
pub type ShiftFn<T> = fn(&SimpleCommunicator, &[T], &mut [T]);
/// Signature of ex 1.3.
pub type HaloFn<T> = fn(&SimpleCommunicator, &[T], &[T], &mut [T], &mut [T]);

/// Ex 1.1: every rank gets rank 0's token, from its left neighbour.
pub fn token_property<T: Elem>(world: &SimpleCommunicator, f: TokenFn<T>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let name = format!(
        "pass_token::<{}> brings rank 0's token to every rank",
        T::NAME
    );
    property(world, &name).cases(16).check(lengths(), |&n| {
        // Only rank 0's token counts; the others pass their own to catch a mix-up.
        let (got, from) = f(world, &buffer::<T>(rank, 0, n));
        let left = (rank - 1 + size) % size;
        if from != left {
            return Err(format!(
                "rank {rank} got the token from rank {from}, expected its left neighbour \
                 {left} = (rank - 1 + size) % size"
            ));
        }
        traced("token", &got, &buffer::<T>(0, 0, n), &["token"])
    })
}

/// Ex 1.2: `theirs` holds the left neighbour's `mine`, for lengths from `sizes`.
pub fn shift_property<T: Elem>(
    world: &SimpleCommunicator,
    f: ShiftFn<T>,
    sizes: impl Strategy<Value = usize>,
) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let name = format!(
        "shift_right::<{}> delivers the left neighbour's data",
        T::NAME
    );
    property(world, &name).cases(16).check(sizes, |&n| {
        let mine = buffer::<T>(rank, 0, n);
        let mut theirs = untouched::<T>(n);
        f(world, &mine, &mut theirs);
        let left = (rank - 1 + size) % size;
        let what = format!("rank {rank}'s `theirs`");
        traced(&what, &theirs, &buffer::<T>(left, 0, n), &["mine"])?;
        traced(
            "`mine` after the call",
            &mine,
            &buffer::<T>(rank, 0, n),
            &["mine"],
        )
    })
}

/// Ex 1.3: `from_left` is the left neighbour's `to_right`, `from_right` the right
/// neighbour's `to_left`.
pub fn halo_property<T: Elem>(world: &SimpleCommunicator, f: HaloFn<T>) -> Result<(), String> {
    let (rank, size) = (world.rank(), world.size());
    let (left, right) = ((rank - 1 + size) % size, (rank + 1) % size);
    let parts = ["to_left", "to_right"];
    let name = format!(
        "halo_exchange::<{}> swaps edges with both neighbours",
        T::NAME
    );
    property(world, &name).cases(16).check(widths(), |&n| {
        let (to_left, to_right) = (buffer::<T>(rank, 0, n), buffer::<T>(rank, 1, n));
        let (mut from_left, mut from_right) = (untouched::<T>(n), untouched::<T>(n));
        f(world, &to_left, &to_right, &mut from_left, &mut from_right);
        let what = format!("rank {rank}'s `from_left`");
        traced(&what, &from_left, &buffer::<T>(left, 1, n), &parts)?;
        let what = format!("rank {rank}'s `from_right`");
        traced(&what, &from_right, &buffer::<T>(right, 0, n), &parts)
    })
}
