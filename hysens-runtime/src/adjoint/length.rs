//! The transposes of the step-length maps of an event step (`fsa/length.rs`): `∂H/∂p` from the
//! guard's root condition and its application to the step's sensitivities, steps (2, 3) of the
//! event in the module docs of `jump.rs`.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::jump::{PreEventAdjoint, StateAdjoint};
use super::step::{StageSeeds, Sweep};
use super::tape::{TapeEvent, TapeStep};
use super::Costate;
use crate::error::SolveError;
use crate::model::{event_guard_partials, AdjointProducts, HybridModel, Point, ScalarPartials};

/// The H-direction `Φ_{H,i} = ∂Y_i/∂H`, `Z_{H,i} = ∂Z_i/∂H` of the event step, stage by stage
/// (`Esdirk::step_length_direction`; the last stage is the end of the step).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepLengthDirection<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// `Φ_{H,i}`.
    pub yh: &'a [[f64; NY]; S],
    /// `Z_{H,i}`.
    pub zh: &'a [[f64; NZ]; S],
}

/// The adjoints of the outputs of the event step's length map (module docs of `jump.rs`, steps 2–3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventStepSeeds<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// `Ȳ_i`: adjoints of the total stage sensitivities `dY_i` as read by the event step's cost
    /// quadrature (not including `s̄⁻`, which is `pre.sy`).
    pub stage_y: &'a [[f64; NY]; S],
    /// `Z̄_i`, likewise.
    pub stage_z: &'a [[f64; NZ]; S],
    /// `s̄⁻, w̄⁻, τ̄` from [`jump_transpose`] (`s⁻ = dY_S`, `w⁻ = dZ_S`).
    pub pre: PreEventAdjoint<NY, NZ>,
    /// `d̄H`: adjoint of the step's `∂H/∂p` as read by its cost quadrature
    /// (`Esdirk::step_time_sensitivities`).
    pub dh: f64,
}

/// The adjoints of the inputs of the event step's length map (module docs of `jump.rs`, steps 2–3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EventStepAdjoint<const S: usize, const NY: usize, const NZ: usize> {
    /// `Ȳ⁰_i`: adjoints of the stage sensitivities `dY⁰_i` of the step taken with
    /// `∂H/∂p = 0`, what the step transpose of the event step takes (the last stage's is
    /// `S̄`).
    pub stage_y: [[f64; NY]; S],
    /// `Z̄⁰_i` (the last stage's is `W̄`).
    pub stage_z: [[f64; NZ]; S],
    /// Contribution to `d̄t_n`, the adjoint of the grid shift of the event step's start (to be
    /// added to the step transpose's and the cost transpose's).
    pub dt: f64,
    /// `H̄`: the total adjoint of the event step's `∂H/∂p`, where the step length enters the
    /// step map (`Σ_i Φ_{H,i}·Ȳ_i + Z_{H,i}·Z̄_i + τ̄ + d̄H`). Already propagated through
    /// `∂H/∂p` into the other fields, `p̄` and the memory adjoint; for diagnostics only.
    pub h: f64,
}

/// Transpose of `Esdirk::apply_step_length_derivative` for an event step (module docs of `jump.rs`,
/// step 3): the map `(dY⁰_i, dZ⁰_i, dt_n, dH) ↦ (dY_i, dZ_i, s⁻, w⁻, τ, ∂H/∂p)` with
/// `dY_i = dY⁰_i + Φ_{H,i} dH`, `s⁻ = dY_S`, `τ = dt_n + dH`. Returns `Ȳ⁰_i` (`= Ȳ_i`, plus
/// `s̄⁻` in the last stage), `d̄t_n = τ̄` and `H̄`, the adjoint of `dH`.
pub(crate) fn apply_step_length_transpose<const S: usize, const NY: usize, const NZ: usize>(
    direction: &StepLengthDirection<'_, S, NY, NZ>,
    seeds: &EventStepSeeds<'_, S, NY, NZ>,
) -> EventStepAdjoint<S, NY, NZ> {
    let mut out = EventStepAdjoint {
        stage_y: *seeds.stage_y,
        stage_z: *seeds.stage_z,
        dt: seeds.pre.tau,
        h: seeds.pre.tau + seeds.dh,
    };
    for c in 0..NY {
        out.stage_y[S - 1][c] += seeds.pre.sy[c];
    }
    for c in 0..NZ {
        out.stage_z[S - 1][c] += seeds.pre.sz[c];
    }
    for i in 0..S {
        for c in 0..NY {
            out.h += direction.yh[i][c] * out.stage_y[i][c];
        }
        for c in 0..NZ {
            out.h += direction.zh[i][c] * out.stage_z[i][c];
        }
    }
    out
}

/// The adjoints of the inputs of `event_step_length_derivative` other than `p` and the
/// memory (output of [`step_length_derivative_transpose`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepLengthInputAdjoint<const NY: usize, const NZ: usize> {
    /// `S̄`.
    pub sy: [f64; NY],
    /// `W̄`.
    pub sz: [f64; NZ],
    /// `d̄t_n`.
    pub dt: f64,
}

/// Transpose of `event_step_length_derivative` (module docs of `jump.rs`, step 2): given the adjoint `H̄`
/// of `dH`, with `κ = −H̄/den`, returns `S̄ = κ h_y`, `W̄ = κ h_z`, `d̄t_n = κ h_t`, and
/// accumulates `s̄* += κ h_{y*}`, `w̄* += κ h_{z*}`, `p̄ += κ h_p`. The guard partials are
/// those of `guard` at `at` (the end of the event step, `t*⁻`, in the mode being left, with its
/// memory), `yh_end, zh_end` the H-direction of the end of the step.
///
/// Errors: those of the forward map ([`SolveError::GrazingEvent`] for `den = 0`,
/// [`SolveError::NonFiniteValue`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn step_length_derivative_transpose<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    yh_end: &[f64; NY],
    zh_end: &[f64; NZ],
    h_bar: f64,
    memory: &mut StateAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<StepLengthInputAdjoint<NY, NZ>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut hp = ScalarPartials::ZERO;
    event_guard_partials(model, guard, mode, at, &mut hp)
        .map_err(|e| SolveError::from_lu(e, at.t, mode, "H_z"))?;
    let mut den = hp.t;
    for c in 0..NY {
        den += hp.y[c] * yh_end[c];
    }
    for c in 0..NZ {
        den += hp.z[c] * zh_end[c];
    }
    let nonfinite = |what| SolveError::NonFiniteValue {
        t: at.t,
        mode,
        what,
    };
    if !den.is_finite() {
        return Err(nonfinite("guard rate at an event"));
    }
    if den == 0.0 {
        return Err(SolveError::GrazingEvent {
            t: at.t,
            mode,
            guard,
        });
    }
    let kappa = -h_bar / den;
    if !kappa.is_finite() {
        return Err(nonfinite("adjoint of the event time"));
    }
    let mut out = StepLengthInputAdjoint {
        sy: [0.0; NY],
        sz: [0.0; NZ],
        dt: kappa * hp.t,
    };
    for c in 0..NY {
        out.sy[c] = kappa * hp.y[c];
        memory.y[c] += kappa * hp.memory_y[c];
    }
    for c in 0..NZ {
        out.sz[c] = kappa * hp.z[c];
        memory.z[c] += kappa * hp.memory_z[c];
    }
    for q in 0..NP {
        p_bar[q] += kappa * hp.p[q];
    }
    Ok(out)
}

/// Transpose of the event step's length map (module docs of `jump.rs`, steps 2–3: `∂H/∂p` from the guard
/// and its application to the step's sensitivities): given the adjoints of the outputs
/// (`seeds`), returns the adjoints of the stage sensitivities of the step taken with
/// `∂H/∂p = 0`, a contribution to `d̄t_n` and `H̄`, and accumulates the memory adjoint
/// `(s̄*, w̄*)` of the mode being left and `p̄`. `at` is the end of the event step (`t*⁻`) in
/// that mode, with its memory; `direction` the step's H-direction.
///
/// Errors: [`SolveError::GrazingEvent`], [`SolveError::NonFiniteValue`] (as the forward map).
#[allow(clippy::too_many_arguments)]
pub(crate) fn event_step_length_transpose<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
>(
    model: &M,
    guard: usize,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    direction: &StepLengthDirection<'_, S, NY, NZ>,
    seeds: &EventStepSeeds<'_, S, NY, NZ>,
    memory: &mut StateAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<EventStepAdjoint<S, NY, NZ>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut out = apply_step_length_transpose(direction, seeds);
    let length = step_length_derivative_transpose(
        model,
        guard,
        mode,
        at,
        &direction.yh[S - 1],
        &direction.zh[S - 1],
        out.h,
        memory,
        p_bar,
    )?;
    for c in 0..NY {
        out.stage_y[S - 1][c] += length.sy[c];
    }
    for c in 0..NZ {
        out.stage_z[S - 1][c] += length.sz[c];
    }
    out.dt += length.dt;
    Ok(out)
}

/// Steps (3, 2)ᵀ of `jump.rs`: `∂H/∂p` of the event step from the guard's root condition and
/// its application, transposed, given the adjoints `pre` from the jump and `seeds` from the
/// event step's cost quadrature; adds to `p̄` and the memory accumulators and returns the
/// seeds of the event step itself taken with `∂H/∂p = 0`.
pub(super) fn length_transpose<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
>(
    sweep: &Sweep<'_, M, S, NP>,
    step: &TapeStep<S, NY, NZ>,
    event: &TapeEvent<S, NY, NZ>,
    before: &Point<'_, NY, NZ, NP>,
    pre: PreEventAdjoint<NY, NZ>,
    seeds: &StageSeeds<S, NY, NZ>,
    costate: &mut Costate<NY, NZ, NP>,
) -> Result<StageSeeds<S, NY, NZ>, SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let mut memory = StateAdjoint {
        y: costate.memory_y,
        z: costate.memory_z,
    };
    let length = event_step_length_transpose(
        sweep.model,
        event.guard,
        step.mode,
        before,
        &StepLengthDirection {
            yh: &event.yh,
            zh: &event.zh,
        },
        &EventStepSeeds {
            stage_y: &seeds.y,
            stage_z: &seeds.z,
            pre,
            dh: seeds.h,
        },
        &mut memory,
        &mut costate.p,
    )?;
    costate.memory_y = memory.y;
    costate.memory_z = memory.z;
    Ok(StageSeeds {
        y: length.stage_y,
        z: length.stage_z,
        h: 0.0,
        t: seeds.t + length.dt,
    })
}
