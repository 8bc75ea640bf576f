//! Cost terms and their forward-sensitivity gradients.
//!
//! * Integral cost `∫ L dt`: by the step's own quadrature `h Σ_i b_i L(T_i, Y_i, Z_i)` over the
//!   stages of every accepted step. This is exactly the ESDIRK solution of the augmented state
//!   `q' = L` (a quadrature variable advanced with the same tableau), so the cost is consistent
//!   with the discrete solution, and its gradient is the derivative of that quadrature:
//!   `h Σ_i b_i (L_y dY_i + L_z dZ_i + L_p + L_{y*} s* + L_{z*} w*)` with the IND stage
//!   sensitivities `dY_i, dZ_i` (`esdirk_fsa.rs`). At switches the Leibniz term
//!   `(L⁻ − L⁺) τ` is added (`jump.rs`; note 000 §3.1, §6 item 8).
//! * Terminal cost `φ(t_f, y, z, p)` and sampled cost `Σ_k ℓ(t_k, y_k, z_k, p, d_k)`:
//!   gradients `φ_y s + φ_z w + φ_p + φ_{y*} s* + φ_{z*} w*` at the point (sample times and
//!   `t_f` are fixed, so there is no `τ` term).
#![allow(clippy::needless_range_loop)]

use crate::hybrid_model::{HybridModel, ScalarPartials};
use crate::mode_adapter::ModeAdapter;
use crate::tableau::Tableau;

/// Adds `∂s/∂y sy + ∂s/∂z sz + ∂s/∂p + ∂s/∂y* s* + ∂s/∂z* w*` to `grad`.
pub fn add_scalar_gradient<const NY: usize, const NZ: usize, const NP: usize>(
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

/// Stage sensitivities of one step, `(dY_i, dZ_i)`.
pub type StageSensitivities<'a, const S: usize, const NY: usize, const NZ: usize, const NP: usize> =
    (&'a [[[f64; NP]; NY]; S], &'a [[[f64; NP]; NZ]; S]);

/// Adds the quadrature `h Σ_i b_i L_i` of one accepted step (stages `ys, zs` starting at `t`)
/// to `cost` and, with stage sensitivities, its derivative to `grad` (module docs).
#[allow(clippy::too_many_arguments)]
pub fn add_integral_step<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
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
    let (msy, msz) = mode.memory_sensitivities();
    for i in 0..S {
        let w = h * tableau.b[i];
        if w == 0.0 {
            continue;
        }
        let at = mode.point(t + tableau.c[i] * h, &ys[i], &zs[i], p);
        *cost += w * model.integral_cost(mode.mode(), &at);
        if let Some((sy, sz)) = sens {
            let mut d = ScalarPartials::ZERO;
            model.integral_cost_partials(mode.mode(), &at, &mut d);
            add_scalar_gradient(&d, &sy[i], &sz[i], msy, msz, w, grad);
        }
    }
}
