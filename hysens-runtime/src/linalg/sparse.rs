//! [`SparseLu`], the stage-matrix factors of the [`crate::Sparse`] storage (feature `sparse`):
//! faer's sparse LU with partial pivoting (a COLAMD column ordering, then left-looking
//! elimination that picks the largest entry of each column).
//!
//! **Pattern.** The factors keep the stage matrix `[I − hγ f_y, −hγ f_z; g_y, g_z]` row by
//! row, compressed. A row-compressed `A` is the column-compressed `B = Aᵀ`, so faer factorizes
//! `B`: `A x = b` is solved as `Bᵀ x = b` and `Aᵀ x = b` as `B x = b`, and partial pivoting of
//! `B`'s rows is pivoting of `A`'s columns, as stable. The pattern comes from one of two places:
//!
//! - **declared** ([`StageFactors::refactor_declared`]): the mode's structural nonzeros
//!   (`SmoothMode::jacobian_nonzeros`, which `#[hybrid_model]` emits from the symbolic
//!   Jacobian) and the diagonal; the entries are read from the Jacobian's blocks at those
//!   places only, so building the matrix costs `O(nnz)`. The path of every generated model.
//! - **scanned** ([`StageFactors::refactor_with`], a mode that declares nothing): the runtime
//!   writes the whole `N × N` array into a scratch matrix recycled per thread
//!   ([`HeapMatrix`]) and its nonzeros are gathered, `O(N²)`. A later matrix whose nonzeros fall
//!   inside the pattern keeps it (an entry that happens to be zero stays as an explicit zero);
//!   one with a nonzero outside grows the pattern to the union, which settles on the union of
//!   the modes' structural patterns. The diagonal is always in.
//!
//! **One analysis per pattern.** The symbolic analysis (ordering, elimination structure)
//! depends on the pattern only: done when the pattern is new, reused by every numeric
//! refactorization on it, shared (`Arc`) by clones of the factors.
//!
//! **Zero pivots.** faer divides by the largest remaining entry of a column even when it is
//! zero (it reports only a column with no entry at all), and its factors then hold infinities.
//! Each factorization is therefore followed by a solve of `A x = (1, …, 1)`: a zero pivot makes
//! some `x_j` infinite or NaN, reported as [`LuError::Singular`] at the first such `j` (an
//! index of `x`, not an elimination step as for the dense LU).
//!
//! Cost per factorization: building the matrix (`O(nnz)` declared, `O(N²)` scanned) and the
//! sparse elimination (`O(nnz(L + U))` for a banded or tree-like pattern); per solve,
//! `O(nnz(L + U))` instead of the dense `O(N²)`.

use std::sync::Arc;
use std::vec::Vec;

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{factorize_symbolic_lu, NumericLu, SymbolicLu};
use faer::sparse::linalg::LuError as FaerLuError;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

use super::{HeapMatrix, LuError, StageFactors};

/// Sparse LU factors of an `N × N` stage matrix (module docs).
#[derive(Clone, Debug)]
pub struct SparseLu<const N: usize> {
    /// Where each row's entries start in `col_idx` and `values` (`N + 1` offsets).
    row_ptr: Vec<usize>,
    /// The column of each kept entry, ascending within a row.
    col_idx: Vec<usize>,
    /// The kept entries of the matrix last factorized, row by row.
    values: Vec<f64>,
    /// `None`: the factors of the identity (nothing factorized yet).
    factors: Option<Factors>,
    /// The declared pattern the compressed one was built from (`refactor_declared`), if any.
    declared: Option<&'static [(usize, usize)]>,
}

/// faer's symbolic analysis of the pattern and the numeric factors of `B = Aᵀ`.
#[derive(Clone, Debug)]
struct Factors {
    symbolic: Arc<SymbolicLu<usize>>,
    numeric: NumericLu<usize, f64>,
}

/// faer runs sequentially: a solve's linear algebra is small next to a thread's hand-off, and
/// a batch of solves parallelizes over its solves (`hysens::batch`).
const PAR: Par = Par::Seq;

impl<const N: usize> SparseLu<N> {
    /// The pattern `B = Aᵀ` as faer reads it (column `i` of `B` is row `i` of `A`).
    fn pattern(&self) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(N, N, &self.row_ptr, None, &self.col_idx)
    }

    /// Copies the nonzeros of `a` into `values` if they all fall inside the pattern; `Ok(false)`
    /// if one does not (then `values` is partly overwritten).
    fn gather(&mut self, a: &[[f64; N]; N]) -> Result<bool, LuError> {
        for (i, row) in a.iter().enumerate() {
            let kept = self.row_ptr[i]..self.row_ptr[i + 1];
            let (cols, values) = (&self.col_idx[kept.clone()], &mut self.values[kept]);
            let mut k = 0;
            for (j, &v) in row.iter().enumerate() {
                if !v.is_finite() {
                    return Err(LuError::NonFinite { column: j });
                }
                if cols.get(k) == Some(&j) {
                    values[k] = v;
                    k += 1;
                } else if v != 0.0 {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Grows the pattern to hold every nonzero of `a` as well (and the diagonal), with `a`'s
    /// values.
    fn grow_pattern(&mut self, a: &[[f64; N]; N]) {
        let (mut row_ptr, mut col_idx, mut values) = (Vec::new(), Vec::new(), Vec::new());
        row_ptr.push(0);
        for (i, row) in a.iter().enumerate() {
            let old = &self.col_idx[self.row_ptr[i]..self.row_ptr[i + 1]];
            let mut k = 0;
            for (j, &v) in row.iter().enumerate() {
                let was_kept = old.get(k) == Some(&j);
                k += usize::from(was_kept);
                if was_kept || v != 0.0 || i == j {
                    col_idx.push(j);
                    values.push(v);
                }
            }
            row_ptr.push(col_idx.len());
        }
        (self.row_ptr, self.col_idx, self.values) = (row_ptr, col_idx, values);
        self.declared = None;
    }

    /// Builds the compressed pattern from a declared one: its entries inside `N × N` and the
    /// diagonal, row by row, columns ascending, each once; the values zero.
    fn declare(&mut self, nonzeros: &'static [(usize, usize)]) {
        let mut entries: Vec<(usize, usize)> = nonzeros
            .iter()
            .copied()
            .filter(|&(r, c)| r < N && c < N)
            .chain((0..N).map(|i| (i, i)))
            .collect();
        entries.sort_unstable();
        entries.dedup();
        self.row_ptr = core::iter::once(0)
            .chain((0..N).map(|i| entries.partition_point(|&(r, _)| r <= i)))
            .collect();
        self.col_idx = entries.iter().map(|&(_, c)| c).collect();
        self.values = std::vec![0.0; entries.len()];
        self.declared = Some(nonzeros);
    }

    /// The symbolic analysis of the current pattern.
    fn analyze(&self) -> Result<Arc<SymbolicLu<usize>>, LuError> {
        factorize_symbolic_lu(self.pattern(), Default::default())
            .map(Arc::new)
            .map_err(|e| from_faer(FaerLuError::Generic(e)))
    }

    /// The numeric factorization of the current values, then the zero-pivot probe (module
    /// docs).
    fn finish(
        &mut self,
        symbolic: Arc<SymbolicLu<usize>>,
        mut numeric: NumericLu<usize, f64>,
    ) -> Result<(), LuError> {
        self.factor_numeric(&symbolic, &mut numeric)?;
        self.factors = Some(Factors { symbolic, numeric });
        let mut probe = [1.0; N];
        self.solve(&mut probe);
        if let Some(column) = probe.iter().position(|v| !v.is_finite()) {
            self.factors = None;
            return Err(LuError::Singular { column });
        }
        Ok(())
    }

    /// The numeric factorization of the gathered values with `symbolic`, into `numeric` (its
    /// buffers reused).
    fn factor_numeric(
        &self,
        symbolic: &SymbolicLu<usize>,
        numeric: &mut NumericLu<usize, f64>,
    ) -> Result<(), LuError> {
        let scratch = symbolic.factorize_numeric_lu_scratch::<f64>(PAR, Default::default());
        let mut buffer = MemBuffer::new(scratch);
        let b = SparseColMatRef::new(self.pattern(), &self.values);
        symbolic
            .factorize_numeric_lu(
                numeric,
                b,
                PAR,
                MemStack::new(&mut buffer),
                Default::default(),
            )
            .map_err(from_faer)?;
        Ok(())
    }

    /// Solves with the factors of `B = Aᵀ` in place: `transposed_b` solves `Bᵀ X = R`.
    fn solve_in_place(&self, rhs: MatMut<'_, f64>, transposed_b: bool) {
        let Some(f) = &self.factors else {
            return; // the identity
        };
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(&f.symbolic, &f.numeric);
        let scratch = f.symbolic.solve_in_place_scratch::<f64>(rhs.ncols(), PAR);
        let mut buffer = MemBuffer::new(scratch);
        let stack = MemStack::new(&mut buffer);
        if transposed_b {
            lu.solve_transpose_in_place_with_conj(Conj::No, rhs, PAR, stack);
        } else {
            lu.solve_in_place_with_conj(Conj::No, rhs, PAR, stack);
        }
    }
}

/// faer's factorization errors: a column of `B` with no entry to pivot on (a row of `A` of
/// zeros outside the pattern cannot happen, the diagonal is kept; an all-zero kept row can).
/// Its other errors are allocation failures, handled as the standard library handles them.
fn from_faer(e: FaerLuError) -> LuError {
    match e {
        FaerLuError::SymbolicSingular { index } => LuError::Singular { column: index },
        FaerLuError::Generic(_) => {
            std::alloc::handle_alloc_error(core::alloc::Layout::new::<f64>())
        }
    }
}

impl<const N: usize> StageFactors<N> for SparseLu<N> {
    fn identity() -> Self {
        SparseLu {
            row_ptr: (0..=N).collect(),
            col_idx: (0..N).collect(),
            values: std::vec![1.0; N],
            factors: None,
            declared: None,
        }
    }

    const USES_DECLARED_PATTERN: bool = true;

    fn refactor_declared(
        &mut self,
        nonzeros: &'static [(usize, usize)],
        entry: impl Fn(usize, usize) -> f64,
    ) -> Result<(), LuError> {
        let same = self.declared.is_some_and(|d| core::ptr::eq(d, nonzeros));
        let analyzed = self.factors.take().filter(|_| same);
        if analyzed.is_none() && !same {
            self.declare(nonzeros);
        }
        for i in 0..N {
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let column = self.col_idx[k];
                let v = entry(i, column);
                if !v.is_finite() {
                    return Err(LuError::NonFinite { column });
                }
                self.values[k] = v;
            }
        }
        let (symbolic, numeric) = match analyzed {
            Some(f) => (f.symbolic, f.numeric),
            None => (self.analyze()?, NumericLu::new()),
        };
        self.finish(symbolic, numeric)
    }

    fn refactor_with(&mut self, write: impl FnOnce(&mut [[f64; N]; N])) -> Result<(), LuError> {
        let mut a = HeapMatrix::<N, N>::zeros();
        write(&mut a);
        let (symbolic, numeric) = match self.factors.take() {
            Some(f) if self.gather(&a)? => (f.symbolic, f.numeric),
            _ => {
                if !self.gather(&a)? {
                    self.grow_pattern(&a);
                }
                (self.analyze()?, NumericLu::new())
            }
        };
        self.finish(symbolic, numeric)
    }

    fn solve(&self, b: &mut [f64; N]) {
        self.solve_in_place(MatMut::from_column_major_slice_mut(b, N, 1), true);
    }

    fn solve_columns<const K: usize>(&self, b: &mut [[f64; K]; N]) {
        let rows = b.as_flattened_mut();
        self.solve_in_place(MatMut::from_row_major_slice_mut(rows, N, K), true);
    }

    fn solve_transposed(&self, b: &mut [f64; N]) {
        self.solve_in_place(MatMut::from_column_major_slice_mut(b, N, 1), false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng::Rng;
    use crate::linalg::DenseLu;

    const N: usize = 40;

    /// A stage-matrix-like pattern: `I − hγ J` for a tridiagonal `J` with a few far entries
    /// (one row coupled to a distant column, as a thermostat's sensor couples to the heater).
    fn sample(rng: &mut Rng, far: &[(usize, usize)]) -> [[f64; N]; N] {
        let mut a = [[0.0; N]; N];
        for i in 0..N {
            a[i][i] = 1.0 + 2.0 * rng.next().abs();
            if i > 0 {
                a[i][i - 1] = rng.next();
            }
            if i + 1 < N {
                a[i][i + 1] = rng.next();
            }
        }
        for &(i, j) in far {
            a[i][j] = 3.0 * rng.next();
        }
        a
    }

    fn residual(a: &[[f64; N]; N], x: &[f64; N], b: &[f64; N], transposed: bool) -> f64 {
        let mut worst = 0.0_f64;
        for i in 0..N {
            let ax: f64 = (0..N)
                .map(|j| if transposed { a[j][i] } else { a[i][j] } * x[j])
                .sum();
            worst = worst.max((ax - b[i]).abs());
        }
        worst
    }

    fn factor(a: &[[f64; N]; N], lu: &mut SparseLu<N>) -> Result<(), LuError> {
        lu.refactor_with(|m| *m = *a)
    }

    /// Solves, transposed solves and several columns at once against the matrix itself: the
    /// residual is round-off (these matrices are well conditioned, entries of order one; 1e-13
    /// is a few hundred ulps over 40 unknowns), and the dense LU gives the same solution to
    /// round-off.
    #[test]
    fn solves_match_the_matrix_and_the_dense_lu() {
        let mut rng = Rng(7);
        let mut lu = SparseLu::<N>::identity();
        for round in 0..5 {
            let a = sample(&mut rng, &[(3, 31), (29, 0), (N / 2, N - 1)]);
            factor(&a, &mut lu).unwrap();
            let dense = DenseLu::factor(a).unwrap();
            let b: [f64; N] = core::array::from_fn(|_| rng.next());
            for transposed in [false, true] {
                let (mut x, mut y) = (b, b);
                if transposed {
                    lu.solve_transposed(&mut x);
                    dense.solve_transposed(&mut y);
                } else {
                    lu.solve(&mut x);
                    dense.solve(&mut y);
                }
                assert!(residual(&a, &x, &b, transposed) < 1e-13, "round {round}");
                for i in 0..N {
                    assert!((x[i] - y[i]).abs() < 1e-12, "round {round}, {i}");
                }
            }
            let mut columns: [[f64; 3]; N] = core::array::from_fn(|i| [b[i], -b[i], 1.0]);
            lu.solve_columns(&mut columns);
            for q in 0..3 {
                let mut single: [f64; N] = core::array::from_fn(|i| [b[i], -b[i], 1.0][q]);
                lu.solve(&mut single);
                for i in 0..N {
                    assert_eq!(columns[i][q].to_bits(), single[i].to_bits(), "column {q}");
                }
            }
        }
    }

    /// The analysis is reused while the nonzeros stay inside the pattern (an entry that became
    /// zero included), and redone on the union when one falls outside.
    #[test]
    fn the_pattern_is_analyzed_once_and_grown_when_needed() {
        let mut rng = Rng(11);
        let mut lu = SparseLu::<N>::identity();
        // The analysis itself (its `Arc`), held: compared by address, a dropped one's address
        // could be reused by the next.
        let analysis = |lu: &SparseLu<N>| Arc::clone(&lu.factors.as_ref().unwrap().symbolic);
        let a = sample(&mut rng, &[(5, 20)]);
        factor(&a, &mut lu).unwrap();
        let first = analysis(&lu);
        let mut b = sample(&mut rng, &[(5, 20)]);
        b[7][8] = 0.0;
        factor(&b, &mut lu).unwrap();
        assert!(
            Arc::ptr_eq(&analysis(&lu), &first),
            "same pattern: the analysis is reused"
        );
        let c = sample(&mut rng, &[(30, 2)]);
        factor(&c, &mut lu).unwrap();
        assert!(
            !Arc::ptr_eq(&analysis(&lu), &first),
            "a new nonzero: analyzed again"
        );
        assert!(
            lu.col_idx[lu.row_ptr[5]..lu.row_ptr[6]].contains(&20),
            "the union is kept"
        );
        let rhs = [1.0; N];
        let mut x = rhs;
        lu.solve(&mut x);
        assert!(residual(&c, &x, &rhs, false) < 1e-13);
        // A clone shares the analysis.
        assert!(Arc::ptr_eq(&analysis(&lu.clone()), &analysis(&lu)));
    }

    /// A declared pattern (the model's structural nonzeros): the same factors as reading the
    /// whole array — the same pattern and values, so the same bits — analyzed once while the
    /// same pattern is declared, and again when another is.
    #[test]
    fn a_declared_pattern_factorizes_as_the_scanned_one() {
        let mut rng = Rng(5);
        let a = sample(&mut rng, &[(3, 31), (29, 0)]);
        let mut nonzeros = std::vec::Vec::new();
        for (i, row) in a.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 && i != j {
                    nonzeros.push((i, j)); // the diagonal left out
                }
            }
        }
        nonzeros.reverse(); // and listed out of order
        let nonzeros: &'static [(usize, usize)] = std::vec::Vec::leak(nonzeros);
        let (mut scanned, mut declared) = (SparseLu::<N>::identity(), SparseLu::<N>::identity());
        factor(&a, &mut scanned).unwrap();
        declared
            .refactor_declared(nonzeros, |r, c| a[r][c])
            .unwrap();
        // The analysis itself (its `Arc`), held: compared by address, a dropped one's address
        // could be reused by the next.
        let analysis = |lu: &SparseLu<N>| Arc::clone(&lu.factors.as_ref().unwrap().symbolic);
        let first = analysis(&declared);
        let b: [f64; N] = core::array::from_fn(|_| rng.next());
        let (mut x, mut y) = (b, b);
        scanned.solve(&mut x);
        declared.solve(&mut y);
        assert_eq!(x.map(f64::to_bits), y.map(f64::to_bits));
        // New values on the same pattern: the analysis is kept.
        let scaled = a.map(|row| row.map(|v| 2.0 * v));
        declared
            .refactor_declared(nonzeros, |r, c| scaled[r][c])
            .unwrap();
        assert!(Arc::ptr_eq(&analysis(&declared), &first));
        let mut z = b;
        declared.solve(&mut z);
        for i in 0..N {
            assert!((2.0 * z[i] - x[i]).abs() < 1e-13, "{i}");
        }
        // Another declared pattern: analyzed anew; a non-finite entry is reported.
        let other: &'static [(usize, usize)] = std::vec::Vec::leak(std::vec![(0, 1), (1, 0)]);
        let mut c = [[0.0; N]; N];
        for (i, row) in c.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        (c[0][1], c[1][0]) = (0.5, f64::NAN);
        assert_eq!(
            declared.refactor_declared(other, |r, col| c[r][col]),
            Err(LuError::NonFinite { column: 0 })
        );
        c[1][0] = 0.25;
        declared
            .refactor_declared(other, |r, col| c[r][col])
            .unwrap();
        assert!(!Arc::ptr_eq(&analysis(&declared), &first));
        let mut w = [1.0; N];
        declared.solve(&mut w);
        assert!(residual(&c, &w, &[1.0; N], false) < 1e-15);
    }

    /// Without pivoting, the 1e-20 pivot would lose everything (see the dense LU's test).
    #[test]
    fn pivoting_is_applied() {
        let mut a = [[0.0; N]; N];
        for (i, row) in a.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        (a[0][0], a[0][1], a[1][0], a[1][1]) = (1e-20, 1.0, 1.0, 1.0);
        let mut lu = SparseLu::<N>::identity();
        factor(&a, &mut lu).unwrap();
        let mut x = [0.0; N];
        (x[0], x[1]) = (1.0, 2.0);
        lu.solve(&mut x);
        assert!(
            (x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15,
            "{:?}",
            &x[..2]
        );
    }

    #[test]
    fn singular_and_nonfinite_are_errors() {
        let mut rng = Rng(3);
        let mut lu = SparseLu::<N>::identity();
        // Two equal rows: numerically singular, every entry inside the pattern.
        let mut a = sample(&mut rng, &[]);
        a[9] = a[8];
        assert!(matches!(factor(&a, &mut lu), Err(LuError::Singular { .. })));
        // A row of zeros (the diagonal is kept, as an explicit zero).
        let mut a = sample(&mut rng, &[]);
        a[4] = [0.0; N];
        assert!(matches!(factor(&a, &mut lu), Err(LuError::Singular { .. })));
        let mut a = sample(&mut rng, &[]);
        a[2][3] = f64::NAN;
        assert_eq!(factor(&a, &mut lu), Err(LuError::NonFinite { column: 3 }));
        // And it recovers on the next good matrix.
        let a = sample(&mut rng, &[]);
        factor(&a, &mut lu).unwrap();
        let mut x = [1.0; N];
        lu.solve(&mut x);
        assert!(residual(&a, &x, &[1.0; N], false) < 1e-13);
    }
}
