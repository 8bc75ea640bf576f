//! The block vocabulary of a semi-explicit index-1 DAE: its Jacobian in four blocks
//! ([`ModeJacobian`]: `f_y, f_z, g_y, g_z`), the ESDIRK stage matrix built from them, and the
//! products with the whole Jacobian and with its transpose that the forward sensitivities and
//! the adjoint share.
//!
//! Stable Rust cannot compute `N = NY + NZ` in a type, so the blocks keep their own shapes and
//! the full `N × N` matrix is assembled only where an LU needs it ([`ModeJacobian::stage_matrix`]).
//! Each product sums in a fixed order (the `y` columns, then the `z` columns), the order the
//! forward and the transposed maps both rely on to agree to round-off.

#![allow(clippy::needless_range_loop)] // index loops: the block products read like their formulas

use super::all_finite;

/// Jacobian blocks of one mode at a point `(t, y, z, p)`. Row index = equation, column index =
/// variable (the standard Jacobian convention, not the transposed gradient convention of
/// Kristensen et al. 2005).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeJacobian<const NY: usize, const NZ: usize> {
    /// `∂f/∂y`, `NY × NY`.
    pub fy: [[f64; NY]; NY],
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

    /// Whether every entry of every block is finite.
    pub(crate) fn is_finite(&self) -> bool {
        self.fy.iter().all(all_finite)
            && self.fz.iter().all(all_finite)
            && self.gy.iter().all(all_finite)
            && self.gz.iter().all(all_finite)
    }

    /// The stage matrix `[I − hγ f_y, −hγ f_z; g_y, g_z]` for `hg = hγ` (Christensen,
    /// Cantisani & Jørgensen, Eq. 7), rows `f` then `g`, columns `y` then `z`, written into
    /// `m` (`N = NY + NZ`): the Newton iteration matrix of the stages and the exact matrix of
    /// their sensitivity equations alike.
    #[inline(always)]
    pub(crate) fn write_stage_matrix<const N: usize>(&self, hg: f64, m: &mut [[f64; N]; N]) {
        for r in 0..NY {
            for c in 0..NY {
                m[r][c] = -hg * self.fy[r][c] + if r == c { 1.0 } else { 0.0 };
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

    /// The stage matrix of [`ModeJacobian::write_stage_matrix`] as a new array.
    #[inline(always)]
    pub(crate) fn stage_matrix<const N: usize>(&self, hg: f64) -> [[f64; N]; N] {
        let mut m = [[0.0; N]; N];
        self.write_stage_matrix(hg, &mut m);
        m
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
        add_block_rows(&self.fy, &self.fz, sy, sz, out_f);
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
        for c in 0..NY {
            let mut v = 0.0;
            for r in 0..NY {
                v += self.fy[r][c] * lambda[r];
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
