//! The start of a segment's forward sensitivities: at `t0` from the given `s_0 = ∂y0/∂p`, and
//! after an event from the jump's `s⁺` and the event time's `τ` (the grid shift of the new
//! segment's start). The algebraic part follows from the differentiated constraint of the
//! mode at the moving start point,
//!
//! ```text
//! g_y s + g_z w + g_t τ + g_p + g_{y*} s* + g_{z*} w* = 0,   w = −g_z⁻¹ (g_y s + g_t τ + g_p + …)
//! ```
//!
//! (Kristensen et al. 2005, Eq. 3; the memory terms of Serban & Recuero 2019, Eq. 25b, are
//! part of `g_p` through the mode adapter, `model/adapter.rs`). In a Hessenberg index-2 mode
//! `g = k(t, y, p)` does not determine `z`; the hidden constraint `k_y f + k_t` takes `g`'s
//! place in this formula (Serban & Recuero 2019, §2, Eq. 18; `SmoothMode::condition`). Its
//! transpose is `adjoint/start.rs`.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::Following;
use crate::error::SolveError;
use crate::linalg::{all_finite, DenseLu, LuError};
use crate::model::{constraint_gram, constraint_rows, g_partials, ConditionPartials, SmoothMode};

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, const N: usize>
    Following<'_, '_, M, S, NY, NZ, NP, N>
where
    M: SmoothMode<NY, NZ, NP>,
{
    /// [`Esdirk::enable_sensitivities_at`].
    pub(crate) fn enable_sensitivities_at(
        &mut self,
        sy0: [[f64; NP]; NY],
        st0: [f64; NP],
    ) -> Result<(), SolveError> {
        if !sy0.iter().all(all_finite) || !all_finite(&st0) {
            return Err(self.step.err_nonfinite("initial sensitivities"));
        }
        let mut sz0 = [[0.0; NP]; NZ];
        let mut sy0 = sy0;
        if NZ > 0 && self.step.model.is_index2() {
            // The state was put on `k = 0` by the least change (`newton::project_onto_constraint`):
            // its sensitivities by that projection's derivative on the constraint,
            // `s ← s − Cᵀ (C Cᵀ)⁻¹ (C s + k_p + k_t ∂t₀/∂p)`, `C = k_y` (exact when the given
            // state was on it; otherwise off by the curvature of `k` times the change).
            let mut k = ConditionPartials::ZERO;
            let (t, y, z, p) = (self.step.t, &self.step.y, &self.step.z, &self.step.p);
            g_partials(self.step.model, t, y, z, p, &mut k);
            let gram = constraint_gram(&mut k, &constraint_rows(self.step.model));
            sy0 = onto_linearized_constraint(&k, gram, &sy0, &st0)
                .map_err(|e| self.step.lu_error(e))?;
        }
        if NZ > 0 {
            // w₀ = −c_z⁻¹ (c_y s₀ + c_p + c_t ∂t₀/∂p), `c` the condition that defines `z`
            // (`g`, or the hidden constraint of an index-2 mode; `SmoothMode::condition`).
            let mut c = ConditionPartials::ZERO;
            let (t, y, z, p) = (self.step.t, &self.step.y, &self.step.z, &self.step.p);
            self.step.model.condition_partials(t, y, z, p, &mut c);
            self.step.stats.sensitivity_jacobian_evals += 1;
            sz0 = algebraic_sensitivities(&c, &sy0, &st0).map_err(|e| self.step.lu_error(e))?;
            if !sz0.iter().all(all_finite) {
                return Err(self.step.err_nonfinite("initial algebraic sensitivities"));
            }
        }
        self.fsa.sens.sy = sy0;
        self.fsa.sens.st = st0;
        self.fsa.sens.sz = sz0;
        // Sensitivities a `try_step` computed from the previous ones no longer apply.
        self.fsa.pending = None;
        self.fsa.enabled = true;
        Ok(())
    }
}

/// `w = −c_z⁻¹ (c_y s + c_p + c_t ∂t/∂p)`: the sensitivities of the algebraic variables that the
/// condition `c` with partials `partials` defines from the states' `sy` at a point whose time
/// moves with `p` by `st` (module docs).
pub(super) fn algebraic_sensitivities<const NY: usize, const NZ: usize, const NP: usize>(
    partials: &ConditionPartials<NY, NZ, NP>,
    sy: &[[f64; NP]; NY],
    st: &[f64; NP],
) -> Result<[[f64; NP]; NZ], LuError> {
    let c = partials;
    let lu = DenseLu::factor(c.cz)?;
    let mut sz = [[0.0; NP]; NZ];
    for q in 0..NP {
        let mut rhs = [0.0; NZ];
        for r in 0..NZ {
            let mut v = c.cp[r][q] + c.ct[r] * st[q];
            for col in 0..NY {
                v += c.cy[r][col] * sy[col][q];
            }
            rhs[r] = -v;
        }
        lu.solve(&mut rhs);
        for r in 0..NZ {
            sz[r][q] = rhs[r];
        }
    }
    Ok(sz)
}

/// `s − Cᵀ (C Cᵀ)⁻¹ (C s + k_p + k_t st)` with `C = k_y` from the constraint's partials `k`
/// (`gram`: `C Cᵀ`, from `model::constraint_gram`): the sensitivities `s` moved least onto the
/// linearized constraint `C s + k_p + k_t st = 0`.
fn onto_linearized_constraint<const NY: usize, const NZ: usize, const NP: usize>(
    k: &ConditionPartials<NY, NZ, NP>,
    gram: [[f64; NZ]; NZ],
    sy: &[[f64; NP]; NY],
    st: &[f64; NP],
) -> Result<[[f64; NP]; NY], LuError> {
    let c = &k.cy;
    let lu = DenseLu::factor(gram)?;
    let mut out = *sy;
    for q in 0..NP {
        let mut defect: [f64; NZ] = core::array::from_fn(|r| {
            k.cp[r][q] + k.ct[r] * st[q] + (0..NY).map(|m| c[r][m] * sy[m][q]).sum::<f64>()
        });
        lu.solve(&mut defect);
        for m in 0..NY {
            out[m][q] -= (0..NZ).map(|r| c[r][m] * defect[r]).sum::<f64>();
        }
    }
    Ok(out)
}
