//! Transpose of an event at `t0` (`hybrid/start.rs`): the zero-length step to it from the
//! initial state and its jump, at the end of the backward pass.
//!
//! Forward, in the initial mode `m₀` with `f⁻ = f(m₀, t0, y0)`: `τ = dH` from the root
//! condition with `S = s0`, `Φ_H = f⁻`, `dt_n = 0`; `s⁻ = s0 + f⁻ dH`; the jump to `s⁺`, and
//! `τ` as the first segment's grid shift. Backward, from the adjoints `(s̄⁺, τ̄, s̄*⁺)` of the
//! first recorded segment's start: [`jump_transpose`] gives `(s̄⁻, τ̄)`; the step length's
//! transpose takes `H̄ = f⁻·s̄⁻ + τ̄` (`apply_step_length_transpose` with one stage, the end)
//! and returns the adjoint of `S = s0` ([`step_length_derivative_transpose`]), so that
//! `s̄0 = s̄⁻ + κ h_y` with `κ = −H̄/den`; the zero-length segment's memory adjoint (its
//! memory sensitivities are `s*0 = s0`) is left for `initial_algebraic_transpose`.

use super::jump::{jump_transpose, step_length_derivative_transpose, RestartAdjoint, StateAdjoint};
use super::tape::StartEvent;
use super::Costate;
use crate::error::SolveError;
use crate::model::{HybridModel, Memory, Point};
use crate::HybridProblem;

/// Replaces `costate`, the adjoints of the first recorded segment's start, with those of the
/// initial state before the event `event` at `t0` (module docs), accumulating `p̄`.
pub(crate) fn start_event_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    event: StartEvent,
    costate: &mut Costate<NY, NZ, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let (guard, mode) = (event.guard, event.mode);
    let has_reset = M::GUARDS.get(guard).is_some_and(|g| g.has_reset);
    let memory = Memory {
        y: problem.y0,
        z: problem.z0,
    };
    let at = Point {
        t: problem.t0,
        y: &problem.y0,
        z: &problem.z0,
        p: &problem.p,
        memory: &memory,
    };
    let post = RestartAdjoint {
        sy: costate.y,
        tau: costate.t,
        memory: StateAdjoint {
            y: costate.memory_y,
            z: costate.memory_z,
        },
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
    let mut f = [0.0; NY];
    let mut g = [0.0; NZ];
    model.residual(mode, &at, &mut f, &mut g);
    let h_bar = f.iter().zip(&pre.sy).map(|(f, s)| f * s).sum::<f64>() + pre.tau;
    let length = step_length_derivative_transpose(
        model,
        guard,
        mode,
        &at,
        &f,
        &[0.0; NZ],
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
