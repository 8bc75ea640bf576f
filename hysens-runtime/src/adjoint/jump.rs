//! The transpose of the jump of the forward sensitivities through a reset (`fsa/jump.rs`), and
//! the order in which an event's maps are transposed: those of the event step's length in
//! `length.rs` (`fsa/length.rs`), those of a segment's start in `start.rs` (`fsa/start.rs`).
//!
//! These are the exact transposes of the *discrete* linear maps the forward sensitivities apply
//! at an event (with the step sequence frozen), not a discretization of the continuous adjoint
//! jump conditions; they are the discrete counterparts of Serban & Recuero 2019, §3.2 (the
//! jump conditions below their Eq. 13, from the affine form `τ = α + β s⁻`,
//! `s⁺ = Γ + Δ s⁻` of their Eq. 6) and of the memory accumulators of their §4.2
//! (Algorithm 1). Because they transpose the same maps, an adjoint built from them reproduces
//! the forward gradient to round-off; the dot-product tests (`transpose_tests.rs`) check each
//! one against the forward code that runs.
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

use crate::error::SolveError;
use crate::fsa::jump::reset_jacobian;
use crate::linalg::all_finite;
use crate::model::{HybridModel, Point, ResetAdjointTerms};

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
        let rj = reset_jacobian(model, guard, at);
        let terms = ResetAdjointTerms {
            tau: &mut pre.tau,
            y: &mut pre.sy,
            z: &mut pre.sz,
            memory_y: &mut memory.y,
            memory_z: &mut memory.z,
            p: p_bar,
        };
        rj.add_transposed_times(&sigma, terms);
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
