//! What the runtime asks of the factors of an `N × N` stage matrix, whatever keeps them: the
//! dense LU with partial pivoting (`lu.rs`, for [`crate::Inline`] and [`crate::Heap`]) or the
//! sparse LU (`sparse.rs`, for [`crate::Sparse`], feature `sparse`).
//!
//! The matrices factorized are the ESDIRK stage matrices `[I − hγ f_y, −hγ f_z; g_y, g_z]`
//! (Kristensen et al. 2005, Algorithm 1): the Newton iteration matrix, the exact stage
//! matrices of the forward sensitivities, and, solved transposed, the discrete adjoint's. A
//! storage supplies them through [`crate::MatrixStore::Factors`].

use super::LuError;

/// Factors of an `N × N` matrix, refilled and refactorized in place (module docs).
///
/// Not meant to be implemented outside the runtime: the trait is reachable only as the bound
/// of [`crate::MatrixStore::Factors`].
pub trait StageFactors<const N: usize>: Clone + core::fmt::Debug {
    /// The (trivial) factors of the identity: a valid value before the first factorization.
    fn identity() -> Self;

    /// Factorizes the matrix that `write` fills in. `write` gets an `N × N` array (its entries
    /// are unspecified; it must write all of them). On error the factors must not be used for
    /// solves until the next successful factorization.
    fn refactor_with(&mut self, write: impl FnOnce(&mut [[f64; N]; N])) -> Result<(), LuError>;

    /// Whether [`StageFactors::refactor_declared`] is this storage's way to factorize a matrix
    /// whose pattern is declared (the sparse LU); the dense LU fills the array either way.
    const USES_DECLARED_PATTERN: bool = false;

    /// Factorizes the matrix whose nonzeros are among `nonzeros` and the diagonal, entry
    /// `(r, c)` being `entry(r, c)`. Same errors as [`StageFactors::refactor_with`]. The
    /// default fills an array and calls it.
    fn refactor_declared(
        &mut self,
        nonzeros: &'static [(usize, usize)],
        entry: impl Fn(usize, usize) -> f64,
    ) -> Result<(), LuError> {
        self.refactor_with(|m| {
            for row in m.iter_mut() {
                *row = [0.0; N];
            }
            for (i, row) in m.iter_mut().enumerate() {
                row[i] = entry(i, i);
            }
            for &(r, c) in nonzeros {
                if let Some(v) = m.get_mut(r).and_then(|row| row.get_mut(c)) {
                    *v = entry(r, c);
                }
            }
        })
    }

    /// Solves `A x = b` in place (`b` is overwritten by `x`).
    fn solve(&self, b: &mut [f64; N]);

    /// Solves `A X = B` in place for the `K` columns of `b`; each column gets the same
    /// operations as a single-column [`StageFactors::solve`].
    fn solve_columns<const K: usize>(&self, b: &mut [[f64; K]; N]);

    /// Solves the transposed system `Aᵀ x = b` in place with the same factors.
    fn solve_transposed(&self, b: &mut [f64; N]);
}
