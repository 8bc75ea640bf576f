//! The rate of the algebraic variables along a mode's flow, `ż = −g_z⁻¹ (g_y ẏ + g_t)` from
//! the time-differentiated constraint: what the event semantics read to take a guard's rate
//! (`events/`) and the adjoint's left limit at an event (`adjoint/left_limit.rs`).

use super::{HybridModel, ModeJacobian, Point};
use crate::linalg::{Lu, LuError};

/// `ż = −g_z⁻¹ (g_y ẏ + g_t)` in `mode` at `at`, from the time-differentiated constraint
/// (Serban & Recuero 2019, below Eq. 6; zero-size when `NZ = 0`); `Err` for a singular `g_z`.
pub(crate) fn algebraic_rate<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    ydot: &[f64; NY],
) -> Result<[f64; NZ], LuError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut zdot = [0.0; NZ];
    if NZ == 0 {
        return Ok(zdot);
    }
    let mut jac = ModeJacobian::ZERO;
    model.jacobian(mode, at, &mut jac);
    let mut ft = [0.0; NY];
    let mut gt = [0.0; NZ];
    model.time_partials(mode, at, &mut ft, &mut gt);
    for ((out, row), g_t) in zdot.iter_mut().zip(&jac.gy).zip(gt) {
        *out = -row.iter().zip(ydot).fold(g_t, |v, (a, y)| v + a * y);
    }
    Lu::factor(jac.gz)?.solve(&mut zdot);
    Ok(zdot)
}
