//! Declaring an MPI test once: its name, its rank counts and its element types.
//!
//! [`mpi_test!`](crate::mpi_test) writes the `#[test]` function that calls
//! [`at_ranks`](crate::testing::at_ranks) with the function's own name (`stringify!`),
//! so the name the launcher asks libtest to run can never disagree with the test's. With
//! `for T in [...]` it runs the body once per element type, `T` naming the type, in the
//! order given, and stops at the first type that fails (every rank stops there too: the
//! lockstep properties agree on each verdict).
//!
//! ```ignore
//! toolkit::mpi_test! {
//!     /// Ex 2.3: the root's result equals MPI_Reduce's.
//!     fn ex2_3_reduce_binomial(world at RANKS) for T in [i32, i64, f32, f64] {
//!         reduce_equals_mpi::<T>(world)
//!     }
//!
//!     fn ex4_2_pack_unpack(world at &[1]) {
//!         pack_property(world)
//!     }
//! }
//! ```
//!
//! Each body is an expression of type `Result<(), String>` run on every rank with
//! `world: &SimpleCommunicator`. Declare the tests at the top level of a test file: libtest
//! knows a test inside a module by a longer name.

/// Declares `#[test]` functions that run their body on every rank of an MPI job, once per
/// rank count (see the [module documentation](crate::declare) for the syntax).
#[macro_export]
macro_rules! mpi_test {
    () => {};
    (
        $(#[$attr:meta])*
        fn $name:ident($world:ident at $ranks:expr) for $T:ident in [$($t:ty),+ $(,)?]
        $body:block
        $($rest:tt)*
    ) => {
        $crate::mpi_test! {
            $(#[$attr])*
            fn $name($world at $ranks) {
                $({
                    #[allow(dead_code)]
                    type $T = $t;
                    let verdict: ::std::result::Result<(), ::std::string::String> = $body;
                    verdict?;
                })+
                Ok(())
            }
            $($rest)*
        }
    };
    (
        $(#[$attr:meta])*
        fn $name:ident($world:ident at $ranks:expr) $body:block
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        #[test]
        fn $name() {
            $crate::testing::at_ranks(stringify!($name), $ranks, |$world| {
                let verdict: ::std::result::Result<(), ::std::string::String> = $body;
                verdict
            });
        }
        $crate::mpi_test! { $($rest)* }
    };
}
