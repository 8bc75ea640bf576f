//! Newton's method for the algebraic variables: consistent `z` at a restart.
#![allow(clippy::needless_range_loop)]

use crate::error::{all_finite, SolveError};
use crate::linalg::Lu;
use crate::model::{HybridModel, Memory, ModeJacobian, Point};

/// Newton's method on `g(t, y, z, p, m) = 0` for `z` (with `y` fixed) in `mode`, with the
/// exact `g_z` at every iterate, until the correction is at round-off level
/// (`|Δz_i| ≤ 4ε|z_i|`) or stops decreasing once below `1e-10 (1 + |z|)`.
///
/// Errors: [`SolveError::SingularMatrix`] if `g_z` is singular,
/// [`SolveError::InconsistentInitialValues`] if the iteration does not converge.
#[allow(clippy::too_many_arguments)]
pub(crate) fn consistent_z<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    t: f64,
    y: &[f64; NY],
    z: &mut [f64; NZ],
    p: &[f64; NP],
    memory: &Memory<NY, NZ>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    if NZ == 0 {
        return Ok(());
    }
    const MAX_IT: usize = 30;
    let mut prev = f64::INFINITY;
    let mut last = f64::INFINITY;
    for _ in 0..MAX_IT {
        let at = Point { t, y, z, p, memory };
        let mut fv = [0.0; NY];
        let mut gv = [0.0; NZ];
        model.residual(mode, &at, &mut fv, &mut gv);
        let mut jac = ModeJacobian::ZERO;
        model.jacobian(mode, &at, &mut jac);
        if !all_finite(&gv) {
            return Err(SolveError::NonFiniteValue {
                t,
                mode,
                what: "g at a restart",
            });
        }
        let lu =
            Lu::factor(jac.gz).map_err(|e| SolveError::from_lu(e, t, mode, "g_z at a restart"))?;
        lu.solve(&mut gv);
        let mut dn = 0.0_f64;
        let mut roundoff = true;
        for i in 0..NZ {
            z[i] -= gv[i];
            dn = dn.max(gv[i].abs() / (1.0 + z[i].abs()));
            roundoff &= gv[i].abs() <= 4.0 * f64::EPSILON * z[i].abs();
        }
        if !dn.is_finite() {
            break;
        }
        last = dn;
        if roundoff || dn == 0.0 || (dn <= 1e-10 && dn > 0.5 * prev) {
            return Ok(());
        }
        prev = dn;
    }
    Err(SolveError::InconsistentInitialValues {
        t,
        mode,
        residual: last,
    })
}
