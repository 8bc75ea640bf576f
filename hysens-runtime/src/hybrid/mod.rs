//! The hybrid solve: ESDIRK integration mode by mode, events located on the discrete solution,
//! resets, consistent re-initialization, forward sensitivities across every switch, costs.
//! This module only orchestrates; each piece is its own module.
//!
//! Per mode segment:
//!
//! 1. The mode (with its memory, `model/adapter.rs`) is integrated by [`Esdirk`] (`step/`);
//!    each step is computed with [`Esdirk::try_step`] (adaptive) or [`Esdirk::evaluate_fixed`]
//!    (replay of a step log) and not yet accepted.
//! 2. Every guard of the mode is checked on the step's dense output (`events/`). Without a
//!    crossing the step is accepted (sensitivities propagated, `fsa/`; cost quadrature added,
//!    `fsa/cost.rs`; samples recorded when the step lands on a sample time, `output.rs`).
//! 3. With a crossing, the earliest root is moved onto the **discrete** solution (`events/`,
//!    "Polishing") and the step to it is accepted, so the state, its sensitivities and the
//!    cost at the event are exact functions of the step, as an adjoint replay needs. (Each
//!    re-take is counted in `Stats::event_retakes`.)
//! 4. With sensitivities, the event step is accepted with `∂H/∂p = 0` plus its H-direction
//!    `Φ_H = ∂Φ/∂H`; the root condition of the guard on the discrete step gives `∂H/∂p` and
//!    `τ = dt*/dp` (`fsa/jump.rs`), which completes the step's sensitivities and its cost
//!    quadrature derivative. Then the event is applied (`events/reset.rs`): Zeno tests, reset,
//!    consistent `z⁺`, new memory, grazing test, `s⁺` (`fsa/jump.rs`).
//! 5. A new segment starts at the event time in the target mode, with the grid shift
//!    `∂t/∂p = τ` carried by its steps until one lands on a fixed time (sample or `t_f`;
//!    `fsa/`, "Step length"); its guards are armed by the flow of the new mode (`events/`,
//!    "Arming"), and a guard that fires at the entry is an event at the same instant, a step
//!    of length zero (`entry.rs`).
//!
//! **Sensitivities are those of the discrete solution.** With the step sequence frozen (the
//! sizes the controller chose, or a replayed [`StepPlan`]), every accepted step is a smooth
//! map of its start point and length, and the chain of step maps, event roots and reset maps
//! is differentiated exactly: the reported sensitivities, `τ` and cost gradient are the
//! derivatives of what the integrator computes (to round-off and the Newton error), so they
//! agree with central differences of [`StepPlan::Replay`] runs at any tolerance. A `Fixed`
//! step keeps its length and moves with the grid shift, a `Landing` step ends at its fixed
//! target (`∂H/∂p = −∂t_n/∂p`), the event step ends at `t*(p)` (`∂H/∂p = τ − ∂t_n/∂p`). The
//! discrete derivatives converge to the continuous ones of Serban & Recuero 2019, Eq. 6, as
//! the tolerance goes to zero. Samples and the terminal cost sit at fixed times (after a
//! landing step), so their sensitivities are the usual fixed-time ones.
//!
//! The initial mode follows [`InitialMode`]; a rule's guard that is on its zero at `t0` is
//! decided by the sign of its rate under the candidate mode's `f` (`setup.rs`); the first
//! segment is entered like any other (`entry.rs`).
//!
//! Nothing allocates; all outputs go into caller storage (`io.rs`), and the summary
//! [`HybridSolution`] is kept up to date so that it holds the last accepted state after an
//! error.

mod dense;
mod entry;
mod gradient;
mod output;
mod record;
mod setup;

use crate::run::{
    EventRecord, HybridOptions, HybridOutputs, HybridProblem, HybridSolution, LoggedStep, Sample,
    StepKind, StepPlan,
};
#[cfg(feature = "std")] // for the builder's owned gradients
pub(crate) use gradient::{adjoint, adjoint_costs};
pub use gradient::{adjoint_tape_length, solve_adjoint};

use crate::adjoint::tape::{NoTape, Recorder};
use crate::adjoint::Checkpoint;
use crate::error::SolveError;
use crate::events::{self, apply_event, Armed, Crossing, Entry, PostEvent, PreEvent, Zeno};
use crate::fsa::jump::PreEventSensitivities;
use crate::fsa::{mapped_problem, Esdirk, ModeIntegrator};
use crate::model::{ends_solve, CostValue, EventTarget, HybridModel, Memory, ModeAdapter};
use crate::model::{ModelSizes, Objective, Point};
use crate::run::HybridRun;
use crate::step::{h_roundoff, StepLength, Stepper, Trial};
use crate::tableau::Tableau;

/// Solves the hybrid model `model` on `[problem.t0, problem.tf]` with `tableau`, optionally
/// with forward sensitivities, writing samples, events and steps into `outputs` and the
/// summary (final state, sensitivities, cost and gradient, statistics) into `solution`.
///
/// All sizes are inferred: `S` from the tableau, `NY, NZ, NP` from the model's
/// [`HybridModel`] implementation and `N, NS` from its [`ModelSizes`].
///
/// On error `solution` holds the last accepted state and everything computed before the
/// error (samples, events and steps written so far are counted in it).
///
/// It runs on the caller's stack and needs up to [`crate::stack_estimate`]`::<S, NY, NZ, NP,
/// N>()` bytes of it (a `#[hybrid_model]`'s `Model::STACK_ESTIMATE` with the default
/// tableau): run it on a thread with that much to spare (the builder's owned
/// [`crate::Solver::solve`] grows the stack itself).
///
/// # Example
///
/// A bouncing ball with sensitivities of the final height to gravity and restitution (what the
/// macro-generated `solve_with_sensitivities` does, with a hand-written model):
///
/// ```
/// use hysens_runtime::*;
///
/// /// y = (height, velocity), p = (g, γ); one mode, one guard "height falls through 0" with the
/// /// reset v⁺ = −γ v⁻; terminal cost φ = height.
/// struct Ball;
/// type P<'a> = Point<'a, 2, 0, 2>;
/// impl HybridModel<2, 0, 2> for Ball {
///     type Store = Inline;
///     const MODES: &'static [ModeInfo] = &[ModeInfo { name: "flight", uses_memory: false, constant_jacobian: true, terminal: false , index2: false}];
///     const GUARDS: &'static [GuardInfo] = &[GuardInfo {
///         name: "impact", from: 0, to: 0, direction: Direction::Falling, has_reset: true,
///         surface: None,
///     }];
///     const STATE_NAMES: [&'static str; 2] = ["h", "v"];
///     const PARAMETER_NAMES: [&'static str; 2] = ["g", "gamma"];
///     const HAS_INTEGRAL_COST: bool = false;
///     fn residual(&self, _: usize, at: &P, f: &mut [f64; 2], _: &mut [f64; 0]) {
///         *f = [at.y[1], -at.p[0]];
///     }
///     fn jacobian(&self, _: usize, _: &P, j: &mut ModeJacobian<2, 0>) { j.fy[0][1] = 1.0; }
///     fn parameter_jacobian(&self, _: usize, _: &P, fp: &mut [[f64; 2]; 2],
///                           _: &mut [[f64; 2]; 0]) { fp[1][0] = -1.0; }
///     fn guard(&self, _: usize, at: &P) -> f64 { at.y[0] }
///     fn guard_partials(&self, _: usize, _: &P, d: &mut ScalarPartials<2, 0, 2>) {
///         d.y[0] = 1.0;
///     }
///     fn reset(&self, _: usize, at: &P, y: &mut [f64; 2]) {
///         *y = [at.y[0], -at.p[1] * at.y[1]];
///     }
///     fn reset_jacobian(&self, _: usize, at: &P, j: &mut ResetJacobian<2, 0, 2>) {
///         j.y[0][0] = 1.0;
///         j.y[1][1] = -at.p[1];
///         j.p[1][1] = -at.y[1];
///     }
///     fn terminal_cost(&self, at: &P) -> f64 { at.y[0] }
///     fn terminal_cost_partials(&self, _: &P, d: &mut ScalarPartials<2, 0, 2>) { d.y[0] = 1.0; }
/// }
/// // N = NY + NZ = 2, NS = NP + NY = 4.
/// impl ModelSizes<2, 4> for Ball {}
///
/// let problem = HybridProblem {
///     t0: 0.0, tf: 1.9, y0: [5.0, -0.1], z0: [], p: [10.0, 0.8],
///     sensitivities: Some([[0.0; 2]; 2]), // ∂y0/∂p
///     sample_times: &[1.0], sample_data: &[],
/// };
/// let mut samples = [Sample::ZERO; 1];
/// let mut events = [EventRecord::ZERO; 8];
/// let mut out = HybridOutputs { samples: &mut samples, events: Some(&mut events), steps: None, dense: None };
/// let mut sol = HybridSolution::ZERO;
/// let options = HybridOptions::new(1e-8, 1e-10);
/// solve(&HybridRun::new(&Ball, &ESDIRK34, &problem, &options), &mut out, &mut sol)?;
/// assert_eq!(sol.n_events, 1);
/// // Impact at t1 = (v0 + √(v0² + 2 g z0))/g; after it h(T) = γw(T − t1) − g(T − t1)²/2 with
/// // w = √(v0² + 2 g z0), so ∂h(T)/∂γ = w (T − t1) = 9.09995…
/// assert!((sol.cost_gradient[1] - 9.099954976126194).abs() < 1e-9);
/// assert!((events[0].t - 0.9900499987500625).abs() < 1e-9);
/// # Ok::<(), SolveError>(())
/// ```
pub fn solve<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    run: &HybridRun<'_, M, S, NY, NZ, NP>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    solve_costs(run, outputs, solution, &mut [])
}

/// [`solve`], also computing each named cost of the model ([`HybridModel::COSTS`]) on its own:
/// `costs[k]` gets the value of cost `k` and, with sensitivities, its gradient, from the same
/// forward pass (the objective's `solution.cost` and `cost_gradient` are computed as by
/// [`solve`]). `costs` holds one entry per cost of the model (more are left as they are), or
/// none (then this is [`solve`]); a shorter slice is a [`SolveError::InvalidArgument`].
///
/// Each cost's terms are the model's term kernels
/// ([`HybridModel::integral_cost_term`], …), evaluated besides the objective's: an integral
/// cost costs its integrand and partials at the stages of every step.
pub fn solve_costs<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    run: &HybridRun<'_, M, S, NY, NZ, NP>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    costs: &mut [CostValue<NP>],
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    const { assert!(N == NY + NZ, "ModelSizes<N, _> must have N = NY + NZ") };
    let fsa = run.problem.sensitivities.is_some();
    // The solve starts from y0 = I(t0, x, p) for a model with an initial-state map.
    let mapped = mapped_problem(run.model, run.problem);
    let run = match &mapped {
        Some(problem) => HybridRun { problem, ..*run },
        None => *run,
    };
    let tape = &mut NoTape;
    self::run::<M, S, NY, NZ, NP, N, _>(&run, outputs, solution, costs, fsa, tape, None)
}

/// The hybrid solve `forward` behind [`solve`] and [`crate::solve_adjoint`]: with forward
/// sensitivities if `fsa`, reporting every accepted step to `tape` (`adjoint/tape.rs`); from
/// the start, or resumed from a checkpoint that `tape` took in an earlier run
/// (`adjoint/checkpoint.rs`).
#[inline(always)]
pub(crate) fn run<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    R,
>(
    forward: &HybridRun<'_, M, S, NY, NZ, NP>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
    costs: &mut [CostValue<NP>],
    fsa: bool,
    tape: &mut R,
    start: Option<&Checkpoint<S, NY, NZ>>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    let HybridRun {
        model,
        tableau,
        problem,
        options,
        plan,
        objective,
    } = *forward;
    *solution = HybridSolution::ZERO;
    solution.t = problem.t0;
    solution.y = problem.y0;
    solution.z = problem.z0;
    costs.fill(CostValue::ZERO);
    let mut d = Driver {
        model,
        tableau,
        problem,
        options,
        plan,
        plan_index: 0,
        next_sample: 0,
        zeno: Zeno::new(),
        instant: entry::Instant::new(),
        fsa,
        tape,
        objective,
        costs,
    };
    d.run::<N>(start, outputs, solution)
}

/// Where a segment ended.
enum SegmentEnd<const NY: usize, const NZ: usize, const NP: usize> {
    Final,
    /// The tape stopped the solve (a recomputed window is complete).
    Paused,
    Event {
        to: usize,
        post: PostEvent<NY, NZ, NP>,
    },
}

/// Where a mode segment starts: its mode, state and sensitivities (with the grid shift of its
/// start time), its memory with their sensitivities, and how its mode is entered.
struct SegmentStart<const NY: usize, const NZ: usize, const NP: usize> {
    mode: usize,
    t: f64,
    y: [f64; NY],
    z: [f64; NZ],
    sy: [[f64; NP]; NY],
    /// Grid shift `∂t/∂p` of the start time (`τ` of the event that started the segment).
    st: [f64; NP],
    memory: Memory<NY, NZ>,
    memory_sy: [[f64; NP]; NY],
    memory_sz: [[f64; NP]; NZ],
    entry: Entry<NY, NZ>,
}

/// The state of one solve across its mode segments.
struct Driver<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R> {
    model: &'a M,
    tableau: &'a Tableau<S>,
    problem: &'a HybridProblem<'a, NY, NZ, NP>,
    options: &'a HybridOptions<NY, NZ>,
    plan: StepPlan<'a>,
    plan_index: usize,
    next_sample: usize,
    zeno: Zeno,
    /// The modes and states entered at the current instant (`entry.rs`, "No progress").
    instant: entry::Instant<NY>,
    fsa: bool,
    /// Where accepted steps are recorded for the adjoint ([`NoTape`]: nowhere).
    tape: &'a mut R,
    /// What `cost` and `cost_gradient` of the solution are.
    objective: Objective,
    /// Each named cost on its own (`solve_costs`; empty: not computed).
    costs: &'a mut [CostValue<NP>],
}

impl<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize, R>
    Driver<'a, M, S, NY, NZ, NP, R>
where
    M: HybridModel<NY, NZ, NP>,
    R: Recorder<S, NY, NZ>,
{
    fn invalid(&self, t: f64, mode: usize, what: &'static str) -> SolveError {
        SolveError::InvalidArgument { t, mode, what }
    }

    /// The whole solve (or its rest from `start`): segment after segment, then the terminal
    /// cost.
    fn run<const N: usize>(
        &mut self,
        mut start: Option<&Checkpoint<S, NY, NZ>>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        self.validate()?;
        let pr = self.problem;
        let mode = match start {
            Some(checkpoint) => self.resume(checkpoint, sol),
            None => self.initial_mode()?,
        };
        let sy = pr.sensitivities.unwrap_or([[0.0; NP]; NY]);
        let mut segment = SegmentStart {
            mode,
            t: pr.t0,
            y: pr.y0,
            z: pr.z0,
            sy,
            st: [0.0; NP],
            memory: start.map_or(Memory { y: pr.y0, z: pr.z0 }, |c| c.memory),
            // Memory sensitivities of the first mode: s* = ∂y0/∂p; w* = 0 because z* is the
            // caller's (constant) z0 (HybridProblem::z0).
            memory_sy: sy,
            memory_sz: [[0.0; NP]; NZ],
            entry: Entry::Start,
        };
        sol.mode = mode;
        sol.memory = segment.memory;
        // The integral cost accumulated by the integrators for its error test
        // (`Options::cost_error_test`), carried from segment to segment.
        let mut quadrature = 0.0;
        loop {
            let resumed = start.take();
            match self.mode_segment::<N>(&segment, resumed, &mut quadrature, outputs, sol)? {
                SegmentEnd::Final => break,
                SegmentEnd::Paused => return Ok(()),
                SegmentEnd::Event { to, post } => {
                    segment = SegmentStart {
                        mode: to,
                        t: sol.t,
                        y: post.y,
                        z: post.z,
                        sy: post.sy,
                        st: post.tau,
                        memory: post.memory,
                        memory_sy: post.memory_sy,
                        memory_sz: post.memory_sz,
                        entry: Entry::Event(post.after),
                    };
                    sol.mode = to;
                    sol.y = post.y;
                    sol.z = post.z;
                    sol.sy = post.sy;
                    sol.memory = post.memory;
                }
            }
        }
        // ∂t_f/∂p: zero for the fixed t_f, τ for the time a terminal guard stopped at.
        let end_shift = match ends_solve::<M, NY, NZ, NP>(segment.mode) {
            true => segment.st,
            false => [0.0; NP],
        };
        sol.st = end_shift;
        self.terminal_cost(&segment.memory_sy, &segment.memory_sz, &end_shift, sol)
    }

    /// The integrator of the mode segment that starts at `start` (restored from `checkpoint` if
    /// the solve resumes there), run through [`Self::segment`]; adds its statistics and carries
    /// the integral cost's `quadrature` for its error test.
    fn mode_segment<const N: usize>(
        &mut self,
        start: &SegmentStart<NY, NZ, NP>,
        checkpoint: Option<&Checkpoint<S, NY, NZ>>,
        quadrature: &mut f64,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let SegmentStart { mode, t, y, z, .. } = *start;
        let (memory_sy, memory_sz) = (start.memory_sy, start.memory_sz);
        let adapter = ModeAdapter::new(self.model, mode, start.memory, memory_sy, memory_sz);
        let (tableau, options, p) = (self.tableau, self.options.integrator, self.problem.p);
        let mut it = match checkpoint {
            Some(c) => Stepper::restore(&adapter, tableau, mode, p, options, &c.integrator)?.into(),
            None => {
                let mut it = Esdirk::<_, S, NY, NZ, NP, N>::new(
                    &adapter, tableau, mode, p, t, y, z, options,
                )?;
                it.set_quadrature(*quadrature);
                it
            }
        };
        let resumed = checkpoint.map(|c| (c.armed, c.entry_event));
        let entry = &start.entry;
        let r = if self.fsa {
            it.enable_sensitivities_at(start.sy, start.st)
                .and_then(|()| self.segment(&mut it, &adapter, entry, resumed, outputs, sol))
        } else {
            self.segment(&mut it, &adapter, entry, resumed, outputs, sol)
        };
        sol.stats.add(it.stats());
        *quadrature = it.quadrature();
        r
    }

    /// Integrates one mode segment, entered as `entry`, until `t_f` or the next event;
    /// `resumed`: the armed guards and the pending event at the entry of a segment resumed
    /// from a checkpoint (`None`: a new segment starts).
    fn segment<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        entry: &Entry<NY, NZ>,
        resumed: Option<(Armed, Option<usize>)>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let pr = self.problem;
        let (mut armed, entry_event) = match resumed {
            Some(resumed) => resumed,
            None => {
                Self::sync(it, sol);
                Self::note_projected_entry(it, adapter, outputs, sol);
                self.record_dense(it, adapter, None, outputs, sol)?;
                self.instant.enter(it.t(), adapter.mode(), it.y());
                let (mut armed, firing) = self.arm(it, adapter, entry)?;
                if firing.is_none() && armed.any_undecided::<M, NY, NZ, NP>(adapter.mode()) {
                    armed = self.decide_on_first_step(it, adapter, armed, entry)?;
                }
                // Samples at the entry time are recorded in the mode the instant ends in.
                if firing.is_none() {
                    self.record_samples(it, adapter, outputs, sol)?;
                }
                self.tape
                    .segment_start(sol.n_samples, it.y(), it.z(), adapter.memory());
                (armed, firing)
            }
        };
        if let Some(guard) = entry_event {
            if R::RECORDS && !self.before_step(it, adapter, &armed, Some(guard), sol) {
                return Ok(SegmentEnd::Paused);
            }
            return self.entry_event(it, adapter, guard, outputs, sol);
        }
        if ends_solve::<M, NY, NZ, NP>(adapter.mode()) {
            // A terminal guard's mode: the solve ends at its entry (`ModeInfo::terminal`).
            return Ok(SegmentEnd::Final);
        }
        while it.t() < pr.tf {
            if R::RECORDS && !self.before_step(it, adapter, &armed, None, sol) {
                return Ok(SegmentEnd::Paused);
            }
            let stop = pr
                .sample_times
                .get(self.next_sample)
                .copied()
                .unwrap_or(pr.tf)
                .min(pr.tf);
            // 1. Compute (not accept) the next step.
            let (trial, adaptive) = self.next_trial(it, adapter.mode(), stop)?;
            // 2. Guards on the dense output.
            let detection = events::detect(it, adapter, &pr.p, &armed, &trial)?;
            if let (true, Some(theta)) = (adaptive, detection.unresolved) {
                // A guard varies too fast in the step to rule out a crossing before the first
                // one found: a shorter step.
                if detection.crossing.is_none_or(|cr| theta < cr.theta) {
                    it.limit_next_step(0.25 * trial.h);
                    sol.stats.guard_step_cuts += 1;
                    continue;
                }
            }
            let Some(cr) = detection.crossing else {
                self.accept_step(it, adapter, &trial, adaptive, outputs, sol)?;
                armed = detection.armed;
                continue;
            };
            // 3.–5. The step to the event, and the event.
            return self.event_step(it, adapter, &trial, &cr, outputs, sol);
        }
        Ok(SegmentEnd::Final)
    }

    /// Computes (does not accept) the next step towards `stop`: adaptive, or the next entry of
    /// the replayed step plan, or a landing within round-off of `stop` (`evaluate_roundoff`).
    /// Returns the step and whether it was adaptive.
    #[inline]
    fn next_trial<const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, '_, M, S, NY, NZ, NP, N>,
        mode: usize,
        stop: f64,
    ) -> Result<(Trial, bool), SolveError> {
        let t = it.t();
        let remaining = stop - t;
        let pr = self.problem;
        let h = match self.plan {
            StepPlan::Adaptive if remaining > h_roundoff(stop) => {
                return Ok((it.try_step_within(stop, pr.tf)?, true));
            }
            // A stop within round-off ahead (an event a few ulps before a sample time or
            // t_f): an adaptive step of this size would shrink the next steps to round-off.
            StepPlan::Adaptive => remaining,
            StepPlan::Replay(steps) => {
                let Some(entry) = steps.get(self.plan_index) else {
                    return Err(self.invalid(t, mode, "step plan exhausted"));
                };
                self.plan_index += 1;
                match entry.kind {
                    StepKind::Landing => remaining,
                    StepKind::Free | StepKind::EventTrial => entry.h.min(remaining),
                }
            }
            // `min` would turn a NaN step into `remaining`: refuse it here.
            StepPlan::Fixed(h) if !(h > 0.0 && h.is_finite()) => {
                return Err(self.invalid(t, mode, "fixed step size"));
            }
            StepPlan::Fixed(h) => h.min(remaining),
        };
        let landing = h >= remaining || t + h >= stop;
        let h = if landing { remaining } else { h };
        let error = if landing && h <= h_roundoff(stop) {
            it.evaluate_roundoff(h)?
        } else {
            it.evaluate_fixed(h)?
        };
        let trial = Trial {
            h,
            error,
            landing,
            t_end: if landing { stop } else { t + h },
        };
        Ok((trial, false))
    }

    /// Accepts a step without an event, logs it and records the samples it lands on.
    #[inline]
    fn accept_step<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        trial: &Trial,
        adaptive: bool,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let tn = it.t();
        if adaptive {
            it.commit(trial, &mut |_| {})?;
        } else {
            let length = if trial.landing {
                StepLength::Landing
            } else {
                StepLength::Fixed
            };
            it.commit_fixed(trial.h, trial.t_end, length, &mut |_| {})?;
        }
        it.project_onto_hidden_constraint()?;
        self.after_step(it, adapter, tn, trial.h, sol);
        self.record_dense(it, adapter, Some((tn, trial.h)), outputs, sol)?;
        let kind = if trial.landing {
            StepKind::Landing
        } else {
            StepKind::Free
        };
        let entry = LoggedStep { h: trial.h, kind };
        self.log_step(entry, it.t(), adapter.mode(), outputs, sol)?;
        if trial.landing {
            self.record_samples(it, adapter, outputs, sol)?;
        }
        if R::RECORDS {
            self.record_step(it, adapter, tn, trial, sol.n_samples)?;
        }
        Ok(())
    }

    /// The step to the event found in `trial` at `cr`: moves the root onto the discrete
    /// solution, accepts the step to it, completes its sensitivities with `τ` and applies the
    /// event.
    #[inline]
    fn event_step<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        trial: &Trial,
        cr: &Crossing,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        // 3. Move the root onto the discrete solution and accept the step to it.
        let tn = it.t();
        let (h_ev, retakes) = events::polish(it, adapter, &self.problem.p, trial, cr)?;
        sol.stats.event_retakes += retakes;
        // A root at the end of a landing step keeps the exact landing time.
        let t_ev = if h_ev == trial.h {
            trial.t_end
        } else {
            tn + h_ev
        };
        it.commit_fixed(h_ev, t_ev, StepLength::Event, &mut |_| {})?;
        let logged = LoggedStep {
            h: trial.h,
            kind: StepKind::EventTrial,
        };
        self.finish_event_step(
            it,
            adapter,
            cr.guard,
            Some(cr),
            tn,
            h_ev,
            Some(logged),
            outputs,
            sol,
        )
    }

    /// The rest of a step to an event of `guard`, just accepted as [`StepLength::Event`] (from
    /// `tn`, of length `h`; zero for an event at a mode's entry, `entry.rs`): `τ` from the
    /// root condition completes its sensitivities and cost quadrature, the step is logged
    /// (`logged`) and recorded, and the event is applied (with the grazing test on the bracket
    /// of `crossing`, if the event was located in a step).
    #[allow(clippy::too_many_arguments)]
    fn finish_event_step<'m, const N: usize>(
        &mut self,
        it: &mut ModeIntegrator<'_, 'm, M, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'m, M, NY, NZ, NP>,
        guard: usize,
        crossing: Option<&Crossing>,
        tn: f64,
        h: f64,
        logged: Option<LoggedStep>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        // 4. τ from the root condition on the discrete step; completes the step's
        // sensitivities before its cost quadrature is differentiated.
        let tau = if self.fsa {
            it.event_time_sensitivity(guard)?
        } else {
            [0.0; NP]
        };
        it.project_onto_hidden_constraint()?;
        self.after_step(it, adapter, tn, h, sol);
        if h > 0.0 {
            self.record_dense(it, adapter, Some((tn, h)), outputs, sol)?;
        }
        if let Some(entry) = logged {
            self.log_step(entry, it.t(), adapter.mode(), outputs, sol)?;
        }
        // 5. Apply the event.
        let (msy, msz) = adapter.memory_sensitivities();
        let (sy, sz) = it.sensitivities();
        let pre = PreEvent {
            t: it.t(),
            mode: adapter.mode(),
            y: it.y(),
            z: it.z(),
            p: &self.problem.p,
            memory: adapter.memory(),
            sens: self.fsa.then_some(PreEventSensitivities {
                sy,
                sz,
                tau: &tau,
                memory_sy: msy,
                memory_sz: msz,
            }),
        };
        let end = self.event(guard, crossing, &pre, outputs, sol)?;
        if let (true, SegmentEnd::Event { to, .. }) = (R::RECORDS, &end) {
            self.record_event_step(it, adapter, guard, *to, tn, h, sol.n_samples)?;
        }
        Ok(end)
    }

    /// Applies the event of `guard` at `pre` (after the step to it was accepted, or at the
    /// start of the solve) (`events/reset.rs`), with the Zeno and grazing tests (the latter on
    /// the bracket of `crossing`) and the event log.
    fn event(
        &mut self,
        guard: usize,
        crossing: Option<&Crossing>,
        pre: &PreEvent<'_, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let (t, mode) = (pre.t, pre.mode);
        let Some(info) = M::GUARDS.get(guard) else {
            return Err(SolveError::Internal {
                t,
                mode,
                what: "guard index of an event",
            });
        };
        self.zeno.check(t, mode, sol.stats.events, self.options)?;
        let post = apply_event(self.model, guard, info.has_reset, pre)?;
        let at = Point {
            t,
            y: pre.y,
            z: pre.z,
            p: pre.p,
            memory: pre.memory,
        };
        let options = self.options;
        if crossing.is_some_and(|cr| {
            events::is_grazing(self.model, guard, mode, &at, options, post.hdot, cr.hddot)
        }) {
            return Err(SolveError::GrazingEvent { t, mode, guard });
        }
        // The mode entered: the guard's target, or the one a switching surface chooses.
        let to = match self.model.event_target(guard, &at) {
            EventTarget::Mode(to) if to < M::MODES.len() => to,
            EventTarget::Mode(_) => {
                return Err(self.invalid(
                    t,
                    mode,
                    "event target (the model's `event_target` names no mode)",
                ))
            }
            EventTarget::RepulsiveSurface => {
                return Err(SolveError::RepulsiveSurface { t, mode, guard });
            }
            EventTarget::SurfaceIntersection => {
                return Err(SolveError::SurfaceIntersection { t, mode, guard });
            }
        };
        sol.stats.events += 1;
        self.zeno.record(t);
        let record = EventRecord {
            t,
            guard,
            from: mode,
            to,
            y_before: *pre.y,
            y_after: post.y,
            tau: post.tau,
        };
        self.log_event(record, outputs, sol)?;
        Ok(SegmentEnd::Event { to, post })
    }
}
