//! The algebraic variables of an index-1 mode as functions of the differential states:
//! consistent values by Newton's method on `0 = g(t, y, z, p)`, and their sensitivity
//! `∂z/∂y = −g_z⁻¹ g_y` (Christensen et al., Eq. 35; the filter's `C_k` and covariance live on
//! this manifold, pitfall P12 of the notes on the seed).

use crate::error::ControlError;
use crate::model::ModeOf;
use nalgebra::{DMatrix, DVector};

/// Relative and absolute tolerance of the algebraic Newton iteration: the result is consistent
/// to about round-off of `z` (the filter's re-solve after an update, Christensen et al.
/// Eq. 40, asks for the exact solution).
const RTOL: f64 = 1e-12;
/// See [`RTOL`].
const ATOL: f64 = 1e-14;
/// Iterations before giving up. Newton converges quadratically from a guess near the manifold
/// (the previous `z`); 30 leaves room for a poor first guess.
const MAX_ITERATIONS: usize = 30;

/// `g_z` as a dense matrix, or the singular-Jacobian error if it has a non-finite entry.
pub(crate) fn algebraic_jacobian<const NY: usize, const NZ: usize>(
    gz: &[[f64; NZ]; NZ],
    t: f64,
    during: &'static str,
) -> Result<DMatrix<f64>, ControlError> {
    let m = DMatrix::from_fn(NZ, NZ, |i, j| gz[i][j]);
    if m.iter().all(|v| v.is_finite()) {
        Ok(m)
    } else {
        Err(ControlError::SingularAlgebraicJacobian { t, during })
    }
}

impl<M, const NY: usize, const NZ: usize, const NP: usize> ModeOf<'_, M, NY, NZ, NP>
where
    M: hysens::runtime::HybridModel<NY, NZ, NP>,
{
    /// `z` with `g(t, y, z, p) = 0`, by Newton's method from `guess` with the exact `g_z` at
    /// every iterate. Errors: a singular `g_z`
    /// ([`ControlError::SingularAlgebraicJacobian`]), no convergence in 30 iterations
    /// ([`ControlError::NewtonFailure`]), a non-finite residual.
    pub fn consistent_algebraic(
        &self,
        t: f64,
        y: &[f64; NY],
        guess: &[f64; NZ],
        p: &[f64; NP],
        during: &'static str,
    ) -> Result<[f64; NZ], ControlError> {
        if NZ == 0 {
            // An ODE: nothing to solve (and nalgebra's LU of a 0×0 matrix does not solve).
            return Ok(*guess);
        }
        let mut z = *guess;
        let mut correction = f64::INFINITY;
        for iteration in 0..MAX_ITERATIONS {
            let (_, g) = self.residual(t, y, &z, p);
            if !g.iter().all(|v| v.is_finite()) {
                return Err(ControlError::NonFinite {
                    t,
                    what: "the algebraic residual g",
                });
            }
            let jac = self.jacobian(t, y, &z, p);
            let gz = algebraic_jacobian::<NY, NZ>(&jac.gz, t, during)?;
            let rhs = DVector::from_fn(NZ, |i, _| -g[i]);
            let dz = gz
                .lu()
                .solve(&rhs)
                .ok_or(ControlError::SingularAlgebraicJacobian { t, during })?;
            correction = 0.0;
            for (zi, d) in z.iter_mut().zip(dz.iter()) {
                *zi += d;
                correction = f64::max(correction, d.abs() / (ATOL + RTOL * zi.abs()));
            }
            if correction <= 1.0 || (iteration > 0 && g.iter().all(|v| *v == 0.0)) {
                return Ok(z);
            }
        }
        Err(ControlError::NewtonFailure {
            t,
            during,
            iterations: MAX_ITERATIONS,
            last_correction: correction,
        })
    }

    /// `∂z/∂y = −g_z⁻¹ g_y` (`NZ × NY`) at a consistent point (Christensen et al., Eq. 35).
    pub fn algebraic_sensitivity(
        &self,
        t: f64,
        y: &[f64; NY],
        z: &[f64; NZ],
        p: &[f64; NP],
        during: &'static str,
    ) -> Result<DMatrix<f64>, ControlError> {
        if NZ == 0 {
            return Ok(DMatrix::zeros(0, NY));
        }
        let jac = self.jacobian(t, y, z, p);
        let gz = algebraic_jacobian::<NY, NZ>(&jac.gz, t, during)?;
        let gy = DMatrix::from_fn(NZ, NY, |i, j| -jac.gy[i][j]);
        gz.lu()
            .solve(&gy)
            .ok_or(ControlError::SingularAlgebraicJacobian { t, during })
    }
}
