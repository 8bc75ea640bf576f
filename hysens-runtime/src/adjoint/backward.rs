//! The backward pass over a tape: terminal cost, then the steps in reverse with the sampled
//! costs as jumps of the adjoint at their sample times, then the initial point.
//!
//! A step that ends in an event is transposed together with its event ([`event_step`], in the
//! order of `jump.rs`): the samples at the restart, the consistent `w⁺`, the jump (which
//! releases the new segment's memory adjoint), the event step's cost quadrature, its
//! event-time map, and the step itself with `∂H/∂p = 0`. A step whose start moves with the
//! parameters ([`crate::TapeStep::shifted`]) carries the adjoint of its grid shift back to the
//! event that started its segment.
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
use super::cost::integral_seeds;
use super::jump::{
    consistent_algebraic_transpose, event_step_length_transpose, initial_algebraic_transpose,
    jump_transpose, EventStepSeeds, RestartAdjoint, StateAdjoint, StepLengthDirection,
};
use super::step::{StageLu, StageSeeds, Sweep};
use super::tape::{Tape, TapeEvent, TapeStep};
use super::{AdjointGradient, Costate};
use crate::error::{all_finite, SolveError};
use crate::hybrid::{HybridProblem, HybridSolution, Sample};
use crate::model::{AdjointProducts, Memory, Point, ScalarPartials};
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
        // Samples recorded before this step: up to the end of the previous step, or up to the
        // restart after the previous step's event.
        let start = match k.checked_sub(1).and_then(|j| steps.get(j)) {
            Some(previous) => previous
                .event
                .as_ref()
                .map_or(previous.samples, |e| e.samples),
            None => tape.initial_samples,
        };
        match &step.event {
            None => {
                sampled_seeds(
                    model,
                    problem,
                    samples,
                    start..end.min(step.samples),
                    &step.memory,
                    &mut costate,
                    stats,
                );
                sweep.step(step, step.shifted, &mut costate, &mut cache, stats)?;
            }
            Some(event) => {
                // The step to an event records no sample at its end: those up to the event's
                // count are at the restart, in the new mode.
                sampled_seeds(
                    model,
                    problem,
                    samples,
                    start..end.min(event.samples),
                    &event.memory,
                    &mut costate,
                    stats,
                );
                event_step(&sweep, step, event, &mut costate, &mut cache, stats)?;
                stats.events += 1;
            }
        }
        end = start;
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
    let first = RestartAdjoint {
        sy: costate.y,
        tau: costate.t,
        memory: StateAdjoint {
            y: costate.memory_y,
            z: costate.memory_z,
        },
    };
    costate.y = initial_algebraic_transpose(model, mode, &at, &costate.z, &first, &mut costate.p)?;
    if NZ > 0 {
        stats.jacobian_evals += 1;
        stats.lu_factorizations += 1;
        stats.lu_solves += 1;
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

/// Transposes an event and the step to it (module docs of `jump.rs`, in reverse order of the
/// forward pass): on entry `costate` holds the adjoints of the restart `(y⁺, z⁺, τ)` (from the
/// first step of the new segment, and the samples at the restart) and the memory accumulators
/// of the new segment; on return the adjoints of the event step's start `(y_n, z_n, t_n)` and
/// the memory accumulators of the segment being left, started with its memory terms at the
/// event (reset, guard, the event step's cost). The new segment's memory adjoint is released
/// into the jump: `s*⁺ = s⁺`, `w*⁺ = w⁻` (Serban & Recuero 2019, §4, Algorithm 1).
fn event_step<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    sweep: &Sweep<'_, M, S, NP>,
    step: &TapeStep<S, NY, NZ>,
    event: &TapeEvent<S, NY, NZ>,
    costate: &mut Costate<NY, NZ, NP>,
    cache: &mut StageLu<NY, NZ, N>,
    stats: &mut super::AdjointStats,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let (model, p) = (sweep.model, sweep.p);
    let Some(info) = M::GUARDS.get(event.guard) else {
        return Err(SolveError::InvalidArgument {
            t: event.t,
            mode: step.mode,
            what: "guard index",
        });
    };
    // (6)ᵀ the consistent w⁺ in the new mode.
    let mut post = RestartAdjoint {
        sy: costate.y,
        tau: costate.t,
        memory: StateAdjoint {
            y: costate.memory_y,
            z: costate.memory_z,
        },
    };
    let after = Point {
        t: event.t,
        y: &event.y,
        z: &event.z,
        p,
        memory: &event.memory,
    };
    if NZ > 0 {
        consistent_algebraic_transpose(
            model,
            event.to,
            &after,
            &costate.z,
            &mut post,
            &mut costate.p,
        )?;
        stats.jacobian_evals += 1;
        stats.lu_factorizations += 1;
        stats.lu_solves += 1;
    }
    // (5)ᵀ the jump; starts the memory adjoint of the segment being left.
    let before = Point {
        t: event.t,
        y: &step.ys[S - 1],
        z: &step.zs[S - 1],
        p,
        memory: &step.memory,
    };
    let mut memory = StateAdjoint::ZERO;
    let pre = jump_transpose(
        model,
        event.guard,
        info.has_reset,
        step.mode,
        &before,
        &post,
        &mut memory,
        &mut costate.p,
    )?;
    costate.y = [0.0; NY];
    costate.z = [0.0; NZ];
    costate.t = 0.0;
    costate.memory_y = memory.y;
    costate.memory_z = memory.z;
    // (4)ᵀ the event step's cost quadrature, whose stage times move with t_n and H.
    let mut seeds = StageSeeds::ZERO;
    integral_seeds(
        sweep,
        step,
        true,
        true,
        &mut seeds.y,
        &mut seeds.z,
        &mut seeds.h,
        &mut seeds.t,
        costate,
        stats,
    );
    // (3, 2)ᵀ ∂H/∂p from the guard's root condition and its application.
    let mut memory = StateAdjoint {
        y: costate.memory_y,
        z: costate.memory_z,
    };
    let length = event_step_length_transpose(
        model,
        event.guard,
        step.mode,
        &before,
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
    // (1)ᵀ the step itself with ∂H/∂p = 0.
    let stage_seeds = StageSeeds {
        y: length.stage_y,
        z: length.stage_z,
        h: 0.0,
        t: seeds.t + length.dt,
    };
    sweep.stages(
        step,
        step.shifted,
        false,
        &stage_seeds,
        costate,
        cache,
        stats,
    )
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
