//! Proof that the Rust hysens-symbolic emits compiles, is clippy-clean, and computes what
//! [`Graph::eval`](hysens_symbolic::Graph::eval) computes.
//!
//! The build script differentiates the expressions of [`cases`] and writes the emitted
//! functions into `$OUT_DIR/kernels.rs`; [`kernels`] includes that file. `include!`d code is
//! not a macro expansion, so rustc and clippy lint it as if it were written here:
//! `cargo clippy --all-targets -- -D warnings` on this crate fails on any warning in emitted
//! code. The tests (in `tests/`) run the compiled kernels against `Graph::eval` on the graphs
//! of [`generate`], and inspect the emitted tokens for common-subexpression elimination and
//! Jacobian sparsity.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod cases;
pub mod generate;
pub mod inspect;
pub mod registry;
pub mod sample;

/// The functions hysens-symbolic emitted for [`cases`], compiled.
pub mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

/// The text of the included `kernels.rs`, so tests can check it is the rendering of
/// [`generate::kernels`].
pub const KERNELS_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.rs"));
