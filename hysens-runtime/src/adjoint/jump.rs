//! The transposes of the event maps of the forward sensitivities (`fsa/jump.rs`,
//! `fsa/length.rs`, the restart of `Esdirk::enable_sensitivities_at`), for the discrete
//! adjoint's backward pass.
//!
//! These are the exact transposes of the *discrete* linear maps the forward sensitivities apply
//! at an event (with the step sequence frozen), not a discretization of the continuous adjoint
//! jump conditions; they are the discrete counterparts of Serban & Recuero 2019, §3.2 (the
//! jump conditions below their Eq. 13, from the affine form `τ = α + β s⁻`,
//! `s⁺ = Γ + Δ s⁻` of their Eq. 6) and of the memory accumulators of their §4.2
//! (Algorithm 1). Because they transpose the same maps, an adjoint built from them reproduces
//! the forward gradient to round-off; the dot-product tests below check each one against the
//! forward code that runs.
//!
//! **Conventions.** The forward maps act on one parameter column `q` at a time and are affine:
//! `x ↦ A x + b_q`, with `x` the incoming sensitivities and `b_q` the parameter source
//! (`h_p`, `R_p`, `g_p`). Their transposes act on *one* adjoint vector per quantity (no
//! parameter columns): given the adjoints `x̄_out` of a map's outputs, they return (or
//! accumulate, `+=`, where noted) the adjoints `Aᵀ x̄_out` of its inputs and accumulate the
//! parameter part `p̄_q += b_qᵀ x̄_out` into `p̄` (length `NP`), so that
//! `⟨x̄_out, A x + b_q⟩ = ⟨Aᵀ x̄_out, x⟩ + p̄_q` for every `q`. All sensitivities are
//! the *total* derivatives at the moving event time `t*(p)` that the forward code carries
//! (`fsa/jump.rs`), and `τ` is also the grid shift `∂t/∂p` of the next segment's start.
//!
//! **The forward event, in the driver's order** (`hybrid/mod.rs`; event from the mode being
//! left, with memory sensitivities `(s*, w*)`, into the new mode):
//!
//! 1. the event step is accepted with `∂H/∂p = 0` (step map), giving stage sensitivities
//!    `dY⁰_i, dZ⁰_i` (end `S = dY⁰_S`, `W = dZ⁰_S`), the grid shift `dt_n` of its start and
//!    the H-direction `Φ_{H,i} = ∂Y_i/∂H`, `Z_{H,i}`;
//! 2. `dH = −(h_t dt_n + h_y S + h_z W + h_p + h_{y*} s* + h_{z*} w*) / den`,
//!    `den = h_t + h_y Φ_{H,S} + h_z Z_{H,S}` (`event_step_length_derivative`);
//! 3. `dY_i = dY⁰_i + Φ_{H,i} dH`, `dZ_i = dZ⁰_i + Z_{H,i} dH`, so `s⁻ = dY_S`,
//!    `w⁻ = dZ_S`; `τ = dt_n + dH`; the step's `∂H/∂p = dH`
//!    (`Esdirk::apply_step_length_derivative`);
//! 4. the cost quadrature of the event step reads `dY_i, dZ_i`, `dt_n`, `dH`, `(s*, w*)`
//!    (`fsa/cost.rs`);
//! 5. `s⁺ = R_y s⁻ + R_z w⁻ + R_p + R_t τ + R_{y*} s* + R_{z*} w*` (`R_y = I`, rest zero
//!    without a reset), `s*⁺ = s⁺`, `w*⁺ = w⁻` (`jump_sensitivities`);
//! 6. the new segment starts from `s⁺` with grid shift `τ`, and
//!    `w⁺ = −g_z⁻¹ (g_y s⁺ + g_t τ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺)` in the new mode
//!    (memory terms only if it reads its memory, as `model/adapter.rs` adds them)
//!    (`Esdirk::enable_sensitivities_at`);
//! 7. the new segment's steps read `(s⁺, w⁺, τ)` and, throughout, `(s*⁺, w*⁺)`.
//!
//! **The backward pass calls, in reverse order** (the numbers are those of the forward steps):
//!
//! * (7) the step and cost transposes of the new segment give `s̄⁺, w̄⁺` and the adjoint `τ̄`
//!   of the segment's starting grid shift from its first step, and the memory adjoints
//!   `(s̄*⁺, w̄*⁺)` accumulated over the whole segment: a [`RestartAdjoint`];
//! * (6) [`consistent_algebraic_transpose`] folds `w̄⁺` into it;
//! * (5) [`jump_transpose`] gives `s̄⁻, w̄⁻, τ̄` ([`PreEventAdjoint`]) and starts the memory
//!   adjoint `(s̄*, w̄*)` of the segment being left (which its own steps then keep
//!   accumulating);
//! * (4) the cost transpose of the event step gives the stage adjoints `Ȳ_i, Z̄_i` and the
//!   adjoint `d̄H` of its `∂H/∂p` (and its own `d̄t_n`, memory and `p̄` terms); (4) and (5)
//!   commute;
//! * (3, 2) [`event_step_length_transpose`] gives the adjoints `Ȳ⁰_i, Z̄⁰_i` of the stage
//!   sensitivities of the step taken with `∂H/∂p = 0`, a contribution to `d̄t_n`, and the
//!   total adjoint `H̄` of `∂H/∂p`, already propagated;
//! * (1) the step transpose of the event step runs on `Ȳ⁰_i, Z̄⁰_i` *as a step with
//!   `∂H/∂p = 0`*: the H-direction of the event step is fully accounted for in (3, 2) and
//!   must not be propagated again.
//!
//! Steps (3, 2) need the H-direction `Φ_{H,i}, Z_{H,i}` of the event step
//! (`Esdirk::step_length_direction`, computed by the forward pass at every event step); the
//! tape must keep it (or the backward pass recompute it), because `H̄` depends on all stage
//! adjoints and the end-stage adjoint depends on `H̄`.
//!
//! At `t0` the forward pass starts from the given `s_0 = ∂y0/∂p` with `w_0` from the
//! constraint of the first mode, grid shift 0 and memory sensitivities `s*_0 = s_0`,
//! `w*_0 = 0` (`hybrid/mod.rs`); [`initial_algebraic_transpose`] is its transpose and returns
//! the adjoint of `s_0`, so that `dG/dp = p̄ + s̄_0ᵀ ∂y0/∂p`.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use crate::error::{all_finite, SolveError};
use crate::linalg::Lu;
use crate::model::{HybridModel, ModeJacobian, Point, ResetJacobian, ScalarPartials};

/// The adjoint of a pair of sensitivity columns `(∂y/∂p, ∂z/∂p)`: of the state's `(s, w)` or
/// of the memory's `(s*, w*)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StateAdjoint<const NY: usize, const NZ: usize> {
    /// Adjoint of the differential part (`s̄` or `s̄*`).
    pub y: [f64; NY],
    /// Adjoint of the algebraic part (`w̄` or `w̄*`).
    pub z: [f64; NZ],
}

impl<const NY: usize, const NZ: usize> StateAdjoint<NY, NZ> {
    /// All zero.
    pub const ZERO: Self = StateAdjoint {
        y: [0.0; NY],
        z: [0.0; NZ],
    };
}

/// The adjoints of what an event hands to the next segment (module docs, step 7): the
/// starting differential sensitivities `s⁺`, the starting grid shift `τ` and the new memory
/// sensitivities `(s*⁺, w*⁺)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RestartAdjoint<const NY: usize, const NZ: usize> {
    /// `s̄⁺`.
    pub sy: [f64; NY],
    /// `τ̄`, adjoint of the segment's starting grid shift `∂t/∂p = τ`.
    pub tau: f64,
    /// `(s̄*⁺, w̄*⁺)`, accumulated over everything in the segment that reads the memory.
    pub memory: StateAdjoint<NY, NZ>,
}

/// The adjoints of the total pre-event sensitivities `s⁻, w⁻` and of `τ`, as the event step's
/// length map produced them (output of [`jump_transpose`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PreEventAdjoint<const NY: usize, const NZ: usize> {
    /// `s̄⁻`.
    pub sy: [f64; NY],
    /// `w̄⁻`.
    pub sz: [f64; NZ],
    /// `τ̄`.
    pub tau: f64,
}

/// The H-direction `Φ_{H,i} = ∂Y_i/∂H`, `Z_{H,i} = ∂Z_i/∂H` of the event step, stage by stage
/// (`Esdirk::step_length_direction`; the last stage is the end of the step).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepLengthDirection<'a, const S: usize, const NY: usize, const NZ: usize> {
    /// `Φ_{H,i}`.
    pub yh: &'a [[f64; NY]; S],
    /// `Z_{H,i}`.
    pub zh: &'a [[f64; NZ]; S],
}

/// The adjoints of the outputs of the event step's length map (module docs, steps 2–3).
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

/// The adjoints of the inputs of the event step's length map (module docs, steps 2–3).
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

/// Transpose of `Esdirk::apply_step_length_derivative` for an event step (module docs,
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

/// Transpose of `event_step_length_derivative` (module docs, step 2): given the adjoint `H̄`
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
    model.guard_partials(guard, at, &mut hp);
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

/// Transpose of the event step's length map (module docs, steps 2–3: `∂H/∂p` from the guard
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

/// Transpose of the jump (`jump_sensitivities`, module docs step 5): with
/// `σ = s̄⁺ + s̄*⁺` (because `s*⁺ = s⁺`), returns `s̄⁻ = R_yᵀ σ`,
/// `w̄⁻ = R_zᵀ σ + w̄*⁺`, `τ̄ = τ̄⁺ + R_t·σ` (`τ` is both an input of the reset and the
/// next segment's grid shift), and accumulates `s̄* += R_{y*}ᵀ σ`, `w̄* += R_{z*}ᵀ σ` into
/// `memory` (the memory adjoint of the mode being left) and `p̄ += R_pᵀ σ`. Without a reset
/// `R_y = I` and the rest is zero. `at` is the state just before the event, in the mode being
/// left, with its memory.
///
/// Errors: [`SolveError::NonFiniteValue`] if the result is not finite.
#[allow(clippy::too_many_arguments)]
pub(crate) fn jump_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    guard: usize,
    has_reset: bool,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    post: &RestartAdjoint<NY, NZ>,
    memory: &mut StateAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<PreEventAdjoint<NY, NZ>, SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut sigma = post.sy;
    for r in 0..NY {
        sigma[r] += post.memory.y[r];
    }
    let mut pre = PreEventAdjoint {
        sy: [0.0; NY],
        sz: post.memory.z,
        tau: post.tau,
    };
    if has_reset {
        let mut rj = ResetJacobian::ZERO;
        model.reset_jacobian(guard, at, &mut rj);
        for r in 0..NY {
            let v = sigma[r];
            pre.tau += rj.t[r] * v;
            for c in 0..NY {
                pre.sy[c] += rj.y[r][c] * v;
                memory.y[c] += rj.memory_y[r][c] * v;
            }
            for c in 0..NZ {
                pre.sz[c] += rj.z[r][c] * v;
                memory.z[c] += rj.memory_z[r][c] * v;
            }
            for q in 0..NP {
                p_bar[q] += rj.p[r][q] * v;
            }
        }
    } else {
        pre.sy = sigma;
    }
    if !all_finite(&pre.sy) || !all_finite(&pre.sz) || !pre.tau.is_finite() {
        return Err(SolveError::NonFiniteValue {
            t: at.t,
            mode,
            what: "adjoints at an event",
        });
    }
    Ok(pre)
}

/// Transpose of the consistent algebraic sensitivities at the start of a segment (module docs,
/// step 6; `Esdirk::enable_sensitivities_at` with the mode adapter's memory terms):
/// `w⁺ = −g_z⁻¹ (g_y s⁺ + g_t τ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺)`. With `λ = g_z⁻ᵀ w̄⁺`,
/// accumulates `s̄⁺ −= g_yᵀ λ`, `τ̄ −= g_t·λ`, `s̄*⁺ −= g_{y*}ᵀ λ`, `w̄*⁺ −= g_{z*}ᵀ λ`
/// (memory terms only if `mode` reads its memory, as in `model/adapter.rs`) into `post`, and
/// `p̄ −= g_pᵀ λ`. `at` is the segment's start `(t, y⁺, z⁺, p, m⁺)`, with the consistent `z⁺`
/// and the new memory. Nothing to do when `NZ = 0`.
///
/// Errors: [`SolveError::SingularMatrix`] if `g_z` is singular,
/// [`SolveError::NonFiniteValue`].
pub(crate) fn consistent_algebraic_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    w_bar: &[f64; NZ],
    post: &mut RestartAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    if NZ == 0 {
        return Ok(());
    }
    let nonfinite = |what| SolveError::NonFiniteValue {
        t: at.t,
        mode,
        what,
    };
    if !all_finite(w_bar) {
        return Err(nonfinite("adjoint of the algebraic sensitivities"));
    }
    let mut jac = ModeJacobian::ZERO;
    let mut fp = [[0.0; NP]; NY];
    let mut gp = [[0.0; NP]; NZ];
    let mut ft = [0.0; NY];
    let mut gt = [0.0; NZ];
    model.jacobian(mode, at, &mut jac);
    model.parameter_jacobian(mode, at, &mut fp, &mut gp);
    model.time_partials(mode, at, &mut ft, &mut gt);
    let lu = Lu::factor(jac.gz).map_err(|e| SolveError::from_lu(e, at.t, mode, "g_z"))?;
    let mut lambda = *w_bar;
    lu.solve_transposed(&mut lambda);
    for r in 0..NZ {
        let l = lambda[r];
        post.tau -= gt[r] * l;
        for c in 0..NY {
            post.sy[c] -= jac.gy[r][c] * l;
        }
        for q in 0..NP {
            p_bar[q] -= gp[r][q] * l;
        }
    }
    if M::MODES.get(mode).is_some_and(|m| m.uses_memory) {
        let mut mj = ModeJacobian::ZERO;
        model.memory_jacobian(mode, at, &mut mj);
        for r in 0..NZ {
            let l = lambda[r];
            for c in 0..NY {
                post.memory.y[c] -= mj.gy[r][c] * l;
            }
            for c in 0..NZ {
                post.memory.z[c] -= mj.gz[r][c] * l;
            }
        }
    }
    if !all_finite(&lambda)
        || !all_finite(&post.sy)
        || !post.tau.is_finite()
        || !all_finite(&post.memory.y)
        || !all_finite(&post.memory.z)
        || !all_finite(p_bar)
    {
        return Err(nonfinite("adjoint of the algebraic sensitivities"));
    }
    Ok(())
}

/// Transpose of the start of the solve (module docs, last paragraph): the forward pass maps the
/// given `s_0 = ∂y0/∂p` to the first segment's `(s_0, w_0, grid shift 0)` and memory
/// sensitivities `(s*_0, w*_0) = (s_0, 0)`, with
/// `w_0 = −g_z⁻¹ (g_y s_0 + g_p + g_{y*} s_0)`. Given the adjoints `first` of the first
/// segment's start (from its first step) and memory (accumulated over the segment) and `w̄_0`,
/// returns `s̄_0`, the adjoint of `s_0`, and accumulates `p̄`; `first.tau` and
/// `first.memory.z` are adjoints of constants and drop out. Then `dG/dp = p̄ + s̄_0ᵀ ∂y0/∂p`.
/// `at` is `(t0, y0, z0, p, (y0, z0_caller))` with the consistent `z0`.
///
/// Errors: as [`consistent_algebraic_transpose`].
pub(crate) fn initial_algebraic_transpose<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    w_bar: &[f64; NZ],
    first: &RestartAdjoint<NY, NZ>,
    p_bar: &mut [f64; NP],
) -> Result<[f64; NY], SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut post = *first;
    consistent_algebraic_transpose(model, mode, at, w_bar, &mut post, p_bar)?;
    let mut s0_bar = post.sy;
    for c in 0..NY {
        s0_bar[c] += post.memory.y[c];
    }
    Ok(s0_bar)
}

#[cfg(test)]
mod tests {
    //! Dot-product tests: for each forward event map `x ↦ A x + b_q` (the code that runs, on a
    //! small affine model with random constant partials), random incoming columns `x_q` and
    //! random seeds `ȳ`: `⟨ȳ, A x_q + b_q⟩ = ⟨Aᵀ ȳ, x_q⟩ + p̄_q` for every column `q`.
    use super::*;
    use crate::fsa::jump::{
        event_step_length_derivative, jump_sensitivities, EventStep, PreEventSensitivities,
    };
    use crate::model::{Direction, GuardInfo, Memory, ModeAdapter, ModeInfo};
    use crate::tableau::{Tableau, ESDIRK23, ESDIRK34};
    use crate::{Esdirk, Options, StepLength};
    use core::sync::atomic::{AtomicU64, Ordering};

    /// Worst relative residual of all checks so far (bits of a non-negative `f64`).
    static WORST: AtomicU64 = AtomicU64::new(0);
    const TOL: f64 = 1e-13;

    /// SplitMix64, mapped to `[-1, 1)`.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
        fn arr<const K: usize>(&mut self) -> [f64; K] {
            core::array::from_fn(|_| self.next())
        }
        fn mat<const R: usize, const C: usize>(&mut self) -> [[f64; C]; R] {
            core::array::from_fn(|_| self.arr())
        }
    }

    /// A dot product with the sum of the magnitudes of its terms (the scale of its round-off).
    #[derive(Default)]
    struct Dot {
        v: f64,
        scale: f64,
    }
    impl Dot {
        fn add(&mut self, a: f64, b: f64) {
            self.v += a * b;
            self.scale += (a * b).abs();
        }
        /// `⟨a, B[:, q]⟩` for a sensitivity matrix `B` (rows = components).
        fn col<const NP: usize>(&mut self, a: &[f64], b: &[[f64; NP]], q: usize) {
            for (x, row) in a.iter().zip(b) {
                self.add(*x, row[q]);
            }
        }
    }

    fn check(lhs: &Dot, rhs: &Dot, what: &str) {
        let scale = lhs.scale.max(rhs.scale).max(f64::MIN_POSITIVE);
        let rel = (lhs.v - rhs.v).abs() / scale;
        WORST.fetch_max(rel.to_bits(), Ordering::Relaxed);
        assert!(
            rel <= TOL,
            "{what}: <ȳ, Ax+b> = {} but <Aᵀȳ, x> + p̄ = {} (relative {rel:e})",
            lhs.v,
            rhs.v
        );
        // Not vacuous: the products are of order one.
        assert!(scale > 1e-3, "{what}: degenerate test");
    }

    /// `from_start` (accumulated onto `start`) equals `start + from_zero` to round-off (of
    /// the order-one terms added one by one).
    fn accumulates(start: &[f64], from_zero: &[f64], from_start: &[f64], what: &str) {
        for ((a, x), b) in start.iter().zip(from_zero).zip(from_start) {
            let err = (b - (a + x)).abs();
            assert!(
                err <= 1e-13 * (1.0 + a.abs() + x.abs()),
                "{what}: does not accumulate"
            );
        }
    }

    /// A seed of magnitude in `[0.5, 1.5)` with a random sign.
    fn seed_scalar(rng: &mut Rng) -> f64 {
        let u = rng.next();
        u.signum() * (0.5 + u.abs())
    }

    fn seed_arr<const K: usize>(rng: &mut Rng) -> [f64; K] {
        core::array::from_fn(|_| seed_scalar(rng))
    }

    fn report(name: &str) {
        std::eprintln!(
            "{name}: worst relative residual so far {:e}",
            f64::from_bits(WORST.load(Ordering::Relaxed))
        );
    }

    /// One mode `y' = F_y y + F_z z + F_t t + F_p p + F_{y*} y* + F_{z*} z* + f0`,
    /// `0 = G_y y + … + g0` (affine, so its partials are constant).
    #[derive(Clone, Copy)]
    struct AffineMode<const NY: usize, const NZ: usize, const NP: usize> {
        jac: ModeJacobian<NY, NZ>,
        mem: ModeJacobian<NY, NZ>,
        fp: [[f64; NP]; NY],
        gp: [[f64; NP]; NZ],
        ft: [f64; NY],
        gt: [f64; NZ],
        f0: [f64; NY],
        g0: [f64; NZ],
    }

    impl<const NY: usize, const NZ: usize, const NP: usize> AffineMode<NY, NZ, NP> {
        fn random(rng: &mut Rng) -> Self {
            let mut jac = ModeJacobian {
                fy: rng.mat(),
                fz: rng.mat(),
                gy: rng.mat(),
                gz: rng.mat(),
            };
            for r in 0..NZ {
                jac.gz[r][r] += 3.0; // well conditioned g_z
            }
            AffineMode {
                jac,
                mem: ModeJacobian {
                    fy: rng.mat(),
                    fz: rng.mat(),
                    gy: rng.mat(),
                    gz: rng.mat(),
                },
                fp: rng.mat(),
                gp: rng.mat(),
                ft: rng.arr(),
                gt: rng.arr(),
                f0: rng.arr(),
                g0: rng.arr(),
            }
        }
    }

    /// Two affine modes, guard 0 from mode 0 to mode 1 with an affine reset; every partial
    /// random and constant. `MEM`: whether the modes read their memory (the guard and the reset
    /// read it either way).
    struct Affine<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> {
        modes: [AffineMode<NY, NZ, NP>; 2],
        guard: ScalarPartials<NY, NZ, NP>,
        reset: ResetJacobian<NY, NZ, NP>,
    }

    impl<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> Affine<NY, NZ, NP, MEM> {
        fn random(rng: &mut Rng) -> Self {
            let mut guard = ScalarPartials {
                t: rng.next(),
                y: rng.arr(),
                z: rng.arr(),
                p: rng.arr(),
                memory_y: rng.arr(),
                memory_z: rng.arr(),
            };
            guard.t += 2.0; // keeps den = h_t + h_y Φ_H + h_z Z_H away from zero
            Affine {
                modes: [AffineMode::random(rng), AffineMode::random(rng)],
                guard,
                reset: ResetJacobian {
                    t: rng.arr(),
                    y: rng.mat(),
                    z: rng.mat(),
                    p: rng.mat(),
                    memory_y: rng.mat(),
                    memory_z: rng.mat(),
                },
            }
        }
    }

    /// `c + a_y·y + a_z·z + a_p·p + a_{y*}·y* + a_{z*}·z*` at `at`.
    #[allow(clippy::too_many_arguments)]
    fn affine<const NY: usize, const NZ: usize, const NP: usize>(
        c: f64,
        at: &Point<'_, NY, NZ, NP>,
        y: &[f64],
        z: &[f64],
        p: &[f64],
        ym: &[f64],
        zm: &[f64],
    ) -> f64 {
        let mut v = c;
        v += y.iter().zip(at.y).map(|(a, b)| a * b).sum::<f64>();
        v += z.iter().zip(at.z).map(|(a, b)| a * b).sum::<f64>();
        v += p.iter().zip(at.p).map(|(a, b)| a * b).sum::<f64>();
        v += ym.iter().zip(&at.memory.y).map(|(a, b)| a * b).sum::<f64>();
        v += zm.iter().zip(&at.memory.z).map(|(a, b)| a * b).sum::<f64>();
        v
    }

    impl<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> HybridModel<NY, NZ, NP>
        for Affine<NY, NZ, NP, MEM>
    {
        const MODES: &'static [ModeInfo] = &[
            ModeInfo {
                name: "left",
                uses_memory: MEM,
                constant_jacobian: false,
            },
            ModeInfo {
                name: "entered",
                uses_memory: MEM,
                constant_jacobian: false,
            },
        ];
        const GUARDS: &'static [GuardInfo] = &[GuardInfo {
            name: "switch",
            from: 0,
            to: 1,
            direction: Direction::Either,
            has_reset: true,
        }];
        const STATE_NAMES: [&'static str; NY] = [""; NY];
        const PARAMETER_NAMES: [&'static str; NP] = [""; NP];

        fn residual(
            &self,
            mode: usize,
            at: &Point<'_, NY, NZ, NP>,
            f: &mut [f64; NY],
            g: &mut [f64; NZ],
        ) {
            let m = &self.modes[mode];
            for r in 0..NY {
                let t = m.f0[r] + m.ft[r] * at.t;
                f[r] = affine(
                    t,
                    at,
                    &m.jac.fy[r],
                    &m.jac.fz[r],
                    &m.fp[r],
                    &m.mem.fy[r],
                    &m.mem.fz[r],
                );
            }
            for r in 0..NZ {
                let t = m.g0[r] + m.gt[r] * at.t;
                g[r] = affine(
                    t,
                    at,
                    &m.jac.gy[r],
                    &m.jac.gz[r],
                    &m.gp[r],
                    &m.mem.gy[r],
                    &m.mem.gz[r],
                );
            }
        }
        fn jacobian(
            &self,
            mode: usize,
            _at: &Point<'_, NY, NZ, NP>,
            jac: &mut ModeJacobian<NY, NZ>,
        ) {
            *jac = self.modes[mode].jac;
        }
        fn parameter_jacobian(
            &self,
            mode: usize,
            _at: &Point<'_, NY, NZ, NP>,
            fp: &mut [[f64; NP]; NY],
            gp: &mut [[f64; NP]; NZ],
        ) {
            *fp = self.modes[mode].fp;
            *gp = self.modes[mode].gp;
        }
        fn time_partials(
            &self,
            mode: usize,
            _at: &Point<'_, NY, NZ, NP>,
            ft: &mut [f64; NY],
            gt: &mut [f64; NZ],
        ) {
            *ft = self.modes[mode].ft;
            *gt = self.modes[mode].gt;
        }
        fn memory_jacobian(
            &self,
            mode: usize,
            _at: &Point<'_, NY, NZ, NP>,
            jac: &mut ModeJacobian<NY, NZ>,
        ) {
            *jac = self.modes[mode].mem;
        }
        fn guard(&self, _guard: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
            let h = &self.guard;
            affine(h.t * at.t, at, &h.y, &h.z, &h.p, &h.memory_y, &h.memory_z)
        }
        fn guard_partials(
            &self,
            _guard: usize,
            _at: &Point<'_, NY, NZ, NP>,
            partials: &mut ScalarPartials<NY, NZ, NP>,
        ) {
            *partials = self.guard;
        }
        fn reset(&self, _guard: usize, at: &Point<'_, NY, NZ, NP>, y_plus: &mut [f64; NY]) {
            let rj = &self.reset;
            for r in 0..NY {
                y_plus[r] = affine(
                    rj.t[r] * at.t,
                    at,
                    &rj.y[r],
                    &rj.z[r],
                    &rj.p[r],
                    &rj.memory_y[r],
                    &rj.memory_z[r],
                );
            }
        }
        fn reset_jacobian(
            &self,
            _guard: usize,
            _at: &Point<'_, NY, NZ, NP>,
            jac: &mut ResetJacobian<NY, NZ, NP>,
        ) {
            *jac = self.reset;
        }
    }

    type Model<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> =
        Affine<NY, NZ, NP, MEM>;

    fn options<const NY: usize, const NZ: usize>() -> Options<NY, NZ> {
        Options::new(1e-10, 1e-12)
    }

    /// Scales a random vector (keeps H-directions and step data moderate).
    fn scaled<const K: usize>(rng: &mut Rng, s: f64) -> [f64; K] {
        rng.arr::<K>().map(|x| s * x)
    }

    /// Forward step 2: `event_step_length_derivative` (free function, all inputs random).
    fn length_case<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool>(seed: u64) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let (y, z, p) = (rng.arr(), rng.arr(), rng.arr());
        let memory = Memory {
            y: rng.arr(),
            z: rng.arr(),
        };
        let at = Point {
            t: 0.3,
            y: &y,
            z: &z,
            p: &p,
            memory: &memory,
        };
        let (sy, sz): ([[f64; NP]; NY], [[f64; NP]; NZ]) = (rng.mat(), rng.mat());
        let (msy, msz): ([[f64; NP]; NY], [[f64; NP]; NZ]) = (rng.mat(), rng.mat());
        let (yh, zh) = (scaled::<NY>(&mut rng, 0.3), scaled::<NZ>(&mut rng, 0.3));
        let dt = rng.arr();
        let step = EventStep {
            sy: &sy,
            sz: &sz,
            yh: &yh,
            zh: &zh,
            dt: &dt,
            memory_sy: &msy,
            memory_sz: &msz,
        };
        let (dh, _) = event_step_length_derivative(&model, 0, 0, &at, &step).unwrap();
        let h_bar = seed_scalar(&mut rng);
        let transpose = |mem_bar: &mut StateAdjoint<NY, NZ>, p_bar: &mut [f64; NP]| {
            step_length_derivative_transpose(&model, 0, 0, &at, &yh, &zh, h_bar, mem_bar, p_bar)
                .unwrap()
        };
        let (mut mem_bar, mut p_bar) = (StateAdjoint::ZERO, [0.0; NP]);
        let ins = transpose(&mut mem_bar, &mut p_bar);
        let m0 = StateAdjoint {
            y: rng.arr(),
            z: rng.arr(),
        };
        let p0: [f64; NP] = rng.arr();
        let (mut m1, mut p1) = (m0, p0);
        assert_eq!(transpose(&mut m1, &mut p1), ins);
        accumulates(&m0.y, &mem_bar.y, &m1.y, "s̄*");
        accumulates(&m0.z, &mem_bar.z, &m1.z, "w̄*");
        accumulates(&p0, &p_bar, &p1, "p̄");
        for q in 0..NP {
            let mut lhs = Dot::default();
            lhs.add(h_bar, dh[q]);
            let mut rhs = Dot::default();
            rhs.col(&ins.sy, &sy, q);
            rhs.col(&ins.sz, &sz, q);
            rhs.add(ins.dt, dt[q]);
            rhs.col(&mem_bar.y, &msy, q);
            rhs.col(&mem_bar.z, &msz, q);
            rhs.add(p_bar[q], 1.0);
            check(&lhs, &rhs, "event_step_length_derivative");
        }
    }

    /// An integrator in mode 0 of `adapter` after an event step (`StepLength::Event`) of size
    /// 0.05 from random sensitivities and grid shift.
    fn after_event_step<
        'a,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const MEM: bool,
    >(
        adapter: &'a ModeAdapter<'a, Model<NY, NZ, NP, MEM>, NY, NZ, NP>,
        tableau: &'a Tableau<S>,
        p: [f64; NP],
        rng: &mut Rng,
    ) -> Esdirk<'a, ModeAdapter<'a, Model<NY, NZ, NP, MEM>, NY, NZ, NP>, S, NY, NZ, NP, N> {
        let mut it = Esdirk::<_, S, NY, NZ, NP, N>::new(
            adapter,
            tableau,
            0,
            p,
            0.3,
            rng.arr(),
            rng.arr(),
            options(),
        )
        .unwrap();
        it.enable_sensitivities_at(rng.mat(), rng.arr()).unwrap();
        let h = 0.05;
        it.evaluate_fixed(h).unwrap();
        let t_end = it.t() + h;
        it.commit_fixed(h, t_end, StepLength::Event, &mut |_| {})
            .unwrap();
        it
    }

    fn random_adapter<'a, const NY: usize, const NZ: usize, const NP: usize, const MEM: bool>(
        model: &'a Model<NY, NZ, NP, MEM>,
        mode: usize,
        rng: &mut Rng,
    ) -> ModeAdapter<'a, Model<NY, NZ, NP, MEM>, NY, NZ, NP> {
        let memory = Memory {
            y: rng.arr(),
            z: rng.arr(),
        };
        ModeAdapter::new(model, mode, memory, rng.mat(), rng.mat())
    }

    /// Forward step 3: `Esdirk::apply_step_length_derivative` on a real event step, random
    /// `∂H/∂p`.
    fn apply_case<
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const MEM: bool,
    >(
        tableau: &Tableau<S>,
        seed: u64,
    ) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let p = rng.arr();
        let adapter = random_adapter(&model, 0, &mut rng);
        let mut it = after_event_step::<S, NY, NZ, NP, N, MEM>(&adapter, tableau, p, &mut rng);
        let (y0s, z0s) = {
            let (a, b) = it.stage_sensitivities();
            (*a, *b)
        };
        let st0 = *it.time_sensitivity();
        let dh0 = *it.step_time_sensitivities().1;
        let (yh, zh) = {
            let (a, b) = it.step_length_direction();
            (*a, *b)
        };
        let dh: [f64; NP] = rng.arr();
        it.apply_step_length_derivative(&dh).unwrap();
        let (ys, zs) = it.stage_sensitivities();
        let (sy, sz) = it.sensitivities();
        let st = it.time_sensitivity();
        let step_dh = it.step_time_sensitivities().1;
        let (stage_y, stage_z): ([[f64; NY]; S], [[f64; NZ]; S]) = (rng.mat(), rng.mat());
        let seeds = EventStepSeeds {
            stage_y: &stage_y,
            stage_z: &stage_z,
            pre: PreEventAdjoint {
                sy: rng.arr(),
                sz: rng.arr(),
                tau: seed_scalar(&mut rng),
            },
            dh: seed_scalar(&mut rng),
        };
        let direction = StepLengthDirection { yh: &yh, zh: &zh };
        let out = apply_step_length_transpose(&direction, &seeds);
        for q in 0..NP {
            let mut lhs = Dot::default();
            for i in 0..S {
                lhs.col(&stage_y[i], &ys[i], q);
                lhs.col(&stage_z[i], &zs[i], q);
            }
            lhs.col(&seeds.pre.sy, sy, q);
            lhs.col(&seeds.pre.sz, sz, q);
            lhs.add(seeds.pre.tau, st[q]);
            lhs.add(seeds.dh, step_dh[q]);
            let mut rhs = Dot::default();
            for i in 0..S {
                rhs.col(&out.stage_y[i], &y0s[i], q);
                rhs.col(&out.stage_z[i], &z0s[i], q);
            }
            rhs.add(out.dt, st0[q]);
            rhs.add(out.h, dh[q]);
            rhs.add(seeds.dh, dh0[q]); // step_dh passes through (zero after an event step)
            check(&lhs, &rhs, "apply_step_length_derivative");
        }
    }

    /// Forward step 5: `jump_sensitivities` (free function, all inputs random).
    fn jump_case<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool>(
        has_reset: bool,
        seed: u64,
    ) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let (y, z, p) = (rng.arr(), rng.arr(), rng.arr());
        let memory = Memory {
            y: rng.arr(),
            z: rng.arr(),
        };
        let at = Point {
            t: 0.3,
            y: &y,
            z: &z,
            p: &p,
            memory: &memory,
        };
        let (sy, sz): ([[f64; NP]; NY], [[f64; NP]; NZ]) = (rng.mat(), rng.mat());
        let (msy, msz): ([[f64; NP]; NY], [[f64; NP]; NZ]) = (rng.mat(), rng.mat());
        let tau = rng.arr();
        let pre = PreEventSensitivities {
            sy: &sy,
            sz: &sz,
            tau: &tau,
            memory_sy: &msy,
            memory_sz: &msz,
        };
        let jump = jump_sensitivities(&model, 0, has_reset, 0, &at, &pre).unwrap();
        let post = RestartAdjoint {
            sy: rng.arr(),
            tau: seed_scalar(&mut rng),
            memory: StateAdjoint {
                y: rng.arr(),
                z: rng.arr(),
            },
        };
        let transpose = |mem_bar: &mut StateAdjoint<NY, NZ>, p_bar: &mut [f64; NP]| {
            jump_transpose(&model, 0, has_reset, 0, &at, &post, mem_bar, p_bar).unwrap()
        };
        let (mut mem_bar, mut p_bar) = (StateAdjoint::ZERO, [0.0; NP]);
        let bar = transpose(&mut mem_bar, &mut p_bar);
        let m0 = StateAdjoint {
            y: rng.arr(),
            z: rng.arr(),
        };
        let p0: [f64; NP] = rng.arr();
        let (mut m1, mut p1) = (m0, p0);
        assert_eq!(transpose(&mut m1, &mut p1), bar);
        accumulates(&m0.y, &mem_bar.y, &m1.y, "s̄*");
        accumulates(&m0.z, &mem_bar.z, &m1.z, "w̄*");
        accumulates(&p0, &p_bar, &p1, "p̄");
        for q in 0..NP {
            let mut lhs = Dot::default();
            lhs.col(&post.sy, &jump.sy, q);
            lhs.col(&post.memory.y, &jump.memory_sy, q);
            lhs.col(&post.memory.z, &jump.memory_sz, q);
            lhs.add(post.tau, tau[q]); // the next segment's grid shift
            let mut rhs = Dot::default();
            rhs.col(&bar.sy, &sy, q);
            rhs.col(&bar.sz, &sz, q);
            rhs.add(bar.tau, tau[q]);
            rhs.col(&mem_bar.y, &msy, q);
            rhs.col(&mem_bar.z, &msz, q);
            rhs.add(p_bar[q], 1.0);
            check(&lhs, &rhs, "jump_sensitivities");
        }
    }

    /// Forward step 6: the consistent `w⁺` of `Esdirk::enable_sensitivities_at` at a restart
    /// (grid shift `τ`, memory sensitivities of the new mode), on a real integrator.
    fn restart_case<
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const MEM: bool,
    >(
        seed: u64,
    ) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let p = rng.arr();
        let adapter = random_adapter(&model, 1, &mut rng);
        let mut it = Esdirk::<_, 3, NY, NZ, NP, N>::new(
            &adapter,
            &ESDIRK23,
            1,
            p,
            0.7,
            rng.arr(),
            rng.arr(),
            options(),
        )
        .unwrap();
        let s_plus: [[f64; NP]; NY] = rng.mat();
        let tau: [f64; NP] = rng.arr();
        it.enable_sensitivities_at(s_plus, tau).unwrap();
        let w_plus = *it.sensitivities().1;
        let (msy, msz) = adapter.memory_sensitivities();
        let at = adapter.point(it.t(), it.y(), it.z(), &p);
        let w_bar: [f64; NZ] = seed_arr(&mut rng);
        let post0 = RestartAdjoint {
            sy: rng.arr(),
            tau: seed_scalar(&mut rng),
            memory: StateAdjoint {
                y: rng.arr(),
                z: rng.arr(),
            },
        };
        let p0: [f64; NP] = rng.arr();
        let transpose = |post: &mut RestartAdjoint<NY, NZ>, p_bar: &mut [f64; NP]| {
            consistent_algebraic_transpose(&model, 1, &at, &w_bar, post, p_bar).unwrap()
        };
        let zero = RestartAdjoint {
            sy: [0.0; NY],
            tau: 0.0,
            memory: StateAdjoint::ZERO,
        };
        let (mut post, mut p_bar) = (zero, [0.0; NP]);
        transpose(&mut post, &mut p_bar);
        let (mut post1, mut p1) = (post0, p0);
        transpose(&mut post1, &mut p1);
        accumulates(&post0.sy, &post.sy, &post1.sy, "s̄⁺");
        accumulates(&[post0.tau], &[post.tau], &[post1.tau], "τ̄");
        accumulates(&post0.memory.y, &post.memory.y, &post1.memory.y, "s̄*⁺");
        accumulates(&post0.memory.z, &post.memory.z, &post1.memory.z, "w̄*⁺");
        accumulates(&p0, &p_bar, &p1, "p̄");
        for q in 0..NP {
            let mut lhs = Dot::default();
            lhs.col(&w_bar, &w_plus, q);
            let mut rhs = Dot::default();
            rhs.col(&post.sy, &s_plus, q);
            rhs.col(&post.memory.y, msy, q);
            rhs.col(&post.memory.z, msz, q);
            rhs.add(post.tau, tau[q]);
            rhs.add(p_bar[q], 1.0);
            if NZ == 0 {
                assert_eq!((post, p_bar), (zero, [0.0; NP]));
            } else {
                check(&lhs, &rhs, "enable_sensitivities_at (restart)");
            }
        }
    }

    /// Forward step 6 at `t0`: `w_0` from `s_0` with memory sensitivities `(s_0, 0)` and no
    /// grid shift (as `hybrid/mod.rs` starts the first segment).
    fn initial_case<
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const MEM: bool,
    >(
        seed: u64,
    ) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let p = rng.arr();
        let (y0, z0) = (rng.arr(), rng.arr());
        let s0: [[f64; NP]; NY] = rng.mat();
        let adapter = ModeAdapter::new(&model, 0, Memory { y: y0, z: z0 }, s0, [[0.0; NP]; NZ]);
        let mut it =
            Esdirk::<_, 4, NY, NZ, NP, N>::new(&adapter, &ESDIRK34, 0, p, 0.0, y0, z0, options())
                .unwrap();
        it.enable_sensitivities_at(s0, [0.0; NP]).unwrap();
        let (s, w0) = it.sensitivities();
        let (s, w0) = (*s, *w0);
        let st = *it.time_sensitivity();
        let (msy, msz) = adapter.memory_sensitivities();
        let at = adapter.point(it.t(), it.y(), it.z(), &p);
        let w_bar: [f64; NZ] = seed_arr(&mut rng);
        let first = RestartAdjoint {
            sy: rng.arr(),
            tau: seed_scalar(&mut rng),
            memory: StateAdjoint {
                y: rng.arr(),
                z: rng.arr(),
            },
        };
        let mut p_bar = [0.0; NP];
        let s0_bar =
            initial_algebraic_transpose(&model, 0, &at, &w_bar, &first, &mut p_bar).unwrap();
        for q in 0..NP {
            // Outputs: the first segment's (s, w, grid shift) and memory sensitivities.
            let mut lhs = Dot::default();
            lhs.col(&first.sy, &s, q);
            lhs.col(&w_bar, &w0, q);
            lhs.add(first.tau, st[q]);
            lhs.col(&first.memory.y, msy, q);
            lhs.col(&first.memory.z, msz, q);
            let mut rhs = Dot::default();
            rhs.col(&s0_bar, &s0, q);
            rhs.add(p_bar[q], 1.0);
            check(&lhs, &rhs, "enable_sensitivities_at (t0)");
        }
    }

    /// Forward steps 2–6 composed, on real integrators, with the transposes called in the
    /// backward order of the module docs: inputs are the event step's `∂H/∂p = 0` stage sensitivities, its
    /// start's grid shift and the old memory sensitivities; outputs everything the cost
    /// quadrature of the event step and the next segment read.
    fn chain_case<
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const MEM: bool,
    >(
        tableau: &Tableau<S>,
        has_reset: bool,
        seed: u64,
    ) {
        let mut rng = Rng(seed);
        let model = Model::<NY, NZ, NP, MEM>::random(&mut rng);
        let p = rng.arr();
        let adapter = random_adapter(&model, 0, &mut rng);
        let (msy, msz) = adapter.memory_sensitivities();
        // Forward, as the hybrid driver does it.
        let mut it = after_event_step::<S, NY, NZ, NP, N, MEM>(&adapter, tableau, p, &mut rng);
        let (y0s, z0s) = {
            let (a, b) = it.stage_sensitivities();
            (*a, *b)
        };
        let dt_n = *it.time_sensitivity();
        let (yh, zh) = {
            let (a, b) = it.step_length_direction();
            (*a, *b)
        };
        let (y_minus, z_minus, t_ev) = (*it.y(), *it.z(), it.t());
        let at = adapter.point(t_ev, &y_minus, &z_minus, &p);
        let (dh, _) = {
            let (sy, sz) = it.sensitivities();
            let step = EventStep {
                sy,
                sz,
                yh: &yh[S - 1],
                zh: &zh[S - 1],
                dt: &dt_n,
                memory_sy: msy,
                memory_sz: msz,
            };
            event_step_length_derivative(&model, 0, 0, &at, &step).unwrap()
        };
        it.apply_step_length_derivative(&dh).unwrap();
        let (ys, zs) = {
            let (a, b) = it.stage_sensitivities();
            (*a, *b)
        };
        let step_dh = *it.step_time_sensitivities().1;
        let tau = *it.time_sensitivity();
        let (s_minus, w_minus) = it.sensitivities();
        let pre = PreEventSensitivities {
            sy: s_minus,
            sz: w_minus,
            tau: &tau,
            memory_sy: msy,
            memory_sz: msz,
        };
        let jump = jump_sensitivities(&model, 0, has_reset, 0, &at, &pre).unwrap();
        let mut y_plus = y_minus;
        if has_reset {
            model.reset(0, &at, &mut y_plus);
        }
        let memory_plus = Memory {
            y: y_plus,
            z: z_minus,
        };
        let adapter1 = ModeAdapter::new(&model, 1, memory_plus, jump.memory_sy, jump.memory_sz);
        let mut it1 = Esdirk::<_, S, NY, NZ, NP, N>::new(
            &adapter1,
            tableau,
            1,
            p,
            t_ev,
            y_plus,
            z_minus,
            options(),
        )
        .unwrap();
        it1.enable_sensitivities_at(jump.sy, tau).unwrap();
        let (s_plus, w_plus) = it1.sensitivities();
        let st_next = it1.time_sensitivity();
        // Seeds: adjoints of every output.
        let (stage_y, stage_z): ([[f64; NY]; S], [[f64; NZ]; S]) = (rng.mat(), rng.mat());
        let dh_bar = seed_scalar(&mut rng);
        let (s_plus_bar, w_plus_bar): ([f64; NY], [f64; NZ]) = (rng.arr(), rng.arr());
        let tau_next_bar = seed_scalar(&mut rng);
        let new_memory_bar = StateAdjoint {
            y: rng.arr(),
            z: rng.arr(),
        };
        // Backward, in the documented order.
        let mut p_bar = [0.0; NP];
        let mut post = RestartAdjoint {
            sy: s_plus_bar,
            tau: tau_next_bar,
            memory: new_memory_bar,
        };
        let at1 = adapter1.point(it1.t(), it1.y(), it1.z(), &p);
        consistent_algebraic_transpose(&model, 1, &at1, &w_plus_bar, &mut post, &mut p_bar)
            .unwrap();
        let mut memory_bar = StateAdjoint::ZERO;
        let pre_bar = jump_transpose(
            &model,
            0,
            has_reset,
            0,
            &at,
            &post,
            &mut memory_bar,
            &mut p_bar,
        )
        .unwrap();
        let seeds = EventStepSeeds {
            stage_y: &stage_y,
            stage_z: &stage_z,
            pre: pre_bar,
            dh: dh_bar,
        };
        let direction = StepLengthDirection { yh: &yh, zh: &zh };
        let ev = event_step_length_transpose(
            &model,
            0,
            0,
            &at,
            &direction,
            &seeds,
            &mut memory_bar,
            &mut p_bar,
        )
        .unwrap();
        for q in 0..NP {
            let mut lhs = Dot::default();
            for i in 0..S {
                lhs.col(&stage_y[i], &ys[i], q);
                lhs.col(&stage_z[i], &zs[i], q);
            }
            lhs.add(dh_bar, step_dh[q]);
            lhs.col(&s_plus_bar, s_plus, q);
            lhs.col(&w_plus_bar, w_plus, q);
            lhs.add(tau_next_bar, st_next[q]);
            lhs.col(&new_memory_bar.y, &jump.memory_sy, q);
            lhs.col(&new_memory_bar.z, &jump.memory_sz, q);
            let mut rhs = Dot::default();
            for i in 0..S {
                rhs.col(&ev.stage_y[i], &y0s[i], q);
                rhs.col(&ev.stage_z[i], &z0s[i], q);
            }
            rhs.add(ev.dt, dt_n[q]);
            rhs.col(&memory_bar.y, msy, q);
            rhs.col(&memory_bar.z, msz, q);
            rhs.add(p_bar[q], 1.0);
            check(&lhs, &rhs, "event chain");
        }
    }

    /// Every case for one set of sizes (`N = NY + NZ`), with and without memory terms in the
    /// modes, with and without a reset, two tableaus, several seeds.
    fn all_cases<const NY: usize, const NZ: usize, const NP: usize, const N: usize>() {
        for seed in 0..20u64 {
            let s = seed * 1000 + (NY * 100 + NZ * 10 + NP) as u64;
            length_case::<NY, NZ, NP, true>(s);
            length_case::<NY, NZ, NP, false>(s + 1);
            apply_case::<3, NY, NZ, NP, N, true>(&ESDIRK23, s + 2);
            apply_case::<4, NY, NZ, NP, N, false>(&ESDIRK34, s + 3);
            for has_reset in [true, false] {
                jump_case::<NY, NZ, NP, true>(has_reset, s + 4);
                jump_case::<NY, NZ, NP, false>(has_reset, s + 5);
                chain_case::<3, NY, NZ, NP, N, true>(&ESDIRK23, has_reset, s + 6);
                chain_case::<4, NY, NZ, NP, N, true>(&ESDIRK34, has_reset, s + 7);
                chain_case::<4, NY, NZ, NP, N, false>(&ESDIRK34, has_reset, s + 8);
            }
            restart_case::<NY, NZ, NP, N, true>(s + 9);
            restart_case::<NY, NZ, NP, N, false>(s + 10);
            initial_case::<NY, NZ, NP, N, true>(s + 11);
            initial_case::<NY, NZ, NP, N, false>(s + 12);
        }
    }

    #[test]
    fn event_maps_transpose_ode() {
        all_cases::<1, 0, 1, 1>();
        all_cases::<2, 0, 3, 2>();
        all_cases::<4, 0, 2, 4>();
        report("ODE modes");
    }

    #[test]
    fn event_maps_transpose_dae() {
        all_cases::<1, 1, 1, 2>();
        all_cases::<2, 1, 3, 3>();
        all_cases::<3, 2, 2, 5>();
        all_cases::<1, 3, 4, 4>();
        report("DAE modes");
    }
}
