//! The backward pass over a tape: terminal cost, then the steps in reverse with the sampled
//! costs as jumps of the adjoint at their sample times, then the initial point.
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
#![allow(clippy::needless_range_loop)]

use super::cost::add_scalar_seed;
use super::step::{memory_products, StageLu, Sweep};
use super::tape::Tape;
use super::{AdjointGradient, Costate};
use crate::error::{all_finite, SolveError};
use crate::hybrid::{HybridProblem, HybridSolution, Sample};
use crate::linalg::Lu;
use crate::model::{AdjointProducts, Memory, ModeJacobian, Point, ScalarPartials};
use crate::tableau::Tableau;

/// The backward pass of the solve that filled `tape`, `samples` and `sol` (module docs);
/// writes the gradients and statistics into `gradient`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    model: &M,
    tableau: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    tape: &Tape<'_, S, NY, NZ>,
    samples: &[Sample<NY, NZ, NP>],
    sol: &HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let p = &problem.p;
    let sweep = Sweep { model, tableau, p };
    let stats = &mut gradient.stats;
    let mut costate = Costate::ZERO;
    // Terminal cost at t_f, with the memory of the last mode.
    let at = Point {
        t: sol.t,
        y: &sol.y,
        z: &sol.z,
        p,
        memory: &sol.memory,
    };
    let mut d = ScalarPartials::ZERO;
    model.terminal_cost_partials(&at, &mut d);
    stats.cost_partials += 1;
    add_scalar_seed(&d, &mut costate);
    let first_memory = Memory {
        y: problem.y0,
        z: problem.z0,
    };
    let steps = tape.steps.get(..tape.len).unwrap_or(&[]);
    let mut cache = StageLu::<NY, NZ, N>::new();
    let mut end = sol.n_samples;
    for (k, step) in steps.iter().enumerate().rev() {
        let start = match k.checked_sub(1).and_then(|j| steps.get(j)) {
            Some(previous) => previous.samples,
            None => tape.initial_samples,
        };
        sampled_seeds(
            model,
            problem,
            samples,
            start..end.min(step.samples),
            &step.memory,
            &mut costate,
            stats,
        );
        end = start;
        sweep.step(step, false, &mut costate, &mut cache, stats)?;
        stats.steps += 1;
    }
    let memory = steps.first().map_or(sol.memory, |s| s.memory);
    sampled_seeds(
        model,
        problem,
        samples,
        0..end.min(tape.initial_samples),
        &memory,
        &mut costate,
        stats,
    );
    // The initial point: consistent z_0 and the first mode's memory y* = y_0.
    let (t0, mode, y0, z0) = match steps.first() {
        Some(s) => (s.t, s.mode, s.ys[0], s.zs[0]),
        None => (sol.t, sol.mode, sol.y, sol.z),
    };
    let at = Point {
        t: t0,
        y: &y0,
        z: &z0,
        p,
        memory: &first_memory,
    };
    if NZ > 0 {
        initial_consistency(model, mode, &at, &mut costate, stats)?;
    }
    for c in 0..NY {
        costate.y[c] += costate.memory_y[c];
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

/// Adds the sampled-cost partials of the samples `range` (states from `samples`, data from the
/// problem) to the costate.
fn sampled_seeds<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    samples: &[Sample<NY, NZ, NP>],
    range: core::ops::Range<usize>,
    memory: &Memory<NY, NZ>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut super::AdjointStats,
) where
    M: AdjointProducts<NY, NZ, NP>,
{
    for k in range.rev() {
        let Some(sample) = samples.get(k) else {
            continue;
        };
        let datum = problem.sample_data.get(k).copied().unwrap_or(0.0);
        let at = Point {
            t: sample.t,
            y: &sample.y,
            z: &sample.z,
            p: &problem.p,
            memory,
        };
        let mut d = ScalarPartials::ZERO;
        model.sampled_cost_partials(&at, datum, &mut d);
        stats.cost_partials += 1;
        add_scalar_seed(&d, costate);
    }
}

/// Transposes `w_0 = −g_z⁻¹ (g_y s_0 + g_p + g_{y*} s*)` at the initial point (module docs):
/// moves `z̄_0` into `ȳ_0`, `p̄` and `ȳ*`.
fn initial_consistency<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    mode: usize,
    at: &Point<'_, NY, NZ, NP>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut super::AdjointStats,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let mut jac = ModeJacobian::ZERO;
    model.jacobian(mode, at, &mut jac);
    stats.jacobian_evals += 1;
    let lu = Lu::factor(jac.gz).map_err(|e| SolveError::from_lu(e, at.t, mode, "g_z"))?;
    stats.lu_factorizations += 1;
    let mut mu = costate.z;
    lu.solve_transposed(&mut mu);
    stats.lu_solves += 1;
    for v in mu.iter_mut() {
        *v = -*v;
    }
    let mut out_y = [0.0; NY];
    let mut out_z = [0.0; NZ];
    let mut out_p = [0.0; NP];
    model.adjoint_products(
        mode, at, &[0.0; NY], &mu, &mut out_y, &mut out_z, &mut out_p,
    );
    stats.adjoint_products += 1;
    for c in 0..NY {
        costate.y[c] += out_y[c];
    }
    for c in 0..NP {
        costate.p[c] += out_p[c];
    }
    if M::MODES.get(mode).is_some_and(|m| m.uses_memory) {
        memory_products(model, mode, at, &[0.0; NY], &mu, costate);
    }
    costate.z = [0.0; NZ];
    Ok(())
}
