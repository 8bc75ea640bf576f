//! What describes a run of the hybrid solve ([`crate::solve`], the adjoint's forward pass and its
//! recomputation alike): the problem, the options, the step plan, caller-provided output storage
//! and the solution summary. Shared by the driver (`hybrid/`) and the concepts under it
//! (`events/`, `adjoint/`), so it lies below both.
//!
//! Nothing here allocates: samples, the event log and the step log go into slices the caller
//! owns; a full slice ends the solve with [`crate::SolveError::StorageFull`] and keeps
//! everything computed up to that point.

use crate::dense::DensePoint;
use crate::model::{Memory, Objective, Point};
use crate::options::Options;
use crate::stats::Stats;
use crate::tableau::Tableau;

/// One run of the hybrid solve: the model, the tableau, the problem, the options, the step
/// plan and the objective — what [`crate::solve`], [`crate::solve_adjoint`] and [`crate::adjoint_tape_length`]
/// take (and the adjoint's recomputation of a window of its tape).
///
/// ```
/// # use hysens_runtime::*;
/// # fn run<M>(model: &M, problem: &HybridProblem<'_, 1, 0, 1>, log: &[LoggedStep]) {
/// let options = HybridOptions::new(1e-8, 1e-10);
/// let adaptive = HybridRun::new(model, &ESDIRK34, problem, &options);
/// // The steps of an earlier solve's step log replayed, without error control.
/// let replayed = adaptive.with_plan(StepPlan::Replay(log));
/// # }
/// ```
pub struct HybridRun<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize> {
    /// The model.
    pub model: &'a M,
    /// The tableau.
    pub tableau: &'a Tableau<S>,
    /// The problem.
    pub problem: &'a HybridProblem<'a, NY, NZ, NP>,
    /// The options.
    pub options: &'a HybridOptions<NY, NZ>,
    /// The step plan.
    pub plan: StepPlan<'a>,
    /// The cost the solve computes and differentiates (its `cost` and `cost_gradient`, the
    /// adjoint's gradient): the sum of the model's costs ([`Objective::Sum`], the default) or
    /// one of them. It does not change the steps (`model/costs.rs`).
    pub objective: Objective,
}

impl<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>
    HybridRun<'a, M, S, NY, NZ, NP>
{
    /// The run of `problem` with adaptive steps ([`StepPlan::Adaptive`]) and the sum of the
    /// model's costs as its objective ([`Objective::Sum`]).
    pub fn new(
        model: &'a M,
        tableau: &'a Tableau<S>,
        problem: &'a HybridProblem<'a, NY, NZ, NP>,
        options: &'a HybridOptions<NY, NZ>,
    ) -> Self {
        let plan = StepPlan::Adaptive;
        HybridRun {
            model,
            tableau,
            problem,
            options,
            plan,
            objective: Objective::Sum,
        }
    }

    /// The same run with the step plan `plan`.
    pub fn with_plan(self, plan: StepPlan<'a>) -> Self {
        HybridRun { plan, ..self }
    }

    /// The same run with the objective `objective` (an index of
    /// [`crate::HybridModel::COSTS`]: [`crate::cost_index`] finds it by name; one out of range
    /// is a [`crate::SolveError::InvalidArgument`] of the solve).
    pub fn with_objective(self, objective: Objective) -> Self {
        HybridRun { objective, ..self }
    }
}

// By hand: `derive` would require `M: Clone`.
impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize> Clone
    for HybridRun<'_, M, S, NY, NZ, NP>
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, const S: usize, const NY: usize, const NZ: usize, const NP: usize> Copy
    for HybridRun<'_, M, S, NY, NZ, NP>
{
}

/// What to solve: time span, initial values, parameters, sensitivities and sample times.
#[derive(Clone, Copy, Debug)]
pub struct HybridProblem<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Initial time `t0`.
    pub t0: f64,
    /// Final time `t_f ≥ t0` (independent of `p`, as in Serban & Recuero 2019, §2).
    pub tf: f64,
    /// Initial differential state `y0`.
    pub y0: [f64; NY],
    /// Guess of the initial algebraic variables (made consistent with `g = 0` by Newton's
    /// method). If the first mode's `g` reads the memory `z*`, pass consistent values: the
    /// memory of the first mode is `(y0, z0)` with this `z0`.
    pub z0: [f64; NZ],
    /// Parameters (inputs appended).
    pub p: [f64; NP],
    /// `∂y0/∂p`, or `None` to solve without sensitivities. (Sensitivities with respect to
    /// initial states need no set-up with the [`crate::Solver`] builder; at this level, make
    /// the initial state a parameter, `y0 = (p_i, …)`, with a unit column here.)
    pub sensitivities: Option<[[f64; NP]; NY]>,
    /// Output times, non-decreasing, in `[t0, t_f]`. The integrator lands exactly on each one.
    pub sample_times: &'a [f64],
    /// One datum per sample time for the sampled cost `ℓ(t_k, y, z, p, d_k)`; empty only for a
    /// model without a sampled cost ([`crate::HybridModel::HAS_SAMPLED_COST`]: with one, no
    /// data is an error).
    pub sample_data: &'a [f64],
}

/// Settings of a hybrid solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridOptions<const NY: usize, const NZ: usize> {
    /// Settings of the ESDIRK integrator (tolerances, step limits, Newton).
    pub integrator: Options<NY, NZ>,
    /// Maximum number of events; the solve stops at the next one with
    /// [`crate::SolveError::TooManyEvents`] (`zeno: false`, the message names this cap).
    /// Default 10 000.
    pub max_events: usize,
    /// Events closer together than `min_event_separation · max(1, |t|)` count as "vanishing
    /// separation"; three of them in a row are reported as Zeno behaviour
    /// ([`crate::SolveError::TooManyEvents`] with `zeno: true`).
    /// Default `1e-10`.
    pub min_event_separation: f64,
    /// Grazing test: a crossing whose rate the solution does not resolve,
    /// `ḣ² ≤ 2 |ḧ| · grazing_tol · w` (`w` the change a tolerance-sized error of the state makes
    /// in the guard: within the crossing's time uncertainty `w/|ḣ|` the rate changes by its own
    /// size), is reported as [`crate::SolveError::GrazingEvent`]: a near-tangency whose
    /// crossing the tolerances do not decide, a crossing without rate, impacts accumulating
    /// below the tolerances — `dt*/dp` is not meaningful there; so is a crossing whose rate is
    /// zero to round-off. Default `0.1` (a slow but transversal crossing, a heater 0.5 K above a
    /// threshold of 300 K at rtol 1e-3, is an event); 0 keeps only the round-off rule.
    pub grazing_tol: f64,
}

/// Consecutive events with vanishing separation that are reported as Zeno behaviour (the
/// "three" of [`HybridOptions::min_event_separation`]'s docs).
pub(crate) const ZENO_CLOSE_EVENTS: usize = 3;

impl<const NY: usize, const NZ: usize, const NP: usize> HybridProblem<'_, NY, NZ, NP> {
    /// The point the initial-state map reads (`HybridModel::initial_state`): `t0`, the
    /// caller's states and algebraic guess, the parameters, and `memory` (the first mode's,
    /// `(y0, z0)`).
    pub(crate) fn initial_point<'p>(&'p self, memory: &'p Memory<NY, NZ>) -> Point<'p, NY, NZ, NP> {
        Point {
            t: self.t0,
            y: &self.y0,
            z: &self.z0,
            p: &self.p,
            memory,
        }
    }
}

impl<const NY: usize, const NZ: usize> HybridOptions<NY, NZ> {
    /// Uniform scalar tolerances and the defaults documented on each field.
    pub fn new(rtol: f64, atol: f64) -> Self {
        HybridOptions {
            integrator: Options::new(rtol, atol),
            max_events: 10_000,
            min_event_separation: 1e-10,
            grazing_tol: 0.1,
        }
    }

    /// The first setting outside its documented range, named with the rule it breaks
    /// ([`Options::invalid_setting`] for the integrator's); `None` if all are valid.
    pub fn invalid_setting(&self) -> Option<&'static str> {
        let finite_nonneg = |x: f64| x.is_finite() && x >= 0.0;
        self.integrator
            .invalid_setting()
            .or(if !finite_nonneg(self.min_event_separation) {
                Some("min_event_separation (must be finite and ≥ 0)")
            } else if !finite_nonneg(self.grazing_tol) {
                Some("grazing_tol (must be finite and ≥ 0)")
            } else {
                None
            })
    }
}

/// The state at one requested output time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<const NY: usize, const NZ: usize, const NP: usize> {
    /// Sample time.
    pub t: f64,
    /// Mode at the sample (the mode entered, if an event happens exactly at the sample time).
    pub mode: usize,
    /// `y(t)`.
    pub y: [f64; NY],
    /// `z(t)`.
    pub z: [f64; NZ],
    /// `∂y(t)/∂p` (zero without sensitivities).
    pub sy: [[f64; NP]; NY],
    /// `∂z(t)/∂p`.
    pub sz: [[f64; NP]; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> Sample<NY, NZ, NP> {
    /// All zero (to initialize storage).
    pub const ZERO: Self = Sample {
        t: 0.0,
        mode: 0,
        y: [0.0; NY],
        z: [0.0; NZ],
        sy: [[0.0; NP]; NY],
        sz: [[0.0; NP]; NZ],
    };
}

/// One event (mode switch) in the event log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventRecord<const NY: usize, const NP: usize> {
    /// Event time `t_i`.
    pub t: f64,
    /// Guard index.
    pub guard: usize,
    /// Mode left.
    pub from: usize,
    /// Mode entered.
    pub to: usize,
    /// The differential state just before the event, `y(t_i⁻)` (on the guard's zero, to the
    /// event location's round-off).
    pub y_before: [f64; NY],
    /// The differential state just after it, `y(t_i⁺)`: the guard's reset of `y_before` (the
    /// same state for a guard without a reset).
    pub y_after: [f64; NY],
    /// Event-time sensitivity `τ = dt_i/dp` of the discrete solution: the derivative of the
    /// root of the guard on the event step (it converges to the continuous `τ` of Serban &
    /// Recuero 2019, Eq. 6b, as the tolerance goes to zero). Zero without sensitivities.
    pub tau: [f64; NP],
}

impl<const NY: usize, const NP: usize> EventRecord<NY, NP> {
    /// All zero (to initialize storage).
    pub const ZERO: Self = EventRecord {
        t: 0.0,
        guard: 0,
        from: 0,
        to: 0,
        y_before: [0.0; NY],
        y_after: [0.0; NY],
        tau: [0.0; NP],
    };
}

/// How a logged step was sized (for replaying a solve with the step sequence frozen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Size chosen by the step-size controller.
    Free,
    /// Clipped to land exactly on a sample time or the final time.
    Landing,
    /// A trial step in which an event was found; the step actually taken ends at the event
    /// (located on the discrete solution), the logged size is the trial's.
    EventTrial,
}

/// One entry of the step log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoggedStep {
    /// Step size (for [`StepKind::EventTrial`], the trial step size).
    pub h: f64,
    /// How it was sized.
    pub kind: StepKind,
}

impl LoggedStep {
    /// Zero (to initialize storage).
    pub const ZERO: Self = LoggedStep {
        h: 0.0,
        kind: StepKind::Free,
    };
}

/// How step sizes are chosen.
#[derive(Clone, Copy, Debug)]
pub enum StepPlan<'a> {
    /// Adaptive error control.
    Adaptive,
    /// Replay a step log: the same step sizes (landing steps re-land, event trials re-locate
    /// their event), no error control. The forward sensitivities are the exact derivatives of
    /// this frozen map ([`crate::solve`]), so they agree with central differences of replays;
    /// [`crate::solve_adjoint`] transposes the same chain.
    Replay(&'a [LoggedStep]),
    /// Steps of this size without error control (Christensen et al.'s fixed-step mode, five
    /// ESDIRK34 steps per sample), the last before each stop (an event, a sample time, `t_f`)
    /// shortened to land on it. A Newton failure ends the solve: there is no smaller step to
    /// fall back to. The sensitivities are the exact derivatives of these steps, as for
    /// [`StepPlan::Replay`].
    Fixed(f64),
}

/// Caller-provided output storage.
#[derive(Debug)]
pub struct HybridOutputs<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// One entry per sample time (must hold `sample_times.len()` entries).
    pub samples: &'a mut [Sample<NY, NZ, NP>],
    /// Event log (`None`: not recorded).
    pub events: Option<&'a mut [EventRecord<NY, NP>]>,
    /// Step log (`None`: not recorded).
    pub steps: Option<&'a mut [LoggedStep]>,
    /// Dense output: a point at the start of every mode segment and at the end of every
    /// accepted step, read at any time by [`crate::dense_output`] (`None`: not recorded).
    pub dense: Option<&'a mut [DensePoint<NY, NZ, NP>]>,
}

/// Summary of a solve, updated as the solve proceeds, so that after an error it holds the
/// last accepted state and everything computed up to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridSolution<const NY: usize, const NZ: usize, const NP: usize> {
    /// Time reached (`t_f` on success).
    pub t: f64,
    /// Current mode.
    pub mode: usize,
    /// `y(t)`.
    pub y: [f64; NY],
    /// `z(t)`.
    pub z: [f64; NZ],
    /// `∂y(t)/∂p`.
    pub sy: [[f64; NP]; NY],
    /// `∂z(t)/∂p`.
    pub sz: [[f64; NP]; NZ],
    /// `∂t/∂p` of the time reached: zero for the fixed `t_f`, the event-time derivative `τ`
    /// when a terminal guard ended the solve (set at the end of a successful solve with
    /// sensitivities; what a function of the final time, such as a named output, adds
    /// `∂/∂t ·` to its sensitivities).
    pub st: [f64; NP],
    /// Memory of the current mode.
    pub memory: Memory<NY, NZ>,
    /// Objective `G = ∫ L dt + Σ_k ℓ_k + φ(t_f)` of the run's [`HybridRun::objective`] (the
    /// terminal term is added at `t_f`; the
    /// integral and sampled terms as far as computed).
    pub cost: f64,
    /// `dG/dp` (zero without sensitivities).
    pub cost_gradient: [f64; NP],
    /// Samples written.
    pub n_samples: usize,
    /// Events processed (written to the event log, if any).
    pub n_events: usize,
    /// Steps written to the step log.
    pub n_logged_steps: usize,
    /// Points written to the dense output.
    pub n_dense_points: usize,
    /// Solver statistics over all segments.
    pub stats: Stats,
}

impl<const NY: usize, const NZ: usize, const NP: usize> HybridSolution<NY, NZ, NP> {
    /// Empty summary (to initialize storage; [`crate::solve`] resets it).
    pub const ZERO: Self = HybridSolution {
        t: 0.0,
        mode: 0,
        y: [0.0; NY],
        z: [0.0; NZ],
        sy: [[0.0; NP]; NY],
        sz: [[0.0; NP]; NZ],
        st: [0.0; NP],
        memory: Memory::ZERO,
        cost: 0.0,
        cost_gradient: [0.0; NP],
        n_samples: 0,
        n_events: 0,
        n_logged_steps: 0,
        n_dense_points: 0,
        stats: Stats::ZERO,
    };
}
