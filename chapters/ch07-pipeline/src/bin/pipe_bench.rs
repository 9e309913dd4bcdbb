//! Benchmark (placeholder until the measured sweep is written): see the book's trainer
//! page. Run: `make bench CH=07`.

fn main() {
    println!("pipe_bench: not written yet (see chapters/ch07-pipeline/README.md)");
}
