//! Fixed-size linear algebra for the Newton iteration matrix and sensitivity solves: what a
//! factorization provides (`factors.rs`), the dense LU with partial pivoting (`lu.rs`), the
//! sparse LU of large models (`sparse.rs`, feature `sparse`) and the block vocabulary of a
//! mode's Jacobian — stage matrix, products with the Jacobian and its transpose (`blocks.rs`).
//!
//! Sizes are const generics; everything lives on the stack, except the `N²` matrices of a
//! model that chose the heap (`store.rs`). No panics.

mod blocks;
mod factors;
#[cfg(feature = "std")]
mod heap;
mod lu;
#[cfg(feature = "sparse")]
mod sparse;
mod store;
#[cfg(test)]
pub(crate) mod test_rng;

pub use blocks::ModeJacobian;
pub(crate) use factors::StageFactors;
pub(crate) use lu::{DenseLu, LuError};
#[cfg(feature = "std")]
pub use store::{Heap, HeapMatrix};
pub use store::{Inline, MatrixStore};
#[cfg(feature = "sparse")]
pub use store::{Sparse, SparseLu};

/// The factors of a stage matrix of storage `S` (`store.rs`).
pub(crate) type Lu<const N: usize, S> = <S as MatrixStore>::Factors<N>;

/// Whether every entry of `v` is finite (no NaN, no infinity): the one finiteness check of the
/// runtime.
#[inline]
pub(crate) fn all_finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// `C Cᵀ` of a `K × N` matrix `C` (its rows' Gram matrix): what the least change onto a
/// linear(ized) constraint `C x = b` solves with, `x = Cᵀ (C Cᵀ)⁻¹ b`.
pub(crate) fn row_gram<const K: usize, const N: usize>(c: &[[f64; N]; K]) -> [[f64; K]; K] {
    core::array::from_fn(|i| core::array::from_fn(|j| (0..N).map(|m| c[i][m] * c[j][m]).sum()))
}
