//! Cost terms and their forward-sensitivity gradients.
//!
//! * Integral cost `∫ L dt`: by the step's own quadrature `Q = H Σ_i b_i L(T_i, Y_i, Z_i)`,
//!   `T_i = t_n + c_i H`, over the stages of every accepted step. This is exactly the ESDIRK
//!   solution of the augmented state `q' = L` (a quadrature variable advanced with the same
//!   tableau), so the cost is consistent with the discrete solution, and its gradient is the
//!   exact derivative of that quadrature (with the step sequence frozen):
//!   ```text
//!   dQ/dp = dH Σ_i b_i L_i + H Σ_i b_i (L_t (dt_n + c_i dH) + L_y dY_i + L_z dZ_i + L_p
//!                                        + L_{y*} s* + L_{z*} w*)
//!   ```
//!   with the total IND stage sensitivities `dY_i, dZ_i` and the step's start-time and length
//!   sensitivities `dt_n = ∂t_n/∂p`, `dH = ∂H/∂p` (`fsa/`; nonzero only at and after
//!   an event). The `dH` terms of the event step and of the landing step that ends the shifted
//!   segment are the exact discrete counterpart of the Leibniz term `(L⁻ − L⁺) τ` of the
//!   continuous problem (Serban & Recuero 2019, Eq. 8), which is therefore not added.
//! * Terminal cost `φ(t_f, y, z, p)` and sampled cost `Σ_k ℓ(t_k, y_k, z_k, p, d_k)`:
//!   gradients `φ_y s + φ_z w + φ_p + φ_{y*} s* + φ_{z*} w*` at the point (sample times and
//!   `t_f` are fixed, so there is no `τ` term).
//!
//! Each is the term of one objective (`model/costs.rs`): the sum of the model's costs, or one
//! named cost; the solve that reports every named cost applies these once per cost.
#![allow(clippy::needless_range_loop)]

use crate::model::{HybridModel, ModeAdapter, Objective, ScalarPartials};
use crate::tableau::Tableau;

/// Adds `∂s/∂y sy + ∂s/∂z sz + ∂s/∂p + ∂s/∂y* s* + ∂s/∂z* w*` to `grad`.
pub(crate) fn add_scalar_gradient<const NY: usize, const NZ: usize, const NP: usize>(
    d: &ScalarPartials<NY, NZ, NP>,
    sy: &[[f64; NP]; NY],
    sz: &[[f64; NP]; NZ],
    memory_sy: &[[f64; NP]; NY],
    memory_sz: &[[f64; NP]; NZ],
    weight: f64,
    grad: &mut [f64; NP],
) {
    for q in 0..NP {
        let mut v = d.p[q];
        for c in 0..NY {
            v += d.y[c] * sy[c][q] + d.memory_y[c] * memory_sy[c][q];
        }
        for c in 0..NZ {
            v += d.z[c] * sz[c][q] + d.memory_z[c] * memory_sz[c][q];
        }
        grad[q] += weight * v;
    }
}

/// Sensitivities of one step: stages `(dY_i, dZ_i)`, start time `dt_n` and length `dH`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StageSensitivities<
    'a,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
> {
    /// `dY_i` (total).
    pub sy: &'a [[[f64; NP]; NY]; S],
    /// `dZ_i` (total).
    pub sz: &'a [[[f64; NP]; NZ]; S],
    /// `∂t_n/∂p`.
    pub dt: &'a [f64; NP],
    /// `∂H/∂p`.
    pub dh: &'a [f64; NP],
}

/// Adds the quadrature `h Σ_i b_i L_i` of the integrand of `objective` over one accepted step
/// (stages `ys, zs` starting at `t`) to `cost` and, with stage sensitivities, its derivative to
/// `grad` (module docs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_integral_step<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
>(
    (model, objective): (&M, Objective),
    mode: &ModeAdapter<'_, M, NY, NZ, NP>,
    tableau: &Tableau<S>,
    t: f64,
    h: f64,
    p: &[f64; NP],
    ys: &[[f64; NY]; S],
    zs: &[[f64; NZ]; S],
    sens: Option<StageSensitivities<'_, S, NY, NZ, NP>>,
    cost: &mut f64,
    grad: &mut [f64; NP],
) where
    M: HybridModel<NY, NZ, NP>,
{
    if !objective.has_integral::<M, NY, NZ, NP>() {
        return;
    }
    let (msy, msz) = mode.memory_sensitivities();
    for i in 0..S {
        let b = tableau.b[i];
        if b == 0.0 {
            continue;
        }
        let w = h * b;
        let at = mode.point(t + tableau.c[i] * h, &ys[i], &zs[i], p);
        let l = objective.integrand(model, mode.mode(), &at);
        *cost += w * l;
        if let Some(s) = sens {
            let mut d = ScalarPartials::ZERO;
            objective.integrand_partials(model, mode.mode(), &at, &mut d);
            add_scalar_gradient(&d, &s.sy[i], &s.sz[i], msy, msz, w, grad);
            // Start-time and length dependence: dH b_i L_i + H b_i L_t dT_i.
            for q in 0..NP {
                let dti = s.dt[q] + tableau.c[i] * s.dh[q];
                grad[q] += b * (s.dh[q] * l + h * d.t * dti);
            }
        }
    }
}
