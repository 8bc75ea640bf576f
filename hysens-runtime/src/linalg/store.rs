//! Where the runtime keeps a model's square matrices: the mode Jacobian's `f_y`, the reset's
//! `∂R/∂y⁻` and `∂R/∂y*`, and the LU factors of the `N × N` stage matrices — and how it
//! factorizes the stage matrices.
//!
//! Everything else a solve holds grows like `N` times the number of stages or sensitivity
//! columns; these grow like `N²` (8 MB each at 1,000 states), so they decide whether a model
//! fits on a thread's stack. A model chooses with its [`crate::HybridModel::Store`]
//! ([`crate::SmoothMode::Store`]): [`Inline`], the no-heap default, keeps them in the frames as
//! `[[f64; C]; R]` arrays (the runtime's types are then exactly what they were without the
//! choice: same layout, same code, same numbers); [`Heap`] (feature `std`) keeps each in one
//! heap allocation of the same layout, so a large model solves on an ordinary thread. The
//! arithmetic is the same code over the same arrays either way, so both give the same numbers
//! bit for bit. [`Sparse`] (feature `sparse`) keeps the matrices as [`Heap`] does but
//! factorizes the stage matrices with a sparse LU (`sparse.rs`): for large models whose
//! Jacobian is sparse, where a dense LU and its solves, `O(N³)` and `O(N²)`, are the cost of a
//! solve. Its numbers agree with the dense LU's to round-off, not bit for bit.

use core::borrow::{Borrow, BorrowMut};
use core::fmt::Debug;

use super::{DenseLu, StageFactors};

#[cfg(feature = "std")]
pub use super::heap::HeapMatrix;
#[cfg(feature = "sparse")]
pub use super::sparse::SparseLu;

/// Storage of the runtime's `R × C` matrices and factorization of its stage matrices (see the
/// module docs).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a matrix storage of this build",
    note = "`Heap` needs the feature `std` of hysens-runtime, `Sparse` the feature `sparse` of hysens"
)]
pub trait MatrixStore: Clone + Copy + Debug + PartialEq + 'static {
    /// An `R × C` matrix of this storage, read and written as `[[f64; C]; R]`.
    type Matrix<const R: usize, const C: usize>: Borrow<[[f64; C]; R]>
        + BorrowMut<[[f64; C]; R]>
        + Clone
        + Debug
        + PartialEq;

    /// The factors of an `N × N` stage matrix.
    type Factors<const N: usize>: StageFactors<N>;

    /// Whether products with a mode Jacobian run over the model's declared nonzeros
    /// ([`crate::smooth::SmoothMode::jacobian_nonzeros`]) instead of every entry: `O(nnz)` instead of
    /// `O(N²)` per column. Off for [`Inline`] and [`Heap`], whose numbers stay those of the
    /// dense loops bit for bit.
    const DECLARED_PATTERN: bool = false;

    /// An all-zero `R × C` matrix, built without an `R × C` temporary on the stack.
    fn zero_matrix<const R: usize, const C: usize>() -> Self::Matrix<R, C>;
}

/// The no-heap storage: matrices are `[[f64; C]; R]` arrays in the runtime's frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inline {}

impl MatrixStore for Inline {
    type Matrix<const R: usize, const C: usize> = [[f64; C]; R];
    type Factors<const N: usize> = DenseLu<N, Inline>;

    #[inline(always)]
    fn zero_matrix<const R: usize, const C: usize>() -> [[f64; C]; R] {
        [[0.0; C]; R]
    }
}

/// The heap storage (feature `std`): each matrix is one heap allocation ([`HeapMatrix`],
/// recycled when dropped), so the frames hold a pointer instead of `8 R C` bytes. For models
/// of hundreds of states or more.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heap {}

#[cfg(feature = "std")]
impl MatrixStore for Heap {
    type Matrix<const R: usize, const C: usize> = HeapMatrix<R, C>;
    type Factors<const N: usize> = DenseLu<N, Heap>;

    fn zero_matrix<const R: usize, const C: usize>() -> HeapMatrix<R, C> {
        HeapMatrix::zeros()
    }
}

/// The sparse storage (feature `sparse`): the matrices as in [`Heap`], the stage matrices
/// factorized by a sparse LU ([`SparseLu`]: faer's, one symbolic analysis per sparsity pattern,
/// the numeric factorization per step), the Jacobian's products over its declared nonzeros.
/// For large models with sparse Jacobians.
#[cfg(feature = "sparse")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sparse {}

#[cfg(feature = "sparse")]
impl MatrixStore for Sparse {
    type Matrix<const R: usize, const C: usize> = HeapMatrix<R, C>;
    type Factors<const N: usize> = SparseLu<N>;
    const DECLARED_PATTERN: bool = true;

    fn zero_matrix<const R: usize, const C: usize>() -> HeapMatrix<R, C> {
        HeapMatrix::zeros()
    }
}
