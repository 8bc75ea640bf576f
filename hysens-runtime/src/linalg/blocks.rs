//! The block vocabulary of a semi-explicit index-1 DAE: its Jacobian in four blocks
//! ([`ModeJacobian`]: `f_y, f_z, g_y, g_z`), the ESDIRK stage matrix built from them, and the
//! products with the whole Jacobian and with its transpose that the forward sensitivities and
//! the adjoint share.
//!
//! Stable Rust cannot compute `N = NY + NZ` in a type, so the blocks keep their own shapes and
//! the full `N × N` matrix is assembled only where an LU needs it ([`ModeJacobian::stage_matrix`]).
//! Each product sums in a fixed order (the `y` columns, then the `z` columns), the order the
//! forward and the transposed maps both rely on to agree to round-off.
//!
//! The model's kernels write the blocks; the runtime reads a Jacobian only through the
//! methods here (products, the `g` blocks, the stage matrix's factorization). They are the
//! vocabulary a second, sparse storage of the Jacobian for large models has to provide.
//! `f_y`, the one `N²` block of an ODE, is kept where the model's [`MatrixStore`] says
//! (`store.rs`); the others are `NZ` wide or tall.

#![allow(clippy::needless_range_loop)] // index loops: the block products read like their formulas

use core::borrow::{Borrow, BorrowMut};

use super::{all_finite, Inline, Lu, LuError, MatrixStore, StageFactors};

/// Jacobian blocks of one mode at a point `(t, y, z, p)`. Row index = equation, column index =
/// variable (the standard Jacobian convention, not the transposed gradient convention of
/// Kristensen et al. 2005). `S` keeps `f_y` ([`Inline`]: in place, an `[[f64; NY]; NY]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ModeJacobian<const NY: usize, const NZ: usize, S: MatrixStore = Inline> {
    /// `∂f/∂y`, `NY × NY` (an `[[f64; NY]; NY]`, or its box for [`crate::Heap`]).
    pub fy: S::Matrix<NY, NY>,
    /// `∂f/∂z`, `NY × NZ`.
    pub fz: [[f64; NZ]; NY],
    /// `∂g/∂y`, `NZ × NY`.
    pub gy: [[f64; NY]; NZ],
    /// `∂g/∂z`, `NZ × NZ` (nonsingular for an index-1 DAE).
    pub gz: [[f64; NZ]; NZ],
}

impl<const NY: usize, const NZ: usize> ModeJacobian<NY, NZ> {
    /// All blocks zero.
    pub const ZERO: Self = ModeJacobian {
        fy: [[0.0; NY]; NY],
        fz: [[0.0; NZ]; NY],
        gy: [[0.0; NY]; NZ],
        gz: [[0.0; NZ]; NZ],
    };
}

impl<const NY: usize, const NZ: usize, S: MatrixStore> ModeJacobian<NY, NZ, S> {
    /// All blocks zero, `f_y` in the storage `S`.
    #[inline(always)]
    pub fn zeroed() -> Self {
        ModeJacobian {
            fy: S::zero_matrix(),
            fz: [[0.0; NZ]; NY],
            gy: [[0.0; NY]; NZ],
            gz: [[0.0; NZ]; NZ],
        }
    }

    /// Sets every block to zero (the state before a kernel writes its nonzeros).
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        for row in self.fy.borrow_mut().iter_mut() {
            *row = [0.0; NY];
        }
        self.fz = [[0.0; NZ]; NY];
        self.gy = [[0.0; NY]; NZ];
        self.gz = [[0.0; NZ]; NZ];
    }

    /// `f_y` as an array, wherever `S` keeps it.
    #[inline(always)]
    pub fn f_y(&self) -> &[[f64; NY]; NY] {
        self.fy.borrow()
    }

    /// Whether every entry of every block is finite.
    pub(crate) fn is_finite(&self) -> bool {
        self.f_y().iter().all(all_finite)
            && self.fz.iter().all(all_finite)
            && self.gy.iter().all(all_finite)
            && self.gz.iter().all(all_finite)
    }

    /// The stage matrix `[I − hγ f_y, −hγ f_z; g_y, g_z]` for `hg = hγ` (Christensen,
    /// Cantisani & Jørgensen, Eq. 7), rows `f` then `g`, columns `y` then `z`, written into
    /// `m` (`N = NY + NZ`): the Newton iteration matrix of the stages and the exact matrix of
    /// their sensitivity equations alike.
    #[inline(always)]
    fn write_stage_matrix<const N: usize>(&self, hg: f64, m: &mut [[f64; N]; N]) {
        let fy = self.f_y();
        for r in 0..NY {
            for c in 0..NY {
                m[r][c] = -hg * fy[r][c] + if r == c { 1.0 } else { 0.0 };
            }
            for c in 0..NZ {
                m[r][NY + c] = -hg * self.fz[r][c];
            }
        }
        for r in 0..NZ {
            m[NY + r][..NY].copy_from_slice(&self.gy[r]);
            m[NY + r][NY..].copy_from_slice(&self.gz[r]);
        }
    }

    /// Entry `(r, c)` of the stage matrix for `hg = hγ` (the same value as
    /// [`ModeJacobian::write_stage_matrix`] writes there); `0` outside `N × N`.
    #[inline(always)]
    fn stage_entry(&self, hg: f64, r: usize, c: usize) -> f64 {
        let (fy, identity) = (self.f_y(), if r == c { 1.0 } else { 0.0 });
        let at = |block: &[[f64; NY]], row: usize| block.get(row).and_then(|v| v.get(c).copied());
        let value = match (r.checked_sub(NY), c.checked_sub(NY)) {
            (None, None) => at(fy, r).map(|v| -hg * v + identity),
            (None, Some(cz)) => self.fz.get(r).and_then(|v| v.get(cz)).map(|v| -hg * v),
            (Some(rz), None) => at(&self.gy, rz),
            (Some(rz), Some(cz)) => self.gz.get(rz).and_then(|v| v.get(cz).copied()),
        };
        value.unwrap_or(0.0)
    }

    /// Factorizes the stage matrix for `hg = hγ` into `lu`, in place (no `N × N` temporary;
    /// on error `lu` must not be used for solves). `nonzeros`: the mode's declared Jacobian
    /// pattern ([`crate::smooth::SmoothMode::jacobian_nonzeros`]), which a sparse LU builds the matrix
    /// on; the dense LU writes every entry.
    #[inline(always)]
    pub(crate) fn refactor_stage_matrix<const N: usize>(
        &self,
        hg: f64,
        lu: &mut Lu<N, S>,
        nonzeros: Option<&'static [(usize, usize)]>,
    ) -> Result<(), LuError> {
        match nonzeros {
            Some(nonzeros) if <Lu<N, S> as StageFactors<N>>::USES_DECLARED_PATTERN => {
                lu.refactor_declared(nonzeros, |r, c| self.stage_entry(hg, r, c))
            }
            _ => lu.refactor_with(|m| self.write_stage_matrix(hg, m)),
        }
    }

    /// `g_y` (`NZ × NY`).
    #[inline(always)]
    pub(crate) fn g_y(&self) -> [[f64; NY]; NZ] {
        self.gy
    }

    /// `g_z` (`NZ × NZ`).
    #[inline(always)]
    pub(crate) fn g_z(&self) -> [[f64; NZ]; NZ] {
        self.gz
    }

    /// Replaces `g_y` and `g_z` (an index-2 mode's dense output takes its hidden constraint's
    /// partials for them).
    #[inline(always)]
    pub(crate) fn set_g_blocks(&mut self, gy: [[f64; NY]; NZ], gz: [[f64; NZ]; NZ]) {
        (self.gy, self.gz) = (gy, gz);
    }

    /// `Σ_c |∂f_row/∂y_c · y_c|` and `Σ_c |∂f_row/∂z_c · z_c|`: the magnitudes of the terms of
    /// `f_y y` and `f_z z` in one row, each summed over its columns in order (the scale of a
    /// rate's round-off, `events/arming.rs`).
    #[inline(always)]
    pub(crate) fn f_row_abs_terms(&self, row: usize, y: &[f64; NY], z: &[f64; NZ]) -> (f64, f64) {
        let abs_dot =
            |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| (a * b).abs()).sum::<f64>();
        (abs_dot(&self.f_y()[row], y), abs_dot(&self.fz[row], z))
    }

    /// `(f_y v)_row = Σ_c ∂f_row/∂y_c v_c`, summed over the columns in order.
    #[inline(always)]
    pub(crate) fn f_y_row_times(&self, row: usize, v: &[f64; NY]) -> f64 {
        self.f_y()[row].iter().zip(v).map(|(a, b)| a * b).sum()
    }

    /// `out_f −= f_y v_y + f_z v_z` for the vector `(v_y, v_z)`, entry by entry (each row's
    /// `y` columns, then its `z` columns, subtracted one at a time from its value in `out_f`).
    #[inline(always)]
    pub(crate) fn sub_f_times_vector(&self, vy: &[f64; NY], vz: &[f64; NZ], out_f: &mut [f64; NY]) {
        let fy = self.f_y();
        for k in 0..NY {
            for c in 0..NY {
                out_f[k] -= fy[k][c] * vy[c];
            }
            for c in 0..NZ {
                out_f[k] -= self.fz[k][c] * vz[c];
            }
        }
    }

    /// `out_g += g_y v_y + g_z v_z`, entry by entry as [`ModeJacobian::sub_f_times_vector`].
    #[inline(always)]
    pub(crate) fn add_g_times_vector(&self, vy: &[f64; NY], vz: &[f64; NZ], out_g: &mut [f64; NZ]) {
        for k in 0..NZ {
            for c in 0..NY {
                out_g[k] += self.gy[k][c] * vy[c];
            }
            for c in 0..NZ {
                out_g[k] += self.gz[k][c] * vz[c];
            }
        }
    }

    /// `out_y −= g_yᵀ μ`, `out_z −= g_zᵀ μ`, row by row of `g` (for each row `r`, its `y`
    /// columns, then its `z` columns, each subtracting `∂g_r/∂· μ_r`).
    #[inline(always)]
    pub(crate) fn sub_g_transposed_times(
        &self,
        mu: &[f64; NZ],
        out_y: &mut [f64; NY],
        out_z: &mut [f64; NZ],
    ) {
        for r in 0..NZ {
            let l = mu[r];
            for c in 0..NY {
                out_y[c] -= self.gy[r][c] * l;
            }
            for c in 0..NZ {
                out_z[c] -= self.gz[r][c] * l;
            }
        }
    }

    /// `out_f += f_y S_y + f_z S_z`, column by column: the `f` rows of the Jacobian times the
    /// `K` columns `(S_y, S_z)`.
    #[inline(always)]
    pub(crate) fn add_f_times<const K: usize>(
        &self,
        sy: &[[f64; K]; NY],
        sz: &[[f64; K]; NZ],
        out_f: &mut [[f64; K]; NY],
    ) {
        add_block_rows(self.f_y(), &self.fz, sy, sz, out_f);
    }

    /// [`ModeJacobian::add_f_times`] over the declared nonzeros `(row, column)` of the whole
    /// Jacobian (rows `f` then `g`, columns `y` then `z`; [`crate::smooth::SmoothMode::jacobian_nonzeros`])
    /// if the storage asks for it ([`MatrixStore::DECLARED_PATTERN`]): `O(nnz K)` instead of
    /// `O(N² K)`. The pattern must hold every nonzero of `self` (the macro's does: it is the
    /// structure the Jacobian kernel writes). Row-major, as the macro's, each entry gets the same
    /// sums in the same order as the dense loop, without the terms of structural zeros.
    #[inline(always)]
    pub(crate) fn add_f_times_declared<const K: usize>(
        &self,
        nonzeros: Option<&[(usize, usize)]>,
        sy: &[[f64; K]; NY],
        sz: &[[f64; K]; NZ],
        out_f: &mut [[f64; K]; NY],
    ) {
        let Some(nonzeros) = nonzeros.filter(|_| S::DECLARED_PATTERN) else {
            return self.add_f_times(sy, sz, out_f);
        };
        let fy = self.f_y();
        for &(r, c) in nonzeros {
            if r >= NY {
                continue; // a `g` row
            }
            let (a, s) = if c < NY {
                (fy[r][c], &sy[c])
            } else if c - NY < NZ {
                (self.fz[r][c - NY], &sz[c - NY])
            } else {
                continue; // outside the Jacobian: nothing to add
            };
            for q in 0..K {
                out_f[r][q] += a * s[q];
            }
        }
    }

    /// `out_g += g_y S_y + g_z S_z`: the `g` rows of the Jacobian times the columns `(S_y, S_z)`.
    #[inline(always)]
    pub(crate) fn add_g_times<const K: usize>(
        &self,
        sy: &[[f64; K]; NY],
        sz: &[[f64; K]; NZ],
        out_g: &mut [[f64; K]; NZ],
    ) {
        add_block_rows(&self.gy, &self.gz, sy, sz, out_g);
    }

    /// The transposed product `(f_yᵀ λ + g_yᵀ μ, f_zᵀ λ + g_zᵀ μ)`: the adjoint of
    /// [`ModeJacobian::add_f_times`] and [`ModeJacobian::add_g_times`] together.
    #[inline(always)]
    pub(crate) fn transposed_times(
        &self,
        lambda: &[f64; NY],
        mu: &[f64; NZ],
    ) -> ([f64; NY], [f64; NZ]) {
        let (mut y, mut z) = ([0.0; NY], [0.0; NZ]);
        let fy = self.f_y();
        for c in 0..NY {
            let mut v = 0.0;
            for r in 0..NY {
                v += fy[r][c] * lambda[r];
            }
            for r in 0..NZ {
                v += self.gy[r][c] * mu[r];
            }
            y[c] = v;
        }
        for c in 0..NZ {
            let mut v = 0.0;
            for r in 0..NY {
                v += self.fz[r][c] * lambda[r];
            }
            for r in 0..NZ {
                v += self.gz[r][c] * mu[r];
            }
            z[c] = v;
        }
        (y, z)
    }
}

/// `out += A S_y + B S_z` for the row blocks `A` (`R × NY`) and `B` (`R × NZ`), each entry
/// summed over the `y` columns, then the `z` columns, onto its value in `out`.
#[inline(always)]
fn add_block_rows<const R: usize, const NY: usize, const NZ: usize, const K: usize>(
    a: &[[f64; NY]; R],
    b: &[[f64; NZ]; R],
    sy: &[[f64; K]; NY],
    sz: &[[f64; K]; NZ],
    out: &mut [[f64; K]; R],
) {
    for r in 0..R {
        for c in 0..NY {
            for q in 0..K {
                out[r][q] += a[r][c] * sy[c][q];
            }
        }
        for c in 0..NZ {
            for q in 0..K {
                out[r][q] += b[r][c] * sz[c][q];
            }
        }
    }
}

#[cfg(all(test, feature = "sparse"))]
mod tests {
    use super::*;
    use crate::linalg::test_rng::Rng;
    use crate::Sparse;
    use std::vec::Vec;

    const NY: usize = 12;
    const NZ: usize = 3;
    const K: usize = 4;

    /// A random Jacobian with about a quarter of its entries nonzero, in the inline and the
    /// sparse storage, and its row-major pattern.
    fn sample(
        rng: &mut Rng,
    ) -> (
        ModeJacobian<NY, NZ>,
        ModeJacobian<NY, NZ, Sparse>,
        Vec<(usize, usize)>,
    ) {
        let (mut dense, mut sparse) =
            (ModeJacobian::ZERO, ModeJacobian::<NY, NZ, Sparse>::zeroed());
        let mut pattern = Vec::new();
        for r in 0..NY + NZ {
            for c in 0..NY + NZ {
                if rng.next() < -0.5 {
                    pattern.push((r, c));
                    let v = rng.next();
                    match (r < NY, c < NY) {
                        (true, true) => (dense.fy[r][c], sparse.fy[r][c]) = (v, v),
                        (true, false) => (dense.fz[r][c - NY], sparse.fz[r][c - NY]) = (v, v),
                        (false, true) => (dense.gy[r - NY][c], sparse.gy[r - NY][c]) = (v, v),
                        (false, false) => {
                            (dense.gz[r - NY][c - NY], sparse.gz[r - NY][c - NY]) = (v, v)
                        }
                    }
                }
            }
        }
        (dense, sparse, pattern)
    }

    #[test]
    fn the_declared_product_is_the_dense_one() {
        let mut rng = Rng(7);
        for _ in 0..20 {
            let (dense, sparse, mut pattern) = sample(&mut rng);
            let sy: [[f64; K]; NY] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next()));
            let sz: [[f64; K]; NZ] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next()));
            let start: [[f64; K]; NY] =
                core::array::from_fn(|_| core::array::from_fn(|_| rng.next()));
            let mut expected = start;
            dense.add_f_times(&sy, &sz, &mut expected);
            // Row-major (the macro's order): the same sums in the same order, bit for bit.
            let mut got = start;
            sparse.add_f_times_declared(Some(&pattern), &sy, &sz, &mut got);
            assert_eq!(got, expected);
            // The inline storage ignores the pattern (its numbers are the dense loops').
            let mut inline = start;
            dense.add_f_times_declared(Some(&[]), &sy, &sz, &mut inline);
            assert_eq!(inline, expected);
            // The pattern is what is read: without its first entry of an `f` row, that row
            // misses the entry's terms.
            if let Some(at) = pattern.iter().position(|&(r, _)| r < NY) {
                let mut short = pattern.clone();
                let (r, _) = short.remove(at);
                let mut missing = start;
                sparse.add_f_times_declared(Some(&short), &sy, &sz, &mut missing);
                assert_ne!(missing[r], expected[r]);
            }
            // Any order, and entries outside the matrix ignored: the same up to round-off.
            pattern.reverse();
            pattern.push((NY + NZ, 0));
            pattern.push((0, NY + NZ + 5));
            let mut reordered = start;
            sparse.add_f_times_declared(Some(&pattern), &sy, &sz, &mut reordered);
            for (a, b) in reordered.iter().flatten().zip(expected.iter().flatten()) {
                assert!((a - b).abs() <= 1e-14 * (1.0 + b.abs()), "{a} vs {b}");
            }
            // No pattern declared: the dense loops.
            let mut undeclared = start;
            sparse.add_f_times_declared(None, &sy, &sz, &mut undeclared);
            assert_eq!(undeclared, expected);
        }
    }
}
