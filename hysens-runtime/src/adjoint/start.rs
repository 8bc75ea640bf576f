//! Transpose of an event at `t0` (`hybrid/start.rs`): the zero-length step to it from the
//! initial state and its jump, at the end of the backward pass.
//!
//! Forward, in the initial mode `m₀` with the direction `(f⁻, ż⁻)` at `(t0, y0, z0)`:
//! `τ = dH` from the root condition with `(S, W) = (s0, w0)`, `(Φ_H, Z_H) = (f⁻, ż⁻)`,
//! `dt_n = 0`; `s⁻ = s0 + f⁻ dH`, `w⁻ = w0 + ż⁻ dH`; the jump to `s⁺`, and `τ` as the first
//! segment's grid shift; the consistent `w⁺` in the mode entered.
//!
//! Backward, from the adjoints `(s̄⁺, w̄⁺, τ̄, s̄*⁺)` of the first recorded segment's start:
//! `consistent_algebraic_transpose` folds `w̄⁺` in, as after any event; [`jump_transpose`]
//! gives `(s̄⁻, w̄⁻, τ̄)`; the step length's transpose takes `H̄ = f⁻·s̄⁻ + ż⁻·w̄⁻ + τ̄`
//! (`apply_step_length_transpose` with one stage, the end) and returns the adjoints of
//! `S = s0`, `W = w0` ([`step_length_derivative_transpose`]), so that `s̄0 = s̄⁻ + κ h_y`,
//! `w̄0 = w̄⁻ + κ h_z` with `κ = −H̄/den`; `w0`'s dependence on `s0` (the constraint at `t0`)
//! and the zero-length segment's memory adjoint (its memory sensitivities are `s*0 = s0`) are
//! left to `initial_algebraic_transpose`.

use super::jump::{
    consistent_algebraic_transpose, jump_transpose, step_length_derivative_transpose,
    RestartAdjoint, StateAdjoint,
};
use super::tape::StartEvent;
use super::{AdjointStats, Costate};
use crate::error::SolveError;
use crate::hybrid::start_direction;
use crate::model::{HybridModel, Memory, Point};
use crate::HybridProblem;

/// Replaces `costate`, the adjoints of the first recorded segment's start, with those of the
/// initial state before the event `event` at `t0` (module docs), accumulating `p̄`.
pub(crate) fn start_event_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    event: &StartEvent<NY, NZ>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut AdjointStats,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let (guard, mode) = (event.guard, event.mode);
    let has_reset = M::GUARDS.get(guard).is_some_and(|g| g.has_reset);
    let mut post = RestartAdjoint {
        sy: costate.y,
        tau: costate.t,
        memory: StateAdjoint {
            y: costate.memory_y,
            z: costate.memory_z,
        },
    };
    // The consistent w⁺ in the mode entered, as after any event.
    if NZ > 0 {
        let after = Point {
            t: problem.t0,
            y: &event.y,
            z: &event.z,
            p: &problem.p,
            memory: &event.memory,
        };
        let w_bar = &costate.z;
        consistent_algebraic_transpose(model, event.to, &after, w_bar, &mut post, &mut costate.p)?;
        stats.jacobian_evals += 1;
        stats.lu_factorizations += 1;
        stats.lu_solves += 1;
    }
    stats.events += 1;
    let memory = Memory {
        y: problem.y0,
        z: problem.z0,
    };
    let at = Point {
        t: problem.t0,
        y: &problem.y0,
        z: &event.z0,
        p: &problem.p,
        memory: &memory,
    };
    let mut first_memory = StateAdjoint::ZERO;
    let pre = jump_transpose(
        model,
        guard,
        has_reset,
        mode,
        &at,
        &post,
        &mut first_memory,
        &mut costate.p,
    )?;
    let (f, zdot) = start_direction(model, mode, &at)?;
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let h_bar = dot(&f, &pre.sy) + dot(&zdot, &pre.sz) + pre.tau;
    let length = step_length_derivative_transpose(
        model,
        guard,
        mode,
        &at,
        &f,
        &zdot,
        h_bar,
        &mut first_memory,
        &mut costate.p,
    )?;
    for c in 0..NY {
        costate.y[c] = pre.sy[c] + length.sy[c];
    }
    for c in 0..NZ {
        costate.z[c] = pre.sz[c] + length.sz[c];
    }
    costate.t = 0.0;
    costate.memory_y = first_memory.y;
    costate.memory_z = first_memory.z;
    Ok(())
}
