//! The adjoint's left limit at an event, `λ(t*⁻) = dG/dy(t*⁻)`, for the trajectory the
//! backward pass reports ([`super::AdjointPoint`]). It is not a point of the discrete chain,
//! whose last point before the event is the start of the step to it; it is what a perturbation
//! `δy` of the state just before the event does to the objective. Along the flow it moves the
//! event time by `δt = −(h_y δy + h_z δz)/ḣ` (with `δz = −g_z⁻¹ g_y δy` in a DAE mode), so it
//! reaches the jump as `δs⁻ = δy + ẏ⁻ δt`, `δw⁻ = δz + ż⁻ δt`, `δτ = δt`, and the integral cost
//! of the step to the event as `L⁻ δt`. With the adjoints `(s̄⁻, w̄⁻, τ̄)` of the jump's inputs
//! (`jump.rs`), the adjoints of `(y⁻, z⁻)` taken as independent are
//!
//! ```text
//! ȳ = s̄⁻ − h_yᵀ c,   z̄ = w̄⁻ − h_zᵀ c,   c = (τ̄ + s̄⁻·ẏ⁻ + w̄⁻·ż⁻ + L⁻)/ḣ,
//! ```
//!
//! `ḣ = h_t + h_y ẏ⁻ + h_z ż⁻`, and the trajectory eliminates `z̄` as at any point. For
//! Serban & Recuero 2019, Ex. 5.1 (one state, `x⁺ = x⁻`, a continuous `L`) this is their
//! Eq. 44, `λ⁻ = λ⁺ ẋ⁺/ẋ⁻`.

use super::jump::PreEventAdjoint;
use super::step::Sweep;
use crate::model::{algebraic_rate, HybridModel, Point, ScalarPartials};

/// `(ȳ, z̄)` just before the event of `guard` out of `mode` at `before` (module docs; `L⁻` the
/// integrand of the sweep's objective), from the
/// adjoints `pre` of the jump's inputs; `None` where the guard's rate `ḣ` vanishes (a grazing
/// event has no left limit) or `g_z` is singular.
pub(super) fn left_limit<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    sweep: &Sweep<'_, M, S, NP>,
    mode: usize,
    guard: usize,
    before: &Point<'_, NY, NZ, NP>,
    pre: &PreEventAdjoint<NY, NZ>,
) -> Option<([f64; NY], [f64; NZ])>
where
    M: HybridModel<NY, NZ, NP>,
{
    let model = sweep.model;
    let (mut ydot, mut residual) = ([0.0; NY], [0.0; NZ]);
    model.residual(mode, before, &mut ydot, &mut residual);
    let zdot = algebraic_rate(model, mode, before, &ydot).ok()?;
    let mut h = ScalarPartials::ZERO;
    model.guard_partials(guard, before, &mut h);
    let hdot = h.rate(&ydot, &zdot);
    if hdot == 0.0 || !hdot.is_finite() {
        return None;
    }
    let objective = sweep.objective;
    let cost = match objective.has_integral::<M, NY, NZ, NP>() {
        true => objective.integrand(model, mode, before),
        false => 0.0,
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let c = (pre.tau + dot(&pre.sy, &ydot) + dot(&pre.sz, &zdot) + cost) / hdot;
    let y = core::array::from_fn(|i| pre.sy[i] - h.y[i] * c);
    let z = core::array::from_fn(|i| pre.sz[i] - h.z[i] * c);
    Some((y, z))
}
