//! Fixed-size dense linear algebra for the Newton iteration matrix and sensitivity solves: the
//! LU with partial pivoting (`lu.rs`) and the block vocabulary of a mode's Jacobian — stage
//! matrix, products with the Jacobian and its transpose (`blocks.rs`).
//!
//! Sizes are const generics; everything lives on the stack. No heap, no panics.

mod blocks;
mod lu;
#[cfg(test)]
pub(crate) mod test_rng;

pub use blocks::ModeJacobian;
pub(crate) use lu::{Lu, LuError};

/// Whether every entry of `v` is finite (no NaN, no infinity): the one finiteness check of the
/// runtime.
#[inline]
pub(crate) fn all_finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}
