//! The hybrid solve: ESDIRK integration mode by mode, events located on the discrete solution,
//! resets, consistent re-initialization, forward sensitivities across every switch, costs.
//!
//! Per mode segment (ARCHITECTURE.md, "Events" and "FSA"):
//!
//! 1. The mode (with its memory, `mode_adapter.rs`) is integrated by [`Esdirk`]; each step is
//!    computed with [`Esdirk::try_step`] (adaptive) or [`Esdirk::evaluate_fixed`] (replay of a
//!    step log) and not yet accepted.
//! 2. Every guard of the mode is checked on the step's dense output (`events.rs`). Without a
//!    crossing the step is accepted (sensitivities propagated by IND, cost quadrature added,
//!    samples recorded when the step lands on a sample time).
//! 3. With a crossing, the earliest root `t_d` on the dense output (lowest guard index on
//!    ties) starts a secant iteration on the **discrete** solution: the step is re-taken from
//!    `t_n` with size `H` and the guard evaluated at its end, until `H` is at round-off. The
//!    step `t_n → t_n + H` is accepted, so the state, its sensitivities and the cost at the
//!    event are exact functions of the step, as an adjoint replay needs. (Each re-take is
//!    counted in `Stats::event_retakes`.)
//! 4. With sensitivities, the event step is accepted with `∂H/∂p = 0` plus its H-direction
//!    `Φ_H = ∂Φ/∂H`; the root condition of the guard on the discrete step gives `∂H/∂p` and
//!    `τ = dt*/dp` (`jump.rs`, [`crate::jump::event_step_length_derivative`]), which completes
//!    the step's sensitivities and its cost quadrature derivative. Then the event is applied
//!    (`jump.rs`): reset, consistent `z⁺`, new memory, `s⁺`; the grazing test
//!    (`HybridOptions::grazing_tol`) and the Zeno tests (`max_events`, vanishing separation) run
//!    here and end the solve with an error rather than loop.
//! 5. A new segment starts at the event time in the target mode, with the grid shift
//!    `∂t/∂p = τ` carried by its steps until one lands on a fixed time (sample or `t_f`;
//!    `esdirk_fsa.rs`, "Step length"); its guards are armed with the look-ahead rule of
//!    `events.rs`, so a guard that is zero at the restart does not re-fire.
//!
//! **Sensitivities are those of the discrete solution.** With the step sequence frozen (the
//! sizes the controller chose, or a replayed [`StepPlan`]), every accepted step is a smooth
//! map of its start point and length, and the chain of step maps, event roots and reset maps
//! is differentiated exactly: the reported sensitivities, `τ` and cost gradient are the
//! derivatives of what the integrator computes (to round-off and the Newton error), so they
//! agree with central differences of [`StepPlan::Replay`] runs at any tolerance. A `Fixed`
//! step keeps its length and moves with the grid shift, a `Landing` step ends at its fixed
//! target (`∂H/∂p = −∂t_n/∂p`), the event step ends at `t*(p)` (`∂H/∂p = τ − ∂t_n/∂p`). The
//! discrete derivatives converge to the continuous ones of note 000 §2.2 as the tolerance
//! goes to zero. Samples and the terminal cost sit at fixed times (after a landing step), so
//! their sensitivities are the usual fixed-time ones.
//!
//! The initial mode follows [`InitialMode`]; a guard that is zero (within its tolerance band)
//! at `t0` is decided by the sign of its time derivative under the candidate mode's `f`
//! (look-ahead, never fired).
//!
//! Nothing allocates; all outputs go into caller storage (`hybrid_io.rs`), and the summary
//! [`HybridSolution`] is kept up to date so that it holds the last accepted state after an
//! error.
#![allow(clippy::needless_range_loop)]

use crate::cost::StageSensitivities;
use crate::cost::{add_integral_step, add_scalar_gradient};
use crate::dense::{hermite, lerp};
use crate::error::SolveError;
use crate::esdirk::{Esdirk, StepLength, Trial};
use crate::events::{fires, illinois, sign, Armed, MAX_GUARDS, SCAN};
use crate::hybrid_io::{
    EventRecord, HybridOptions, HybridOutputs, HybridProblem, HybridSolution, LoggedStep, Sample,
    StepKind, StepPlan, ZENO_CLOSE_EVENTS,
};
use crate::hybrid_model::{HybridModel, InitialMode, Memory, ModelSizes, Point, ScalarPartials};
use crate::jump::{
    algebraic_rate, apply_event, event_step_length_derivative, EventStep, PostEvent, PreEvent,
};
use crate::mode_adapter::ModeAdapter;
use crate::model::SmoothMode;
use crate::tableau::Tableau;

/// Maximum secant iterations when moving an event onto the discrete solution.
const MAX_POLISH: usize = 12;

/// Round-off scale of times near `t`.
fn t_eps(t: f64) -> f64 {
    4.0 * f64::EPSILON * t.abs().max(1.0)
}

fn all_finite<const K: usize>(v: &[f64; K]) -> bool {
    v.iter().all(|x| x.is_finite())
}

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
/// # Example
///
/// A bouncing ball with sensitivities of the final height to gravity and restitution (what the
/// macro-generated `solve_with_sensitivities` does, with a hand-written model):
///
/// ```
/// use hysens_runtime::hybrid_model::*;
/// use hysens_runtime::*;
///
/// /// y = (height, velocity), p = (g, γ); one mode, one guard "height falls through 0" with the
/// /// reset v⁺ = −γ v⁻; terminal cost φ = height.
/// struct Ball;
/// type P<'a> = Point<'a, 2, 0, 2>;
/// impl HybridModel<2, 0, 2> for Ball {
///     const MODES: &'static [ModeInfo] = &[ModeInfo { name: "flight", uses_memory: false, constant_jacobian: true }];
///     const GUARDS: &'static [GuardInfo] = &[GuardInfo {
///         name: "impact", from: 0, to: 0, direction: Direction::Falling, has_reset: true,
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
/// let mut out = HybridOutputs { samples: &mut samples, events: Some(&mut events), steps: None };
/// let mut sol = HybridSolution::ZERO;
/// solve(&Ball, &ESDIRK34, &problem, &HybridOptions::new(1e-8, 1e-10), StepPlan::Adaptive,
///       &mut out, &mut sol)?;
/// assert_eq!(sol.n_events, 1);
/// // Impact at t1 = (v0 + √(v0² + 2 g z0))/g; after it h(T) = γw(T − t1) − g(T − t1)²/2 with
/// // w = √(v0² + 2 g z0), so ∂h(T)/∂γ = w (T − t1) = 9.09995…
/// assert!((sol.cost_gradient[1] - 9.099954976126194).abs() < 1e-9);
/// assert!((events[0].t - 0.9900499987500625).abs() < 1e-9);
/// # Ok::<(), SolveError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn solve<
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    tableau: &Tableau<S>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    options: &HybridOptions<NY, NZ>,
    plan: StepPlan<'_>,
    outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
    solution: &mut HybridSolution<NY, NZ, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    const { assert!(N == NY + NZ, "ModelSizes<N, _> must have N = NY + NZ") };
    *solution = HybridSolution::ZERO;
    solution.t = problem.t0;
    solution.y = problem.y0;
    solution.z = problem.z0;
    let mut d = Driver {
        model,
        tableau,
        problem,
        options,
        plan,
        plan_index: 0,
        next_sample: 0,
        last_event_t: f64::NEG_INFINITY,
        close_events: 0,
        fsa: problem.sensitivities.is_some(),
    };
    d.run::<N>(outputs, solution)
}

/// Where a segment ended.
enum SegmentEnd<const NY: usize, const NZ: usize, const NP: usize> {
    Final,
    Event {
        to: usize,
        post: PostEvent<NY, NZ, NP>,
    },
}

/// A located crossing on the dense output.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    guard: usize,
    /// Trial step size and root `θ` on its dense output.
    h: f64,
    theta: f64,
    /// Bracket `[θa, θb]` and guard values there (for the grazing test).
    theta_a: f64,
    theta_b: f64,
    value_a: f64,
    value_b: f64,
}

struct Driver<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize> {
    model: &'a M,
    tableau: &'a Tableau<S>,
    problem: &'a HybridProblem<'a, NY, NZ, NP>,
    options: &'a HybridOptions<NY, NZ>,
    plan: StepPlan<'a>,
    plan_index: usize,
    next_sample: usize,
    last_event_t: f64,
    close_events: usize,
    fsa: bool,
}

impl<'a, M, const S: usize, const NY: usize, const NZ: usize, const NP: usize>
    Driver<'a, M, S, NY, NZ, NP>
where
    M: HybridModel<NY, NZ, NP>,
{
    fn invalid(&self, t: f64, mode: usize, what: &'static str) -> SolveError {
        SolveError::InvalidArgument { t, mode, what }
    }

    fn validate(&self) -> Result<(), SolveError> {
        let pr = self.problem;
        let t0 = pr.t0;
        if !t0.is_finite() || !pr.tf.is_finite() || pr.tf < t0 {
            return Err(self.invalid(t0, 0, "time span"));
        }
        if let Some(what) = self.options.invalid_setting() {
            return Err(self.invalid(t0, 0, what));
        }
        let nonfinite = |what| SolveError::NonFiniteValue {
            t: t0,
            mode: 0,
            what,
        };
        if !all_finite(&pr.p) {
            return Err(nonfinite("parameters"));
        }
        if !all_finite(&pr.y0) {
            return Err(nonfinite("initial y"));
        }
        if !all_finite(&pr.z0) {
            return Err(nonfinite("initial z"));
        }
        if let Some(s0) = &pr.sensitivities {
            if !s0.iter().all(all_finite) {
                return Err(nonfinite("initial sensitivities"));
            }
        }
        let mut prev = t0;
        for &ts in pr.sample_times {
            if !(ts >= prev && ts <= pr.tf) {
                return Err(self.invalid(t0, 0, "sample times (must be sorted, in [t0, tf])"));
            }
            prev = ts;
        }
        if !pr.sample_data.is_empty() && pr.sample_data.len() != pr.sample_times.len() {
            return Err(self.invalid(t0, 0, "sample data (one datum per sample time)"));
        }
        if M::GUARDS.len() > MAX_GUARDS {
            return Err(self.invalid(t0, 0, "number of guards (at most 128)"));
        }
        if M::MODES.is_empty()
            || M::GUARDS
                .iter()
                .any(|g| g.from >= M::MODES.len() || g.to >= M::MODES.len())
        {
            return Err(self.invalid(t0, 0, "mode table"));
        }
        Ok(())
    }

    /// The initial mode (module docs).
    fn initial_mode(&self) -> Result<usize, SolveError> {
        let pr = self.problem;
        let memory = Memory { y: pr.y0, z: pr.z0 };
        let at = Point {
            t: pr.t0,
            y: &pr.y0,
            z: &pr.z0,
            p: &pr.p,
            memory: &memory,
        };
        let mode = match M::INITIAL_MODE {
            InitialMode::Fixed(m) => Some(m),
            InitialMode::ByGuardSigns { rules, fallback } => {
                let mut chosen = None;
                for &(g, positive, m) in rules {
                    if g >= M::GUARDS.len() || m >= M::MODES.len() {
                        return Err(self.invalid(pr.t0, 0, "initial-mode rule"));
                    }
                    let s = self.arming_sign(m, g, &at)?;
                    if (positive && s > 0.0) || (!positive && s < 0.0) {
                        chosen = Some(m);
                        break;
                    }
                }
                chosen.or(fallback)
            }
        };
        match mode {
            Some(m) if m < M::MODES.len() => Ok(m),
            _ => Err(self.invalid(pr.t0, 0, "initial mode")),
        }
    }

    /// The sign of guard `g` at `at` for arming (module docs of `events.rs`): its value's sign
    /// outside the tolerance band, else the sign of `ḣ` under mode `mode`.
    fn arming_sign(
        &self,
        mode: usize,
        g: usize,
        at: &Point<'_, NY, NZ, NP>,
    ) -> Result<f64, SolveError> {
        let v = self.model.guard(g, at);
        if !v.is_finite() {
            return Err(SolveError::NonFiniteValue {
                t: at.t,
                mode,
                what: "guard",
            });
        }
        let mut d = ScalarPartials::ZERO;
        self.model.guard_partials(g, at, &mut d);
        let o = &self.options.integrator;
        let mut band = 0.0;
        for i in 0..NY {
            band += d.y[i].abs() * (o.atol_y[i] + o.rtol_y[i] * at.y[i].abs());
        }
        for j in 0..NZ {
            band += d.z[j].abs() * (o.atol_z[j] + o.rtol_z[j] * at.z[j].abs());
        }
        if v.abs() > band {
            return Ok(sign(v));
        }
        let mut ydot = [0.0; NY];
        let mut gv = [0.0; NZ];
        self.model.residual(mode, at, &mut ydot, &mut gv);
        // ż is only needed if the guard reads z; a failure to compute it leaves the guard
        // undecided rather than failing the solve.
        let zdot = if NZ > 0 && d.z.iter().any(|x| *x != 0.0) {
            algebraic_rate(self.model, mode, at, &ydot).unwrap_or([0.0; NZ])
        } else {
            [0.0; NZ]
        };
        let mut hdot = d.t;
        for i in 0..NY {
            hdot += d.y[i] * ydot[i];
        }
        for j in 0..NZ {
            hdot += d.z[j] * zdot[j];
        }
        Ok(if hdot.is_finite() { sign(hdot) } else { 0.0 })
    }

    fn run<const N: usize>(
        &mut self,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        self.validate()?;
        let pr = self.problem;
        let mut mode = self.initial_mode()?;
        sol.mode = mode;
        let mut t = pr.t0;
        let mut y = pr.y0;
        let mut z = pr.z0;
        let mut sy = pr.sensitivities.unwrap_or([[0.0; NP]; NY]);
        // Grid shift ∂t/∂p of the segment's start time (τ of the event that started it).
        let mut st = [0.0; NP];
        let mut memory = Memory { y: pr.y0, z: pr.z0 };
        // Memory sensitivities of the first mode: s* = ∂y0/∂p; w* = 0 because z* is the
        // caller's (constant) z0 (hybrid_io.rs, HybridProblem::z0).
        let mut memory_sy = sy;
        let mut memory_sz = [[0.0; NP]; NZ];
        sol.memory = memory;
        loop {
            let adapter = ModeAdapter::new(self.model, mode, memory, memory_sy, memory_sz);
            let end = {
                let mut it = Esdirk::<_, S, NY, NZ, NP, N>::new(
                    &adapter,
                    self.tableau,
                    mode,
                    pr.p,
                    t,
                    y,
                    z,
                    self.options.integrator,
                )?;
                let r = if self.fsa {
                    it.enable_sensitivities_at(sy, st)
                        .and_then(|()| self.segment(&mut it, &adapter, outputs, sol))
                } else {
                    self.segment(&mut it, &adapter, outputs, sol)
                };
                sol.stats.add(it.stats());
                r?
            };
            match end {
                SegmentEnd::Final => break,
                SegmentEnd::Event { to, post } => {
                    mode = to;
                    t = sol.t;
                    y = post.y;
                    z = post.z;
                    sy = post.sy;
                    st = post.tau;
                    memory = post.memory;
                    memory_sy = post.memory_sy;
                    memory_sz = post.memory_sz;
                    sol.mode = mode;
                    sol.y = y;
                    sol.z = z;
                    sol.sy = sy;
                    sol.memory = memory;
                }
            }
        }
        // Terminal cost φ(t_f) (note 000 §3.5).
        let adapter = ModeAdapter::new(self.model, sol.mode, sol.memory, memory_sy, memory_sz);
        let at = adapter.point(sol.t, &sol.y, &sol.z, &pr.p);
        sol.cost += self.model.terminal_cost(&at);
        if self.fsa {
            let mut d = ScalarPartials::ZERO;
            self.model.terminal_cost_partials(&at, &mut d);
            add_scalar_gradient(
                &d,
                &sol.sy,
                &sol.sz,
                &memory_sy,
                &memory_sz,
                1.0,
                &mut sol.cost_gradient,
            );
        }
        if !sol.cost.is_finite() || !all_finite(&sol.cost_gradient) {
            return Err(SolveError::NonFiniteValue {
                t: sol.t,
                mode: sol.mode,
                what: "cost",
            });
        }
        Ok(())
    }

    /// Copies the integrator state into the summary.
    fn sync<Md: SmoothMode<NY, NZ, NP>, const N: usize>(
        it: &Esdirk<'_, Md, S, NY, NZ, NP, N>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) {
        sol.t = it.t();
        sol.y = *it.y();
        sol.z = *it.z();
        let (sy, sz) = it.sensitivities();
        sol.sy = *sy;
        sol.sz = *sz;
    }

    /// Records all samples due at the current time.
    fn record_samples<const N: usize>(
        &mut self,
        it: &Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        let pr = self.problem;
        let t = it.t();
        while let Some(&ts) = pr.sample_times.get(self.next_sample) {
            if ts > t {
                break;
            }
            let Some(slot) = outputs.samples.get_mut(sol.n_samples) else {
                return Err(SolveError::StorageFull {
                    t,
                    mode: adapter.mode(),
                    capacity: outputs.samples.len(),
                });
            };
            let (sy, sz) = it.sensitivities();
            *slot = Sample {
                t,
                mode: adapter.mode(),
                y: *it.y(),
                z: *it.z(),
                sy: *sy,
                sz: *sz,
            };
            sol.n_samples += 1;
            let datum = pr.sample_data.get(self.next_sample).copied().unwrap_or(0.0);
            let at = adapter.point(t, it.y(), it.z(), &pr.p);
            sol.cost += self.model.sampled_cost(&at, datum);
            if self.fsa {
                let mut d = ScalarPartials::ZERO;
                self.model.sampled_cost_partials(&at, datum, &mut d);
                let (msy, msz) = adapter.memory_sensitivities();
                add_scalar_gradient(&d, sy, sz, msy, msz, 1.0, &mut sol.cost_gradient);
            }
            self.next_sample += 1;
        }
        Ok(())
    }

    fn log_step(
        &mut self,
        entry: LoggedStep,
        t: f64,
        mode: usize,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError> {
        if let Some(log) = outputs.steps.as_deref_mut() {
            let Some(slot) = log.get_mut(sol.n_logged_steps) else {
                return Err(SolveError::StorageFull {
                    t,
                    mode,
                    capacity: log.len(),
                });
            };
            *slot = entry;
            sol.n_logged_steps += 1;
        }
        Ok(())
    }

    /// Integrates one mode segment until `t_f` or the next event.
    fn segment<const N: usize>(
        &mut self,
        it: &mut Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let pr = self.problem;
        let p = &pr.p;
        let mode = adapter.mode();
        Self::sync(it, sol);
        // Arm the guards of this mode (events.rs).
        let mut armed = Armed::default();
        {
            let at = adapter.point(it.t(), it.y(), it.z(), p);
            for (g, info) in M::GUARDS.iter().enumerate() {
                if info.from == mode {
                    armed.set(g, self.arming_sign(mode, g, &at)?);
                }
            }
        }
        self.record_samples(it, adapter, outputs, sol)?;
        let mut retakes = 0usize;
        let result = loop {
            let t = it.t();
            if t >= pr.tf {
                break Ok(SegmentEnd::Final);
            }
            let stop = pr
                .sample_times
                .get(self.next_sample)
                .copied()
                .unwrap_or(pr.tf)
                .min(pr.tf);
            // 1. Compute (not accept) the next step.
            let (trial, adaptive) = match self.plan {
                StepPlan::Adaptive => (it.try_step(stop)?, true),
                StepPlan::Replay(steps) => {
                    let Some(entry) = steps.get(self.plan_index) else {
                        break Err(self.invalid(t, mode, "step plan exhausted"));
                    };
                    self.plan_index += 1;
                    let remaining = stop - t;
                    let h = match entry.kind {
                        StepKind::Landing => remaining,
                        StepKind::Free | StepKind::EventTrial => entry.h.min(remaining),
                    };
                    let landing = h >= remaining;
                    let error = it.evaluate_fixed(h)?;
                    let trial = Trial {
                        h,
                        error,
                        landing,
                        t_end: if landing { stop } else { t + h },
                    };
                    (trial, false)
                }
            };
            // 2. Guards on the dense output.
            let (crossing, next_armed) = self.detect(it, adapter, &armed, &trial)?;
            let Some(cr) = crossing else {
                let tn = it.t();
                if adaptive {
                    it.commit(&trial, &mut |_| {})?;
                } else {
                    let length = if trial.landing {
                        StepLength::Landing
                    } else {
                        StepLength::Fixed
                    };
                    it.commit_fixed(trial.h, trial.t_end, length, &mut |_| {})?;
                }
                self.after_step(it, adapter, tn, trial.h, sol);
                armed = next_armed;
                let kind = if trial.landing {
                    StepKind::Landing
                } else {
                    StepKind::Free
                };
                self.log_step(LoggedStep { h: trial.h, kind }, it.t(), mode, outputs, sol)?;
                if trial.landing {
                    self.record_samples(it, adapter, outputs, sol)?;
                }
                continue;
            };
            // 3. Move the root onto the discrete solution and accept the step to it.
            let tn = it.t();
            let (h_ev, n) = self.polish(it, adapter, &trial, &cr)?;
            retakes += n;
            // A root at the end of a landing step keeps the exact landing time.
            let t_ev = if h_ev == trial.h {
                trial.t_end
            } else {
                tn + h_ev
            };
            it.commit_fixed(h_ev, t_ev, StepLength::Event, &mut |_| {})?;
            // 4. τ from the root condition on the discrete step; completes the step's
            // sensitivities before its cost quadrature is differentiated.
            let tau = if self.fsa {
                self.event_time_sensitivity(it, adapter, cr.guard)?
            } else {
                [0.0; NP]
            };
            self.after_step(it, adapter, tn, h_ev, sol);
            self.log_step(
                LoggedStep {
                    h: trial.h,
                    kind: StepKind::EventTrial,
                },
                t_ev,
                mode,
                outputs,
                sol,
            )?;
            // 5. Apply the event.
            break self.event(it, adapter, &cr, &tau, outputs, sol);
        };
        sol.stats.event_retakes += retakes;
        result
    }

    /// Bookkeeping after an accepted step from `tn` of size `h`: summary and cost quadrature.
    fn after_step<const N: usize>(
        &self,
        it: &Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        tn: f64,
        h: f64,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) {
        Self::sync(it, sol);
        let (ys, zs, _) = it.stages();
        let sens = if self.fsa {
            let (sy, sz) = it.stage_sensitivities();
            let (dt, dh) = it.step_time_sensitivities();
            Some(StageSensitivities { sy, sz, dt, dh })
        } else {
            None
        };
        add_integral_step(
            self.model,
            adapter,
            self.tableau,
            tn,
            h,
            &self.problem.p,
            ys,
            zs,
            sens,
            &mut sol.cost,
            &mut sol.cost_gradient,
        );
    }

    /// Guard value on the dense output of the computed (not accepted) step at `θ`.
    fn dense_guard<const N: usize>(
        &self,
        it: &Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        g: usize,
        h: f64,
        theta: f64,
    ) -> f64 {
        let (ys, zs, fs) = it.stages();
        let mut y = [0.0; NY];
        let mut z = [0.0; NZ];
        hermite(theta, h, &ys[0], &ys[S - 1], &fs[0], &fs[S - 1], &mut y);
        lerp(theta, &zs[0], &zs[S - 1], &mut z);
        let at = adapter.point(it.t() + theta * h, &y, &z, &self.problem.p);
        self.model.guard(g, &at)
    }

    /// Crossing detection on the dense output (events.rs); returns the earliest crossing and
    /// the armed signs at the end of the step (used if the step is accepted).
    fn detect<const N: usize>(
        &self,
        it: &Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        armed: &Armed,
        trial: &Trial,
    ) -> Result<(Option<Crossing>, Armed), SolveError> {
        let mode = adapter.mode();
        let h = trial.h;
        let t = it.t();
        let mut next = *armed;
        let mut best: Option<Crossing> = None;
        let xtol = t_eps(t + h) / h;
        for (g, info) in M::GUARDS.iter().enumerate() {
            if info.from != mode {
                continue;
            }
            let (ys, zs, _) = it.stages();
            let v_start = self
                .model
                .guard(g, &adapter.point(t, &ys[0], &zs[0], &self.problem.p));
            let end_at = adapter.point(trial.t_end, &ys[S - 1], &zs[S - 1], &self.problem.p);
            let v_end = self.model.guard(g, &end_at);
            if !v_start.is_finite() || !v_end.is_finite() {
                return Err(SolveError::NonFiniteValue {
                    t,
                    mode,
                    what: "guard",
                });
            }
            let mut cs = armed.get(g);
            if cs == 0.0 {
                // Undecided after a restart: takes the end sign, cannot fire in this step.
                next.set(g, sign(v_end));
                continue;
            }
            let mut prev_theta = 0.0;
            let mut prev_v = if sign(v_start) == cs {
                v_start
            } else {
                cs * f64::MIN_POSITIVE
            };
            let mut found = None;
            for k in 1..=SCAN {
                let theta = k as f64 / SCAN as f64;
                let v = if k == SCAN {
                    v_end
                } else {
                    self.dense_guard(it, adapter, g, h, theta)
                };
                if !v.is_finite() {
                    return Err(SolveError::NonFiniteValue {
                        t,
                        mode,
                        what: "guard on the dense output",
                    });
                }
                if fires(info.direction, cs, v) {
                    found = Some((prev_theta, prev_v, theta, v));
                    break;
                }
                if v != 0.0 {
                    cs = sign(v);
                }
                prev_theta = theta;
                prev_v = v;
            }
            next.set(g, cs);
            let Some((ta, va, tb, vb)) = found else {
                continue;
            };
            let root = illinois(ta, va, tb, vb, xtol, |th| {
                self.dense_guard(it, adapter, g, h, th)
            });
            if best.is_none_or(|b| root < b.theta) {
                best = Some(Crossing {
                    guard: g,
                    h,
                    theta: root,
                    theta_a: ta,
                    theta_b: tb,
                    value_a: va,
                    value_b: vb,
                });
            }
        }
        Ok((best, next))
    }

    /// Secant iteration on `φ(H) = h(step of size H)` started from the dense-output root.
    /// Returns the step size to the event and the number of re-takes; the integrator's stage
    /// storage holds that step.
    fn polish<const N: usize>(
        &self,
        it: &mut Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        trial: &Trial,
        cr: &Crossing,
    ) -> Result<(f64, usize), SolveError> {
        let h = trial.h;
        let t = it.t();
        let g = cr.guard;
        let h_min = t_eps(t);
        // max/min rather than f64::clamp, which panics if h < h_min (tiny landing steps).
        let clamp = |x: f64| x.max(h_min).min(h);
        // Slope of the dense guard at the root (central difference in θ), for the first
        // secant point.
        let dth = 1e-6_f64
            .min(0.5 * cr.theta)
            .min(0.5 * (1.0 - cr.theta))
            .max(1e-12);
        let slope = (self.dense_guard(it, adapter, g, h, cr.theta + dth)
            - self.dense_guard(it, adapter, g, h, cr.theta - dth))
            / (2.0 * dth * h);
        let eval = |it: &mut Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
                    hh: f64|
         -> Result<f64, SolveError> {
            it.evaluate_fixed(hh)?;
            let (ys, zs, _) = it.stages();
            let at = adapter.point(t + hh, &ys[S - 1], &zs[S - 1], &self.problem.p);
            let v = self.model.guard(g, &at);
            if !v.is_finite() {
                return Err(SolveError::NonFiniteValue {
                    t,
                    mode: adapter.mode(),
                    what: "guard",
                });
            }
            Ok(v)
        };
        let mut n = 1;
        let mut ha = clamp(cr.theta * h);
        let mut fa = eval(it, ha)?;
        if fa == 0.0 {
            return Ok((ha, n));
        }
        let mut hb = if slope.is_finite() && slope != 0.0 {
            clamp(ha - fa / slope)
        } else {
            clamp(ha * (1.0 - 1e-8))
        };
        if hb == ha {
            return Ok((ha, n));
        }
        // Best point so far (smallest |φ|).
        let (mut best_h, mut best_f) = (ha, fa);
        for _ in 0..MAX_POLISH {
            let fb = eval(it, hb)?;
            n += 1;
            if fb.abs() < best_f.abs() {
                best_h = hb;
                best_f = fb;
            }
            if fb == 0.0 || fb == fa {
                return Ok((hb, n));
            }
            let hn = clamp(hb - fb * (hb - ha) / (fb - fa));
            if (hn - hb).abs() <= t_eps(t + hb) {
                return Ok((hb, n));
            }
            ha = hb;
            fa = fb;
            hb = hn;
        }
        // Not converged to round-off: re-take the best point so that the storage holds it.
        if best_h != ha {
            eval(it, best_h)?;
            n += 1;
        }
        Ok((best_h, n))
    }

    /// `τ = dt*/dp` of the event step just accepted as [`StepLength::Event`] (jump.rs): solves
    /// the differentiated root condition for `∂H/∂p` and applies it to the step's
    /// sensitivities (`Esdirk::apply_step_length_derivative`).
    fn event_time_sensitivity<const N: usize>(
        &self,
        it: &mut Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        guard: usize,
    ) -> Result<[f64; NP], SolveError> {
        let (msy, msz) = adapter.memory_sensitivities();
        let (sy, sz) = it.sensitivities();
        let (yh, zh) = it.step_length_direction();
        let step = EventStep {
            sy,
            sz,
            yh: &yh[S - 1],
            zh: &zh[S - 1],
            dt: it.time_sensitivity(),
            memory_sy: msy,
            memory_sz: msz,
        };
        let at = adapter.point(it.t(), it.y(), it.z(), &self.problem.p);
        let (dh, _) = event_step_length_derivative(self.model, guard, adapter.mode(), &at, &step)?;
        it.apply_step_length_derivative(&dh)?;
        Ok(*it.time_sensitivity())
    }

    /// Applies the event after the step to it was accepted (jump.rs), with the grazing and
    /// Zeno tests and the event log.
    fn event<const N: usize>(
        &mut self,
        it: &Esdirk<'_, ModeAdapter<'_, M, NY, NZ, NP>, S, NY, NZ, NP, N>,
        adapter: &ModeAdapter<'_, M, NY, NZ, NP>,
        cr: &Crossing,
        tau: &[f64; NP],
        outputs: &mut HybridOutputs<'_, NY, NZ, NP>,
        sol: &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<SegmentEnd<NY, NZ, NP>, SolveError> {
        let mode = adapter.mode();
        let t = it.t();
        let Some(info) = M::GUARDS.get(cr.guard) else {
            return Err(self.invalid(t, mode, "guard index"));
        };
        // Zeno: count and separation.
        if sol.stats.events >= self.options.max_events {
            return Err(SolveError::TooManyEvents {
                t,
                mode,
                count: sol.stats.events,
            });
        }
        if t - self.last_event_t <= self.options.min_event_separation * t.abs().max(1.0) {
            self.close_events += 1;
            if self.close_events >= ZENO_CLOSE_EVENTS {
                return Err(SolveError::TooManyEvents {
                    t,
                    mode,
                    count: sol.stats.events,
                });
            }
        } else {
            self.close_events = 0;
        }
        let (msy, msz) = adapter.memory_sensitivities();
        let (sy, sz) = it.sensitivities();
        let pre = PreEvent {
            t,
            mode,
            y: it.y(),
            z: it.z(),
            sy: if self.fsa { Some(sy) } else { None },
            sz,
            tau,
            p: &self.problem.p,
            memory: adapter.memory(),
            memory_sy: msy,
            memory_sz: msz,
        };
        let post = apply_event(self.model, cr.guard, info.to, info.has_reset, &pre)?;
        // Grazing: |ḣ| Δ ≤ tol (|h_a| + |h_b|) on the bracket (hybrid_io.rs).
        let delta = (cr.theta_b - cr.theta_a) * cr.h;
        let scale = cr.value_a.abs() + cr.value_b.abs();
        // Written so that a NaN ratio counts as grazing.
        let transversal = post.hdot.abs() * delta > self.options.grazing_tol * scale;
        if !transversal {
            return Err(SolveError::GrazingEvent {
                t,
                mode,
                guard: cr.guard,
            });
        }
        sol.stats.events += 1;
        self.last_event_t = t;
        if let Some(log) = outputs.events.as_deref_mut() {
            let Some(slot) = log.get_mut(sol.n_events) else {
                return Err(SolveError::StorageFull {
                    t,
                    mode,
                    capacity: log.len(),
                });
            };
            *slot = EventRecord {
                t,
                guard: cr.guard,
                from: mode,
                to: info.to,
                tau: post.tau,
            };
        }
        sol.n_events += 1;
        Ok(SegmentEnd::Event { to: info.to, post })
    }
}
