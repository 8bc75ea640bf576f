//! The cost terms' partials as seeds of the adjoint: the transpose of the gradients of
//! `fsa/cost.rs`.
//!
//! * Integral cost: the step's quadrature `Q = H Σ_i b_i L(T_i, Y_i, Z_i)` has the derivative
//!   `dQ = dH Σ_i b_i L_i + H Σ_i b_i (L_t dT_i + L_y dY_i + L_z dZ_i + L_p dp + L_{y*} dy* +
//!   L_{z*} dz*)` with `dT_i = dt_n + c_i dH`, so it seeds the stage adjoints
//!   `Ȳ_i += H b_i L_y`, `Z̄_i += H b_i L_z`, adds `H b_i (L_p, L_{y*}, L_{z*})` to
//!   `(p̄, ȳ*, z̄*)`, and, where the step's start or length depends on the parameters,
//!   `H b_i L_t` to `t̄_n` and `b_i L_i + H b_i c_i L_t` to `H̄`.
//! * Terminal and sampled costs at a fixed time: a jump `(ȳ, z̄, p̄, ȳ*, z̄*) += (s_y, s_z, s_p,
//!   s_{y*}, s_{z*})` of the adjoint at that time (the adjoint counterpart of the sampled
//!   cost's gradient, Serban & Recuero 2019, §3: the adjoint is seeded by `φ` at `t_f`).

use super::step::Sweep;
use super::{AdjointStats, Costate};
use crate::adjoint::tape::TapeStep;
use crate::model::{AdjointProducts, Point, ScalarPartials};

/// Adds the partials `d` of a terminal or sampled cost term to the costate (module docs).
pub(crate) fn add_scalar_seed<const NY: usize, const NZ: usize, const NP: usize>(
    d: &ScalarPartials<NY, NZ, NP>,
    costate: &mut Costate<NY, NZ, NP>,
) {
    for (a, b) in costate.y.iter_mut().zip(&d.y) {
        *a += b;
    }
    for (a, b) in costate.z.iter_mut().zip(&d.z) {
        *a += b;
    }
    for (a, b) in costate.p.iter_mut().zip(&d.p) {
        *a += b;
    }
    for (a, b) in costate.memory_y.iter_mut().zip(&d.memory_y) {
        *a += b;
    }
    for (a, b) in costate.memory_z.iter_mut().zip(&d.memory_z) {
        *a += b;
    }
}

/// Seeds the stage adjoints `ybar`, `zbar`, `hbar` (`H̄`, if `need_h`) and `tbar` (`t̄_n`, if
/// `need_t`) and the costate's `p̄, ȳ*, z̄*` with the quadrature of the sweep's objective's
/// integrand over `step` (module docs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn integral_seeds<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    sweep: &Sweep<'_, M, S, NP>,
    step: &TapeStep<S, NY, NZ>,
    need_h: bool,
    need_t: bool,
    ybar: &mut [[f64; NY]; S],
    zbar: &mut [[f64; NZ]; S],
    hbar: &mut f64,
    tbar: &mut f64,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut AdjointStats,
) where
    M: AdjointProducts<NY, NZ, NP>,
{
    let (model, objective) = (sweep.model, sweep.objective);
    if !objective.has_integral::<M, NY, NZ, NP>() {
        return;
    }
    let tab = sweep.tableau;
    let h = step.h;
    for i in 0..S {
        let b = tab.b[i];
        if b == 0.0 {
            continue;
        }
        let w = h * b;
        let at = Point {
            t: step.t + tab.c[i] * h,
            y: &step.ys[i],
            z: &step.zs[i],
            p: sweep.p,
            memory: &step.memory,
        };
        let mut d = ScalarPartials::ZERO;
        objective.integrand_partials(model, step.mode, &at, &mut d);
        stats.cost_partials += 1;
        for (a, v) in ybar[i].iter_mut().zip(&d.y) {
            *a += w * v;
        }
        for (a, v) in zbar[i].iter_mut().zip(&d.z) {
            *a += w * v;
        }
        for (a, v) in costate.p.iter_mut().zip(&d.p) {
            *a += w * v;
        }
        for (a, v) in costate.memory_y.iter_mut().zip(&d.memory_y) {
            *a += w * v;
        }
        for (a, v) in costate.memory_z.iter_mut().zip(&d.memory_z) {
            *a += w * v;
        }
        if need_t {
            *tbar += w * d.t;
        }
        if need_h {
            let l = objective.integrand(model, step.mode, &at);
            *hbar += b * l + w * tab.c[i] * d.t;
        }
    }
}
