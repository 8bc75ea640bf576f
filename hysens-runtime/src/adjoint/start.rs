//! The transposes of a segment's start (`fsa/start.rs`): the consistent algebraic
//! sensitivities after an event (step 6 of the event in the module docs of `jump.rs`) and at
//! `t0`, where the given `∂y0/∂p` also seeds the first mode's memory sensitivities.
//!
//! At the initial point two forward relations remain to be transposed:
//!
//! * the consistent initial algebraic state: the forward solve makes `z_0` consistent with
//!   `g(t_0, y_0, z_0, p, m) = 0`, so `w_0 = −g_z⁻¹ (g_y s_0 + g_p + g_{y*} s*)` (Kristensen et
//!   al. 2005, Eq. 3, with the memory terms of Serban & Recuero 2019, Eq. 25b); transposed:
//!   `g_zᵀ μ_0 = z̄_0`, then `(ȳ_0, p̄, ȳ*) −= (g_y, g_p, g_{y*})ᵀ μ_0`;
//! * the memory of the first mode, `y* = y_0` (its `z*` is the caller's constant `z0`): the
//!   accumulator `ȳ*` of the segment is released into `ȳ_0` at the segment's start (Serban &
//!   Recuero 2019, §4, Algorithm 1).
//!
//! Then `dG/dy_0 = ȳ_0` and, if the problem gives `∂y_0/∂p = s_0`, `dG/dp = p̄ + s_0ᵀ ȳ_0`.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::index2::{is_index2, start_transpose, PointAdjoint};
use super::jump::{RestartAdjoint, StateAdjoint};
use super::tape::TapeStep;
use super::{AdjointGradient, Costate};
use crate::error::SolveError;
use crate::linalg::{all_finite, DenseLu};
use crate::model::{
    mode_g_partials, AdjointProducts, ConditionPartials, HybridModel, Memory, ModeJacobian, Point,
};
use crate::run::{HybridProblem, HybridSolution};

/// Transpose of the consistent algebraic sensitivities at the start of a segment (module docs of `jump.rs`,
/// step 6; `Esdirk::enable_sensitivities_at` with the mode adapter's memory terms):
/// `w⁺ = −g_z⁻¹ (g_y s⁺ + g_t τ + g_p + g_{y*} s*⁺ + g_{z*} w*⁺)`. With `λ = g_z⁻ᵀ w̄⁺`,
/// accumulates `s̄⁺ −= g_yᵀ λ`, `τ̄ −= g_t·λ`, `s̄*⁺ −= g_{y*}ᵀ λ`, `w̄*⁺ −= g_{z*}ᵀ λ`
/// (memory terms only if `mode` reads its memory, as in `model/adapter.rs`) into `post`, and
/// `p̄ −= g_pᵀ λ`. `at` is the segment's start `(t, y⁺, z⁺, p, m⁺)`, with the consistent `z⁺`
/// and the new memory. In a Hessenberg index-2 mode `z⁺` is from the hidden constraint and the
/// start was moved onto `k = 0` (`fsa/start.rs`): both transposed instead (`index2.rs`).
/// Nothing to do when `NZ = 0`.
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
    if is_index2::<M, NY, NZ, NP>(mode) {
        return start_transpose(model, mode, at, w_bar, post, p_bar);
    }
    let g = mode_g_partials(model, mode, at);
    let lu = DenseLu::factor(g.cz).map_err(|e| SolveError::from_lu(e, at.t, mode, "g_z"))?;
    let mut lambda = *w_bar;
    lu.solve_transposed(&mut lambda);
    let adjoint = PointAdjoint {
        y: &mut post.sy,
        t: &mut post.tau,
        p: p_bar,
    };
    subtract_transposed(&g, &lambda, adjoint, at.t, mode)?;
    if M::MODES.get(mode).is_some_and(|m| m.uses_memory) {
        let mut mj = ModeJacobian::zeroed();
        model.memory_jacobian(mode, at, &mut mj);
        mj.sub_g_transposed_times(&lambda, &mut post.memory.y, &mut post.memory.z);
    }
    if !all_finite(&post.memory.y) || !all_finite(&post.memory.z) {
        return Err(nonfinite("adjoint of the algebraic sensitivities"));
    }
    Ok(())
}

/// Transpose of the start of the solve (module docs of `jump.rs`, last paragraph): the forward pass maps the
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

/// Where the first mode's start is read: the first recorded step (the zero-length step of an
/// event at `t0` too, `hybrid/entry.rs`), or the end of a solve without steps.
#[derive(Clone, Copy)]
pub(super) enum InitialState<'s, const S: usize, const NY: usize, const NZ: usize> {
    FirstStep(&'s TapeStep<S, NY, NZ>),
    Final,
}

/// The initial point (module docs): the consistent `z_0` and the first mode's memory
/// `y* = y_0` transposed; writes `dG/dy_0`, `dG/dp` into `gradient`. `first`: the first
/// recorded step, if any.
pub(super) fn initial_point<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    first: InitialState<'_, S, NY, NZ>,
    sol: &HybridSolution<NY, NZ, NP>,
    costate: &mut Costate<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let first_memory = Memory {
        y: problem.y0,
        z: problem.z0,
    };
    let (t0, mode, y0, z0) = match first {
        InitialState::FirstStep(s) => (s.t, s.mode, s.ys[0], s.zs[0]),
        InitialState::Final => (sol.t, sol.mode, sol.y, sol.z),
    };
    let at = Point {
        t: t0,
        y: &y0,
        z: &z0,
        p: &problem.p,
        memory: &first_memory,
    };
    let start = RestartAdjoint {
        sy: costate.y,
        tau: costate.t,
        memory: StateAdjoint {
            y: costate.memory_y,
            z: costate.memory_z,
        },
    };
    costate.y = initial_algebraic_transpose(model, mode, &at, &costate.z, &start, &mut costate.p)?;
    if NZ > 0 {
        gradient.stats.jacobian_evals += 1;
        gradient.stats.lu_factorizations += 1;
        gradient.stats.lu_solves += 1;
    }
    gradient.y0 = costate.y;
    gradient.p = costate.p;
    if let Some(s0) = &problem.sensitivities {
        for q in 0..NP {
            for c in 0..NY {
                gradient.p[q] += s0[c][q] * costate.y[c];
            }
        }
    }
    if !all_finite(&gradient.p) || !all_finite(&gradient.y0) {
        return Err(SolveError::NonFiniteValue {
            t: t0,
            mode,
            what: "adjoint gradient",
        });
    }
    Ok(())
}

/// The transpose of `w = −c_z⁻¹ (c_y s + c_p + c_t st)` given `λ = c_z⁻ᵀ w̄` (`c` the partials
/// of the condition that defines `z`: `g`, an index-2 mode's hidden constraint, or its
/// constraints `k`): `ȳ −= c_yᵀ λ`, `t̄ −= c_t·λ`, `p̄ −= c_pᵀ λ`, checked finite.
pub(super) fn subtract_transposed<const NY: usize, const NZ: usize, const NP: usize>(
    c: &ConditionPartials<NY, NZ, NP>,
    lambda: &[f64; NZ],
    adjoint: PointAdjoint<'_, NY, NP>,
    t: f64,
    mode: usize,
) -> Result<(), SolveError> {
    for r in 0..NZ {
        let l = lambda[r];
        *adjoint.t -= c.ct[r] * l;
        for m in 0..NY {
            adjoint.y[m] -= c.cy[r][m] * l;
        }
        for q in 0..NP {
            adjoint.p[q] -= c.cp[r][q] * l;
        }
    }
    if !all_finite(lambda)
        || !all_finite(adjoint.y)
        || !adjoint.t.is_finite()
        || !all_finite(adjoint.p)
    {
        return Err(SolveError::NonFiniteValue {
            t,
            mode,
            what: "adjoint of the algebraic sensitivities",
        });
    }
    Ok(())
}
