//! Dense LU factorization with partial (row) pivoting, `PA = LU`, for `[[f64; N]; N]`.
//!
//! Used for the ESDIRK iteration matrix (Kristensen et al. 2005, Algorithm 1), which is
//! factorized once per step and reused for every stage's Newton iterations, for the stage
//! matrices of the sensitivity solves and, transposed, for the discrete adjoint (`adjoint/`): `Aᵀx = b` is
//! solved with the same factors as `Uᵀ Lᵀ P x = b`.
//!
//! Algorithm: right-looking Doolittle elimination (Golub & Van Loan, *Matrix Computations*,
//! 4th ed., Alg. 3.4.1). `L` is unit lower triangular and stored below the diagonal, `U` on and
//! above it; `piv[k]` is the row swapped with row `k` at elimination step `k`.
//!
//! Index expressions are all bounded by the const `N` (loop ranges `0..N`), so no indexing can
//! fail at run time whatever the matrix values are.
#![allow(clippy::needless_range_loop)] // index-based loops mirror the textbook algorithm

use core::borrow::{Borrow, BorrowMut};

use super::{Inline, MatrixStore, StageFactors};

/// Why a factorization failed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LuError {
    /// The largest available pivot in this column is exactly zero: the matrix is singular.
    Singular {
        /// Column (elimination step) at which no nonzero pivot was found.
        column: usize,
    },
    /// A pivot candidate is NaN or infinite (the input contains non-finite values or the
    /// elimination overflowed).
    NonFinite {
        /// Column (elimination step) at which the non-finite value was met.
        column: usize,
    },
}

/// Dense LU factors of an `N × N` matrix with the row permutation; `S` keeps the factors
/// ([`Inline`]: in place).
#[derive(Clone, Debug, PartialEq)]
pub struct DenseLu<const N: usize, S: MatrixStore = Inline> {
    lu: S::Matrix<N, N>,
    piv: [usize; N],
}

impl<const N: usize> DenseLu<N> {
    /// Factorizes `a` in place (the small `NZ × NZ` matrices of the algebraic blocks).
    pub(crate) fn factor(a: [[f64; N]; N]) -> Result<Self, LuError> {
        let mut lu = DenseLu { lu: a, piv: [0; N] };
        lu.refactor_in_place()?;
        Ok(lu)
    }
}

impl<const N: usize, S: MatrixStore> DenseLu<N, S> {
    /// An all-zero matrix, not factorized: storage to fill with [`DenseLu::matrix_mut`] and
    /// factorize with [`DenseLu::refactor_in_place`].
    fn zeroed() -> Self {
        DenseLu {
            lu: S::zero_matrix(),
            piv: [0; N],
        }
    }

    /// The (trivial) factors of the identity matrix; a valid initial value for storage that is
    /// refilled with [`DenseLu::matrix_mut`] and [`DenseLu::refactor_in_place`].
    fn factor_identity() -> Self {
        let mut lu = Self::zeroed();
        for i in 0..N {
            lu.matrix_mut()[i][i] = 1.0;
            lu.piv[i] = i;
        }
        lu
    }

    /// Mutable access to the stored matrix, to fill a new matrix before
    /// [`DenseLu::refactor_in_place`] without another `N × N` temporary.
    fn matrix_mut(&mut self) -> &mut [[f64; N]; N] {
        self.lu.borrow_mut()
    }

    /// Factorizes the matrix currently stored (see [`DenseLu::matrix_mut`]) in place.
    ///
    /// On error the stored data is partially eliminated and must not be used for solves.
    fn refactor_in_place(&mut self) -> Result<(), LuError> {
        let a: &mut [[f64; N]; N] = self.lu.borrow_mut();
        for k in 0..N {
            // Partial pivoting: the largest |a_ik|, i ≥ k.
            let mut p = k;
            let mut best = a[k][k].abs();
            if best.is_nan() {
                return Err(LuError::NonFinite { column: k });
            }
            for i in (k + 1)..N {
                let v = a[i][k].abs();
                if v.is_nan() {
                    return Err(LuError::NonFinite { column: k });
                }
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best == 0.0 {
                return Err(LuError::Singular { column: k });
            }
            if !best.is_finite() {
                return Err(LuError::NonFinite { column: k });
            }
            self.piv[k] = p;
            if p != k {
                a.swap(p, k);
            }
            let inv = 1.0 / a[k][k];
            for i in (k + 1)..N {
                let l = a[i][k] * inv;
                a[i][k] = l;
                if l != 0.0 {
                    for j in (k + 1)..N {
                        a[i][j] -= l * a[k][j];
                    }
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place (`b` is overwritten by `x`).
    pub(crate) fn solve(&self, b: &mut [f64; N]) {
        let mut column = b.map(|v| [v]);
        self.solve_columns(&mut column);
        *b = column.map(|[v]| v);
    }

    /// Solves `A X = B` in place for `K` right-hand sides at once (the columns of `b`; `b` is
    /// overwritten by `X`): `P`, forward substitution with the unit `L`, back substitution with
    /// `U`. The column loop is innermost, where it vectorizes; each column gets the same
    /// operations as a single-column solve.
    pub(crate) fn solve_columns<const K: usize>(&self, b: &mut [[f64; K]; N]) {
        let a: &[[f64; N]; N] = self.lu.borrow();
        for k in 0..N {
            let p = self.piv[k];
            if p != k && p < N {
                b.swap(p, k);
            }
        }
        for i in 0..N {
            let mut s = b[i];
            for j in 0..i {
                for q in 0..K {
                    s[q] -= a[i][j] * b[j][q];
                }
            }
            b[i] = s;
        }
        for i in (0..N).rev() {
            let mut s = b[i];
            for j in (i + 1)..N {
                for q in 0..K {
                    s[q] -= a[i][j] * b[j][q];
                }
            }
            for q in 0..K {
                s[q] /= a[i][i];
            }
            b[i] = s;
        }
    }

    /// Solves the transposed system `Aᵀ x = b` in place with the same factors:
    /// `Aᵀ = Uᵀ Lᵀ P`, so solve `Uᵀ w = b`, `Lᵀ v = w`, then `x = Pᵀ v`.
    pub(crate) fn solve_transposed(&self, b: &mut [f64; N]) {
        let a: &[[f64; N]; N] = self.lu.borrow();
        for i in 0..N {
            let mut s = b[i];
            for j in 0..i {
                s -= a[j][i] * b[j];
            }
            b[i] = s / a[i][i];
        }
        for i in (0..N).rev() {
            let mut s = b[i];
            for j in (i + 1)..N {
                s -= a[j][i] * b[j];
            }
            b[i] = s;
        }
        for k in (0..N).rev() {
            let p = self.piv[k];
            if p != k && p < N {
                b.swap(p, k);
            }
        }
    }
}

impl<const N: usize, S: MatrixStore> StageFactors<N> for DenseLu<N, S> {
    fn identity() -> Self {
        Self::factor_identity()
    }

    #[inline(always)]
    fn refactor_with(&mut self, write: impl FnOnce(&mut [[f64; N]; N])) -> Result<(), LuError> {
        write(self.matrix_mut());
        self.refactor_in_place()
    }

    #[inline(always)]
    fn solve(&self, b: &mut [f64; N]) {
        DenseLu::solve(self, b)
    }

    #[inline(always)]
    fn solve_columns<const K: usize>(&self, b: &mut [[f64; K]; N]) {
        DenseLu::solve_columns(self, b)
    }

    #[inline(always)]
    fn solve_transposed(&self, b: &mut [f64; N]) {
        DenseLu::solve_transposed(self, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng::Rng;

    fn matvec<const N: usize>(a: &[[f64; N]; N], x: &[f64; N], transpose: bool) -> [f64; N] {
        let mut y = [0.0; N];
        for i in 0..N {
            for j in 0..N {
                y[i] += if transpose { a[j][i] } else { a[i][j] } * x[j];
            }
        }
        y
    }

    fn norm_inf<const N: usize>(x: &[f64; N]) -> f64 {
        x.iter().fold(0.0_f64, |m, v| m.max(v.abs()))
    }

    /// Backward stability of LU with partial pivoting: ‖b − A x̂‖ ≤ c N ε ‖A‖ ‖x̂‖ with a modest
    /// growth factor for random matrices (Golub & Van Loan §3.4.6). We assert the normwise
    /// relative residual ‖b − Ax̂‖∞ / (‖A‖∞ ‖x̂‖∞) < 1e-14 ≈ 50 ε for N ≤ 8.
    fn check_random<const N: usize>(seed: u64) {
        let mut rng = Rng(seed);
        for _ in 0..50 {
            let mut a = [[0.0; N]; N];
            for row in a.iter_mut() {
                for v in row.iter_mut() {
                    *v = rng.next();
                }
            }
            let mut b = [0.0; N];
            for v in b.iter_mut() {
                *v = rng.next();
            }
            let lu = DenseLu::factor(a).expect("random matrix is nonsingular with probability 1");
            let a_norm = a
                .iter()
                .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max);
            for transpose in [false, true] {
                let mut x = b;
                if transpose {
                    lu.solve_transposed(&mut x);
                } else {
                    lu.solve(&mut x);
                }
                let ax = matvec(&a, &x, transpose);
                let mut r = [0.0; N];
                for i in 0..N {
                    r[i] = b[i] - ax[i];
                }
                // ‖Aᵀ‖∞ = ‖A‖₁; bound both by N·max|a_ij|·... use max of the two norms.
                let at_norm = (0..N)
                    .map(|j| (0..N).map(|i| a[i][j].abs()).sum::<f64>())
                    .fold(0.0, f64::max);
                let scale = a_norm.max(at_norm) * norm_inf(&x);
                assert!(norm_inf(&r) / scale < 1e-14, "N={N} transpose={transpose}");
            }
            // Several right-hand sides at once: bit for bit the single-column solves.
            let mut columns = [[0.0; 3]; N];
            for (i, row) in columns.iter_mut().enumerate() {
                *row = [b[i], -2.0 * b[i] + 1.0, b[(i + 1) % N]];
            }
            let mut x = columns;
            lu.solve_columns(&mut x);
            for q in 0..3 {
                let mut single = [0.0; N];
                for i in 0..N {
                    single[i] = columns[i][q];
                }
                lu.solve(&mut single);
                for i in 0..N {
                    assert_eq!(x[i][q].to_bits(), single[i].to_bits(), "N={N} column {q}");
                }
            }
        }
    }

    #[test]
    fn random_systems() {
        check_random::<1>(1);
        check_random::<2>(2);
        check_random::<3>(3);
        check_random::<5>(5);
        check_random::<8>(8);
    }

    /// Without pivoting this matrix (tiny leading entry) loses all accuracy: elimination with
    /// pivot 1e-20 produces 1 − 1e20 which rounds to −1e20 and the computed x_1 would be 0.
    /// With partial pivoting the solution of [[1e-20, 1], [1, 1]] x = [1, 2] is x ≈ (1, 1) to
    /// within 1e-20 (exact: x_1 = 1/(1 − 1e-20), x_2 = (1 − 2e-20)/(1 − 1e-20)); we assert 1e-15
    /// (a few ulps).
    #[test]
    fn pivoting_is_necessary() {
        let a = [[1e-20, 1.0], [1.0, 1.0]];
        let lu = DenseLu::factor(a).unwrap();
        let mut x = [1.0, 2.0];
        lu.solve(&mut x);
        assert!(
            (x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15,
            "{x:?}"
        );
        // Zero leading pivot: impossible without a row exchange.
        let lu = DenseLu::factor([[0.0, 2.0], [3.0, 0.0]]).unwrap();
        let mut x = [4.0, 9.0];
        lu.solve(&mut x);
        assert_eq!(x, [3.0, 2.0]); // exact: all operations are exact in binary
    }

    #[test]
    fn singular_and_nonfinite_are_errors() {
        let e = DenseLu::factor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0]]);
        assert_eq!(e, Err(LuError::Singular { column: 1 }));
        assert_eq!(
            DenseLu::factor([[0.0; 2]; 2]),
            Err(LuError::Singular { column: 0 })
        );
        let e = DenseLu::factor([[1.0, 0.0], [f64::NAN, 1.0]]);
        assert_eq!(e, Err(LuError::NonFinite { column: 0 }));
        let e = DenseLu::factor([[1.0, 0.0], [0.0, f64::INFINITY]]);
        assert_eq!(e, Err(LuError::NonFinite { column: 1 }));
    }

    /// Transposed solve on a non-symmetric matrix with a known solution (integers, exact).
    #[test]
    fn transposed_solve_known() {
        let a = [[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [4.0, 0.0, 1.0]];
        let x_true = [1.0, -2.0, 3.0];
        let mut b = matvec(&a, &x_true, true);
        let lu = DenseLu::factor(a).unwrap();
        lu.solve_transposed(&mut b);
        for i in 0..3 {
            // Condition number of a is ~10; 1e-14 is a few ulps times that.
            assert!((b[i] - x_true[i]).abs() < 1e-14);
        }
    }

    /// The generic path of a declared pattern (`StageFactors::refactor_declared`, which the
    /// runtime uses only for the sparse LU): the same matrix, so the same factors, as filling
    /// the array.
    #[test]
    fn a_declared_pattern_gives_the_same_factors() {
        let a = [[2.0, 0.0, 1.0], [0.0, 3.0, 0.0], [4.0, 0.0, 1.0]];
        let nonzeros: &'static [(usize, usize)] = &[(2, 0), (0, 2)];
        let mut declared = DenseLu::<3>::identity();
        declared
            .refactor_declared(nonzeros, |r, c| a[r][c])
            .unwrap();
        assert_eq!(declared, DenseLu::factor(a).unwrap());
    }

    #[test]
    fn refactor_in_place_reuses_storage() {
        let mut lu = DenseLu::factor([[1.0, 0.0], [0.0, 1.0]]).unwrap();
        *lu.matrix_mut() = [[0.0, 1.0], [2.0, 0.0]];
        lu.refactor_in_place().unwrap();
        let mut x = [5.0, 4.0];
        lu.solve(&mut x);
        assert_eq!(x, [2.0, 5.0]);
    }
}
