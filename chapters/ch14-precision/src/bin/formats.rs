//! Lab: the four formats of the chapter side by side (their bits, largest and smallest
//! values, epsilon), then values rounded to each with ex 14.1's `encode`: the code, the
//! value it stores and the relative error.
//!
//! Run: `make run CH=14` (`SOLUTION=1` for the answers; `ARGS='0.2 -1e6'` rounds your
//! values too; `ARGS=--help` for the list). Rank 0 prints; one rank is enough. A value
//! that is not a number is refused in one line before MPI starts. It needs ex 14.1; until
//! it is written it says so.

use ch14::encode::encode;
use ch14::flags::{from_args, FormatsFlags};
use ch14::format::{Format, FORMATS};
use mpi::traits::*;
use toolkit::gate::unless_todo;

/// The values the page's table shows: ordinary ones, the formats' edges, below them.
const VALUES: [f32; 10] = [
    1.0 / 3.0,
    0.1,
    1000.5,
    65504.0,
    70000.0,
    448.0,
    464.0,
    1e-5,
    1e-8,
    3.0e38,
];

/// `code → value (relative error)` of `x` in `fmt`.
fn rounded(fmt: &Format, x: f32) -> String {
    let code = encode(fmt, x);
    let value = fmt.decode(code);
    let width = fmt.bits() as usize / 4;
    let error = match (value.is_finite(), x == 0.0) {
        (false, _) => String::new(),
        (true, true) => " (exact)".into(),
        (true, false) => format!(
            " ({:+.1e})",
            (f64::from(value) - f64::from(x)) / f64::from(x)
        ),
    };
    format!("{code:0width$x} → {value:e}{error}")
}

fn main() {
    let flags: FormatsFlags = from_args("formats");
    let universe = toolkit::init();
    let world = universe.world();
    let values: Vec<f32> = VALUES.iter().chain(&flags.values).copied().collect();
    let rows = unless_todo(&world, || {
        values
            .iter()
            .map(|&x| FORMATS.iter().map(|f| rounded(f, x)).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    });
    let rows = rows.unwrap_or_else(|task| toolkit::gate::stop_unfinished(&world, "formats", &task));
    if world.rank() != 0 {
        return;
    }
    println!(
        "{:<9} {:>4} {:>5} {:>5} {:>12} {:>12} {:>12} {:>9}",
        "format", "bits", "exp", "mant", "max", "min normal", "min sub", "epsilon"
    );
    for f in FORMATS {
        println!(
            "{:<9} {:>4} {:>5} {:>5} {:>12e} {:>12e} {:>12e} {:>9e}",
            f.name,
            f.bits(),
            f.exponent_bits,
            f.mantissa_bits,
            f.max(),
            f.min_normal(),
            f.min_subnormal(),
            f.epsilon()
        );
    }
    println!("\nvalues rounded to each (code in hex → the value it stores (relative error)):");
    for (x, row) in values.iter().zip(rows) {
        println!("{x:e}");
        for (f, cell) in FORMATS.iter().zip(row) {
            println!("  {:<9} {cell}", f.name);
        }
    }
}
