//! The rate of the algebraic variables along a mode's flow, `ż = −g_z⁻¹ (g_y ẏ + g_t)` from
//! the time-differentiated constraint: what the event semantics read to take a guard's rate
//! (`events/`) and the adjoint's left limit at an event (`adjoint/left_limit.rs`). In a
//! Hessenberg index-2 mode the hidden constraint `H = k_y f + k_t` takes `g`'s place
//! (`SmoothMode::condition`): `ż = −H_z⁻¹ (H_y ẏ + H_t)`.

use super::{ConditionPartials, HybridModel, ModeJacobian, Point};
use crate::linalg::{DenseLu, LuError};

/// `ż = −g_z⁻¹ (g_y ẏ + g_t)` in `mode` at `at`, from the time-differentiated constraint
/// (Serban & Recuero 2019, below Eq. 6; zero-size when `NZ = 0`), with the hidden constraint in
/// place of `g` in an index-2 mode (module docs); `Err` for a singular `g_z` (`H_z`).
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
    let (cy, cz, ct) = if M::MODES.get(mode).is_some_and(|info| info.index2) {
        let mut partials = ConditionPartials::ZERO;
        model.hidden_constraint_partials(mode, at, &mut partials);
        (partials.cy, partials.cz, partials.ct)
    } else {
        let mut jac = ModeJacobian::zeroed();
        model.jacobian(mode, at, &mut jac);
        let mut ft = [0.0; NY];
        let mut gt = [0.0; NZ];
        model.time_partials(mode, at, &mut ft, &mut gt);
        (jac.g_y(), jac.g_z(), gt)
    };
    for ((out, row), c_t) in zdot.iter_mut().zip(&cy).zip(ct) {
        *out = -row.iter().zip(ydot).fold(c_t, |v, (a, y)| v + a * y);
    }
    DenseLu::factor(cz)?.solve(&mut zdot);
    Ok(zdot)
}
