//! The known panics of the libraries the exercises call, explained in the learner's terms:
//! rsmpi's assertions (a `*_root` collective on a rank that is not the root, an
//! all-to-all-v whose counts do not fit its buffer) and LibTorch's errors.

use std::panic::Location;

/// A known library panic, explained: rsmpi asserts that a `*_root` collective runs on
/// the root (`gather_into_root` on every rank is a classic mistake); LibTorch's errors
/// (an undefined gradient, shapes or kinds that do not match) are named by their message.
pub fn hint(location: Option<&Location<'_>>, message: &str) -> Option<String> {
    hint_for(location.map(|l| l.file()).unwrap_or(""), message)
}

/// [`hint`] for a panic raised in `file`.
fn hint_for(file: &str, message: &str) -> Option<String> {
    let rsmpi_collective = file.contains("/mpi-") && file.ends_with("collective.rs");
    if rsmpi_collective && message.contains("left == right") {
        return Some(
            "a `..._root` collective (gather_into_root, scatter_into_root, reduce_into_root...) \
             was called on a rank that is not the root: only the root calls it; the other \
             ranks call the matching `gather_into` / `scatter_into` / `reduce_into`"
                .to_string(),
        );
    }
    let rsmpi_partition = file.contains("/mpi-") && file.ends_with("datatype.rs");
    if rsmpi_partition && message.contains("c + d <= n") {
        return Some(
            "the counts of an all-to-all-v (`Partition`) ask for more than its buffer holds: \
             the rows and the counts of different exchanges (on the way back, the way out's \
             counts with send and receive swapped?)"
                .to_string(),
        );
    }
    crate::libtorch_errors::hint(message)
}

#[cfg(test)]
mod tests {
    use super::hint_for;

    #[test]
    fn rsmpi_assertions_get_their_classic_cause() {
        let rsmpi = "/home/me/.cargo/registry/src/index.crates.io-1949/mpi-0.8.2/src";
        let partition = "assertion failed: counts.borrow().iter().zip(displs.borrow().iter()).all(|(&c, &d)| c + d <= n)";
        let says = hint_for(&format!("{rsmpi}/datatype.rs"), partition).unwrap();
        assert!(says.contains("send and receive swapped"), "{says}");
        let root = "assertion `left == right` failed\n  left: 1\n right: 0";
        let says = hint_for(&format!("{rsmpi}/collective.rs"), root).unwrap();
        assert!(says.contains("only the root calls it"), "{says}");
        // The same words raised elsewhere are not rsmpi's.
        assert_eq!(hint_for("./src/exchange.rs", partition), None);
    }
}
