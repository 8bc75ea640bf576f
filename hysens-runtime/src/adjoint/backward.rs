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
//! At the initial point the consistent `z_0` and the first mode's memory are transposed
//! (`start.rs`).

use super::checkpoint::Checkpoint;
use super::cost::add_scalar_seed;
use super::cost::integral_seeds;
use super::index2::{is_index2, pre_event_transpose};
use super::jump::{jump_transpose, PreEventAdjoint, RestartAdjoint, StateAdjoint};
use super::left_limit::left_limit;
use super::length::length_transpose;
use super::start::{consistent_algebraic_transpose, initial_point, InitialState};
use super::step::{StageLu, StageSeeds, Sweep};
use super::tape::{AdjointTape, Recording, TapeEvent, TapeStep};
use super::{AdjointGradient, AdjointStats, Costate};
use crate::error::SolveError;
use crate::linalg::DenseLu;
use crate::model::{
    ends_solve, AdjointProducts, HybridModel, Memory, ModeJacobian, Objective, Point,
};
use crate::model::{ConditionPartials, ScalarPartials};
use crate::run::{HybridOutputs, HybridProblem, HybridRun, HybridSolution, Sample};

/// The backward pass of the solve `forward` that filled `tape`, `outputs` and `sol` (module
/// docs): the windows of a checkpointed tape last to first, each but the last recomputed from
/// its checkpoint (`checkpoint.rs`) by `resume` — the driver's solve resumed from a checkpoint,
/// recording into the tape; writes the gradients and statistics into `gradient`, and reports
/// the adjoint of the state as it goes to `observe` ([`AdjointPoint`]).
pub(crate) fn backward<
    't,
    'o,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
>(
    forward: &HybridRun<'_, M, S, NY, NZ, NP>,
    tape: &mut Recording<'t, S, NY, NZ>,
    outputs: &mut HybridOutputs<'o, NY, NZ, NP>,
    sol: &HybridSolution<NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
    observe: Option<&mut impl FnMut(AdjointPoint<NY>)>,
    resume: &mut impl FnMut(
        &Checkpoint<S, NY, NZ>,
        &mut Recording<'t, S, NY, NZ>,
        &mut HybridOutputs<'o, NY, NZ, NP>,
    ) -> Result<(), SolveError>,
) -> Result<(), SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let (model, problem) = (forward.model, forward.problem);
    let mut pass = Pass::<_, _, S, NY, NZ, NP, N>::new(forward, sol.n_events, observe);
    pass.stats = gradient.stats;
    let objective = (model, forward.objective);
    terminal_seed(objective, problem, sol, &mut pass.costate, &mut pass.stats);
    let end_state = State {
        mode: sol.mode,
        y: &sol.y,
        z: &sol.z,
        memory: &sol.memory,
    };
    pass.point(sol.t, &end_state);
    let (n, w) = (tape.next, tape.window());
    let windows = match tape.checkpointed() {
        true => AdjointTape::<S, NY, NZ>::checkpoints_needed(n, w),
        false => 1,
    };
    let mut end = sol.n_samples;
    for j in (0..windows).rev() {
        // Window j holds the steps j·W .. min((j + 1)·W, n) (all n of a full tape).
        if j + 1 < windows {
            recompute(problem.t0, tape, j, outputs, &mut pass.stats, resume)?;
        }
        let before = match j {
            0 => tape.initial_samples,
            _ => tape.checkpoints.get(j).map_or(0, |c| c.n_samples),
        };
        let len = if tape.checkpointed() {
            w.min(n - j * w)
        } else {
            n
        };
        let steps = tape.steps.get(..len).unwrap_or(&[]);
        end = pass.steps_back(outputs.samples, steps, before, end)?;
    }
    let first = tape.steps.first().filter(|_| n > 0);
    let range = 0..end.min(tape.initial_samples);
    if !range.is_empty() {
        let memory = first.map_or(sol.memory, |s| s.memory);
        pass.samples_back(outputs.samples, range, &memory);
        let start = first.map_or(end_state, State::start_of);
        pass.point(problem.t0, &start);
    }
    gradient.stats = pass.stats;
    let first = first.map_or(InitialState::Final, InitialState::FirstStep);
    initial_point(model, problem, first, sol, &mut pass.costate, gradient)?;
    // dG/dy0, through the consistent z0 and the first memory as well.
    pass.trajectory.emit(problem.t0, gradient.y0);
    Ok(())
}

/// The state of a backward pass: what transposes the steps, the problem, the costate it
/// carries from step to step, the stage LUs it reuses, its counters and its observer.
struct Pass<
    'a,
    'o,
    M,
    O,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
> where
    M: HybridModel<NY, NZ, NP>,
{
    sweep: Sweep<'a, M, S, NP>,
    problem: &'a HybridProblem<'a, NY, NZ, NP>,
    costate: Costate<NY, NZ, NP>,
    cache: StageLu<NY, NZ, N, M::Store>,
    stats: AdjointStats,
    trajectory: Trajectory<'o, O>,
}

impl<
        'a,
        'o,
        M,
        O,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
    > Pass<'a, 'o, M, O, S, NY, NZ, NP, N>
where
    M: AdjointProducts<NY, NZ, NP>,
    O: FnMut(AdjointPoint<NY>),
{
    /// The pass over the solve `forward`, from a zero costate in its last segment (number
    /// `last_segment`: the solve's count of events), reporting to `observe`.
    fn new(
        forward: &'a HybridRun<'a, M, S, NY, NZ, NP>,
        last_segment: usize,
        observe: Option<&'o mut O>,
    ) -> Self {
        Pass {
            sweep: Sweep {
                model: forward.model,
                tableau: forward.tableau,
                p: &forward.problem.p,
                objective: forward.objective,
            },
            problem: forward.problem,
            costate: Costate::ZERO,
            cache: StageLu::new(),
            stats: AdjointStats::default(),
            trajectory: Trajectory {
                observe,
                segment: last_segment,
            },
        }
    }

    /// Reports the adjoint at `t`, a point of `at` ([`Trajectory::point`]).
    fn point(&mut self, t: f64, at: &State<'_, NY, NZ>) {
        let sweep = &self.sweep;
        self.trajectory
            .point(sweep.model, sweep.p, t, at, &self.costate);
    }

    /// The sampled costs of the samples `range`, with `memory` ([`sampled_seeds`]).
    fn samples_back(
        &mut self,
        samples: &[Sample<NY, NZ, NP>],
        range: core::ops::Range<usize>,
        memory: &Memory<NY, NZ>,
    ) {
        let (model, problem) = (self.sweep.model, self.problem);
        sampled_seeds(
            (model, self.sweep.objective),
            problem,
            samples,
            range,
            memory,
            &mut self.costate,
            &mut self.stats,
        );
    }

    /// The recorded steps in reverse, each after the samples recorded at its end (or, for the
    /// step to an event, at the restart after it, in the new mode), from the sample count
    /// `end`; `before`: the samples recorded before the first of `steps`. Returns the count of
    /// samples recorded before the first step.
    fn steps_back(
        &mut self,
        samples: &[Sample<NY, NZ, NP>],
        steps: &[TapeStep<S, NY, NZ>],
        before: usize,
        mut end: usize,
    ) -> Result<usize, SolveError> {
        for (k, step) in steps.iter().enumerate().rev() {
            let start = samples_before(steps, k, before);
            // The step to an event records no sample at its end: those up to the event's
            // count are at the restart, in the new mode.
            let (last, memory) = match &step.event {
                None => (step.samples, &step.memory),
                Some(event) => (event.samples, &event.memory),
            };
            let range = start..end.min(last);
            if !range.is_empty() {
                let t = samples.get(range.start).map_or(step.t + step.h, |s| s.t);
                self.samples_back(samples, range, memory);
                self.point(t, &State::end_of(step));
            }
            let (costate, cache, stats) = (&mut self.costate, &mut self.cache, &mut self.stats);
            match &step.event {
                None => self.sweep.step(step, step.shifted, costate, cache, stats)?,
                Some(event) => {
                    let observed = self.trajectory.observe.is_some();
                    let left =
                        event_step(&self.sweep, step, event, costate, cache, stats, observed)?;
                    stats.events += 1;
                    self.trajectory.segment = self.trajectory.segment.saturating_sub(1);
                    // The left limit at the event, in the segment it ends.
                    if let Some((y, z)) = left {
                        let before = Costate {
                            y,
                            z,
                            ..Costate::ZERO
                        };
                        let (model, p) = (self.sweep.model, self.sweep.p);
                        let at = State::before_event(step);
                        self.trajectory.point(model, p, event.t, &at, &before);
                    }
                }
            }
            self.point(step.t, &State::start_of(step));
            end = start;
            self.stats.steps += 1;
        }
        Ok(end)
    }
}

/// The adjoint of the differential state at a time of the backward pass: `λ(t) = dG/dy(t)`,
/// the derivative of the objective with respect to a perturbation of the state at `t` (the
/// discrete adjoint of the state at a step boundary).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdjointPoint<const NY: usize> {
    /// The time: a step boundary, a sample time or an event time.
    pub t: f64,
    /// The mode segment: 0 before the first event, `k` between the `k`-th and the next. At an
    /// event time there are two points: the right limit in the new segment (a point of the
    /// discrete chain) and the left limit in the segment the event ends (what a perturbation
    /// of the state just before the event does, through the event time it moves:
    /// `left_limit.rs`); the adjoint jumps between them (Serban & Recuero 2019, Eq. 44 for
    /// Ex. 5.1). A grazing event (`ḣ = 0`) has no left limit.
    pub segment: usize,
    /// `λ(t)`. Two points at one time in one segment: the jump of a sampled cost (the later
    /// point, in backward order, is the left limit). For an index-1 DAE, `z` follows `y`
    /// through `g = 0` (`δz = −g_z⁻¹ g_y δy`), so `λ = ȳ − g_yᵀ g_z⁻ᵀ z̄` from the adjoints
    /// `ȳ, z̄` of the discrete chain, which carries `z_n` from step to step as an input of its
    /// own (Serban & Recuero 2019, the algebraic part of their Eq. 12 eliminated).
    pub y: [f64; NY],
}

/// The state a point of the trajectory belongs to.
#[derive(Clone, Copy)]
struct State<'s, const NY: usize, const NZ: usize> {
    mode: usize,
    y: &'s [f64; NY],
    z: &'s [f64; NZ],
    memory: &'s Memory<NY, NZ>,
}

impl<'s, const NY: usize, const NZ: usize> State<'s, NY, NZ> {
    /// The start of a recorded step.
    fn start_of<const S: usize>(step: &'s TapeStep<S, NY, NZ>) -> Self {
        State {
            mode: step.mode,
            y: &step.ys[0],
            z: &step.zs[0],
            memory: &step.memory,
        }
    }

    /// The end of a step to an event, just before the event.
    fn before_event<const S: usize>(step: &'s TapeStep<S, NY, NZ>) -> Self {
        State {
            mode: step.mode,
            y: &step.ys[S - 1],
            z: &step.z_end,
            memory: &step.memory,
        }
    }

    /// The end of a recorded step, or the restart after its event.
    fn end_of<const S: usize>(step: &'s TapeStep<S, NY, NZ>) -> Self {
        match &step.event {
            Some(e) => State {
                mode: e.to,
                y: &e.y,
                z: &e.z,
                memory: &e.memory,
            },
            None => State {
                mode: step.mode,
                y: &step.ys[S - 1],
                z: &step.z_end,
                memory: &step.memory,
            },
        }
    }
}

/// Reports the adjoint as the backward pass goes (nothing is computed without an observer).
struct Trajectory<'o, O> {
    observe: Option<&'o mut O>,
    /// The segment of the current point.
    segment: usize,
}

impl<O> Trajectory<'_, O> {
    /// Reports `λ` at `t` from `costate`, the adjoint of `at` ([`AdjointPoint::y`]).
    fn point<M, const NY: usize, const NZ: usize, const NP: usize>(
        &mut self,
        model: &M,
        p: &[f64; NP],
        t: f64,
        at: &State<'_, NY, NZ>,
        costate: &Costate<NY, NZ, NP>,
    ) where
        M: AdjointProducts<NY, NZ, NP>,
        O: FnMut(AdjointPoint<NY>),
    {
        if self.observe.is_none() {
            return;
        }
        let mut lambda = costate.y;
        if NZ > 0 {
            let point = Point {
                t,
                y: at.y,
                z: at.z,
                p,
                memory: at.memory,
            };
            // z follows y through g, or in an index-2 mode through the hidden constraint.
            let (cy, cz) = if is_index2::<M, NY, NZ, NP>(at.mode) {
                let mut c = ConditionPartials::ZERO;
                model.hidden_constraint_partials(at.mode, &point, &mut c);
                (c.cy, c.cz)
            } else {
                let mut jac = ModeJacobian::zeroed();
                model.jacobian(at.mode, &point, &mut jac);
                (jac.g_y(), jac.g_z())
            };
            // A singular c_z cannot occur on a consistent state; should it, the point keeps ȳ.
            if let Ok(lu) = DenseLu::factor(cz) {
                let mut mu = costate.z;
                lu.solve_transposed(&mut mu);
                for (c, l) in lambda.iter_mut().enumerate() {
                    *l -= (0..NZ).map(|r| cy[r][c] * mu[r]).sum::<f64>();
                }
            }
        }
        self.emit(t, lambda);
    }

    /// Reports `λ` at `t`.
    fn emit<const NY: usize>(&mut self, t: f64, y: [f64; NY])
    where
        O: FnMut(AdjointPoint<NY>),
    {
        if let Some(observe) = self.observe.as_mut() {
            observe(AdjointPoint {
                t,
                segment: self.segment,
                y,
            });
        }
    }
}

/// Recomputes window `j` of the checkpointed `tape` (the steps from its checkpoint up to the
/// next) by `resume`, which runs the solve again from the checkpoint, recording (module docs of
/// `checkpoint.rs`); counts the recomputed steps. `t0` names the error of a missing checkpoint.
fn recompute<'t, 'o, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    t0: f64,
    tape: &mut Recording<'t, S, NY, NZ>,
    j: usize,
    outputs: &mut HybridOutputs<'o, NY, NZ, NP>,
    stats: &mut AdjointStats,
    resume: &mut impl FnMut(
        &Checkpoint<S, NY, NZ>,
        &mut Recording<'t, S, NY, NZ>,
        &mut HybridOutputs<'o, NY, NZ, NP>,
    ) -> Result<(), SolveError>,
) -> Result<(), SolveError> {
    let Some(checkpoint) = tape.checkpoints.get(j).copied() else {
        return Err(SolveError::Internal {
            t: t0,
            mode: 0,
            what: "missing checkpoint",
        });
    };
    tape.resume(&checkpoint);
    resume(&checkpoint, tape, outputs)?;
    stats.recomputed_steps += tape.next - checkpoint.step;
    if tape.next != tape.stop {
        // The solve resumed from a checkpoint repeats the original; anything else is a bug.
        return Err(SolveError::Internal {
            t: checkpoint.integrator.t(),
            mode: checkpoint.mode,
            what: "recomputation from a checkpoint ended early",
        });
    }
    Ok(())
}

/// Seeds `costate` with the partials of the objective's terminal cost at `t_f`, with the
/// memory of the last mode.
fn terminal_seed<M, const NY: usize, const NZ: usize, const NP: usize>(
    (model, objective): (&M, Objective),
    problem: &HybridProblem<'_, NY, NZ, NP>,
    sol: &HybridSolution<NY, NZ, NP>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut AdjointStats,
) where
    M: AdjointProducts<NY, NZ, NP>,
{
    let at = Point {
        t: sol.t,
        y: &sol.y,
        z: &sol.z,
        p: &problem.p,
        memory: &sol.memory,
    };
    let mut d = ScalarPartials::ZERO;
    objective.terminal_partials(model, &at, &mut d);
    stats.cost_partials += 1;
    add_scalar_seed(&d, costate);
    // A terminal guard stopped the solve at t*(p): φ_t τ, the adjoint of the last segment's
    // start shift τ (the driver's terminal cost).
    if ends_solve::<M, NY, NZ, NP>(sol.mode) {
        costate.t += d.t;
    }
}

/// Samples recorded before step `k` of `steps`: up to the end of the previous step, or up to
/// the restart after the previous step's event (`initial`: those before the first).
fn samples_before<const S: usize, const NY: usize, const NZ: usize>(
    steps: &[TapeStep<S, NY, NZ>],
    k: usize,
    initial: usize,
) -> usize {
    match k.checked_sub(1).and_then(|j| steps.get(j)) {
        Some(previous) => previous
            .event
            .as_ref()
            .map_or(previous.samples, |e| e.samples),
        None => initial,
    }
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
    cache: &mut StageLu<NY, NZ, N, M::Store>,
    stats: &mut AdjointStats,
    with_left_limit: bool,
) -> Result<Option<LeftLimit<NY, NZ>>, SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let Some(info) = M::GUARDS.get(event.guard) else {
        return Err(SolveError::Internal {
            t: event.t,
            mode: step.mode,
            what: "guard index on the tape",
        });
    };
    // The end of the step: its stage values, but in an index-2 mode z from the hidden
    // constraint (`TapeStep::z_end`), which the event and its root condition read.
    let before = Point {
        t: event.t,
        y: &step.ys[S - 1],
        z: &step.z_end,
        p: sweep.p,
        memory: &step.memory,
    };
    // (6, 5)ᵀ the consistent w⁺ and the jump.
    let mut pre = restart_transpose(
        sweep,
        step.mode,
        event,
        info.has_reset,
        &before,
        costate,
        stats,
    )?;
    if is_index2::<M, NY, NZ, NP>(step.mode) {
        // w⁻ from the hidden constraint at (t*, y⁻), τ (`index2.rs`).
        pre_event_transpose(
            sweep.model,
            step.mode,
            &before,
            &mut pre,
            &mut costate.p,
            stats,
        )?;
    }
    let left = with_left_limit
        .then(|| left_limit(sweep, step.mode, event.guard, &before, &pre))
        .flatten();
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
    let stage_seeds = length_transpose(sweep, step, event, &before, pre, &seeds, costate)?;
    // (1)ᵀ the step itself with ∂H/∂p = 0.
    sweep.stages(
        step,
        step.shifted,
        false,
        &stage_seeds,
        costate,
        cache,
        stats,
    )?;
    Ok(left)
}

/// The adjoints `(ȳ, z̄)` of the state just before an event (`left_limit.rs`).
type LeftLimit<const NY: usize, const NZ: usize> = ([f64; NY], [f64; NZ]);

/// Steps (6)ᵀ and (5)ᵀ of `jump.rs` at the event `event` from `mode` (`before`: the end of the
/// event step): folds the adjoint of the consistent `w⁺` in the new mode into the restart's,
/// transposes the jump and restarts `costate` at the end of the event step, with zero state
/// adjoints and the memory accumulators of the segment being left started by the jump.
/// Returns the adjoints of `s⁻, w⁻, τ`.
fn restart_transpose<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
    sweep: &Sweep<'_, M, S, NP>,
    mode: usize,
    event: &TapeEvent<S, NY, NZ>,
    has_reset: bool,
    before: &Point<'_, NY, NZ, NP>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut AdjointStats,
) -> Result<PreEventAdjoint<NY, NZ>, SolveError>
where
    M: AdjointProducts<NY, NZ, NP>,
{
    let model = sweep.model;
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
        p: sweep.p,
        memory: &event.memory,
    };
    if NZ > 0 {
        let w_bar = &costate.z;
        consistent_algebraic_transpose(model, event.to, &after, w_bar, &mut post, &mut costate.p)?;
        stats.jacobian_evals += 1;
        stats.lu_factorizations += 1;
        stats.lu_solves += 1;
    }
    // (5)ᵀ the jump; starts the memory adjoint of the segment being left.
    let mut memory = StateAdjoint::ZERO;
    let guard = event.guard;
    let p_bar = &mut costate.p;
    let pre = jump_transpose(
        model,
        guard,
        has_reset,
        mode,
        before,
        &post,
        &mut memory,
        p_bar,
    )?;
    costate.y = [0.0; NY];
    costate.z = [0.0; NZ];
    costate.t = 0.0;
    costate.memory_y = memory.y;
    costate.memory_z = memory.z;
    Ok(pre)
}

/// Adds the partials of the objective's sampled cost at the samples `range` (states from `samples`, data from the
/// problem) to the costate.
fn sampled_seeds<M, const NY: usize, const NZ: usize, const NP: usize>(
    (model, objective): (&M, Objective),
    problem: &HybridProblem<'_, NY, NZ, NP>,
    samples: &[Sample<NY, NZ, NP>],
    range: core::ops::Range<usize>,
    memory: &Memory<NY, NZ>,
    costate: &mut Costate<NY, NZ, NP>,
    stats: &mut AdjointStats,
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
        objective.sampled_partials(model, &at, datum, &mut d);
        stats.cost_partials += 1;
        add_scalar_seed(&d, costate);
    }
}
