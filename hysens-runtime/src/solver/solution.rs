//! The owned result of [`super::Solver::solve`] (feature `std`): typed final state, sensitivities by
//! name, events and samples with mode names, statistics; and its failure, [`SolveFailure`]
//! (also what [`super::Solver::gradient`] returns on failure), which prints the error with the
//! model's names.

use std::boxed::Box;
use std::fmt;
use std::vec;
use std::vec::Vec;

use super::dense::{DenseOutput, DenseState};
use super::lookup::{describe, find, item, LookupError};
use super::outputs::OutputFunctions;
use super::selection::{index_of, Variable, Wrt};
use super::Fields;
use crate::dense::{DensePoint, Limit};
use crate::error::{Described, SolveError};
use crate::stats::Stats;
use crate::{CostInfo, CostValue, GuardInfo, HybridModel, ModeInfo};
use crate::{EventRecord, HybridOutputs, HybridSolution, Sample};

/// Events the owned solve makes room for at first; a solve with more is computed again with
/// room for up to `max_events` (deterministically, so with the same results).
const FIRST_EVENT_CAPACITY: usize = 64;

/// Dense-output points the owned solve makes room for at first (a point per accepted step and
/// per segment); a solve with more is computed again with eight times the room.
const FIRST_DENSE_CAPACITY: usize = 1024;

/// One mode switch.
#[derive(Clone, Debug, PartialEq)]
pub struct Event<const NY: usize> {
    /// Event time `t_i`.
    pub t: f64,
    /// The guard that fired.
    pub guard: &'static str,
    /// The mode left.
    pub from: &'static str,
    /// The mode entered.
    pub to: &'static str,
    /// The differential state just before the event, `y(t_i⁻)`, in the model's state order.
    pub y_before: [f64; NY],
    /// The differential state just after it, `y(t_i⁺)`: the guard's reset of `y_before` (the
    /// same state for a guard without a reset).
    pub y_after: [f64; NY],
    /// `dt_i/dθ_j` for each direction of [`Solution::directions`] (empty without
    /// sensitivities): the derivative of the event time of the discrete solution.
    pub dt: Vec<f64>,
}

/// The state at one sample time.
#[derive(Clone, PartialEq)]
pub struct SampleState<X, const NY: usize, const NZ: usize> {
    /// Sample time.
    pub t: f64,
    /// Mode at the sample (the mode entered, if an event happens exactly there).
    pub mode: &'static str,
    /// The differential states as the model's struct.
    pub x: X,
    /// `y(t)` as an array.
    pub y: [f64; NY],
    /// `z(t)`.
    pub z: [f64; NZ],
    /// `∂y(t)/∂θ_j` for each direction of [`Solution::directions`].
    pub dy: Vec<[f64; NY]>,
    /// `∂z(t)/∂θ_j` for each direction.
    pub dz: Vec<[f64; NZ]>,
}

/// The owned result of a solve; see [`super::Solver::solve`].
///
/// A bouncing ball (the model `ball` of [`super::Solver`]'s example), read at its final time,
/// at an event and, with dense output, at any time:
///
/// ```
/// # use hysens::prelude::*;
/// # #[hybrid_model]
/// # pub mod ball {
/// #     #[states]
/// #     pub struct X { pub h: f64, pub v: f64 }
/// #     #[params]
/// #     pub struct P { pub g: f64, pub e: f64 }
/// #     #[mode(initial)]
/// #     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
/// #     #[guard(flight -> flight, falling)]
/// #     fn impact(x: &X) -> f64 { x.h }
/// #     #[reset(impact)]
/// #     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
/// #     #[cost(terminal)]
/// #     fn height(x: &X) -> f64 { x.h }
/// # }
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.8 });
/// let solution = ball::Model
///     .solver()
///     .tolerances(1e-10, 1e-12)
///     .sensitivities_to(Params::All, InitialStates::None)
///     .dense_output()
///     .solve(0.0, 1.0, &x0, &p)?;
/// let t1 = (2.0f64 / 9.81).sqrt(); // the impact
/// let impact = &solution.events[0];
/// assert!((impact.t - t1).abs() < 1e-9);
/// assert!((solution.event_time_sensitivity(0, "g")? + t1 / (2.0 * 9.81)).abs() < 1e-8);
/// // Just before and just after the impact: the event log's states.
/// assert_eq!(solution.left_limit_at(impact.t)?.y, impact.y_before);
/// assert_eq!(solution.at(impact.t)?.y, impact.y_after);
/// // Free fall before it: h = 1 − g t²/2, ∂h/∂g = −t²/2.
/// let before = solution.at(0.3)?;
/// assert!((before.x.h - (1.0 - 9.81 * 0.09 / 2.0)).abs() < 1e-8);
/// assert!((before.dy[0][0] + 0.045).abs() < 1e-8); // dy[direction][state]: ∂h/∂g
/// assert_eq!(solution.directions(), [Variable::Param(0), Variable::Param(1)]);
/// println!("h(1) = {}, G = {}, {} steps", solution.x.h, solution.cost, solution.stats.steps);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, PartialEq)]
pub struct Solution<X, const NY: usize, const NZ: usize, const NP: usize> {
    /// Time reached (`tf` on success).
    pub t: f64,
    /// The mode at `t`.
    pub mode: &'static str,
    /// The differential states at `t` as the model's struct.
    pub x: X,
    /// `y(t)` as an array.
    pub y: [f64; NY],
    /// `z(t)`.
    pub z: [f64; NZ],
    /// The objective `G = ∫ L dt + Σ_k ℓ_k + φ(t_f)` (as far as computed): the sum of the
    /// model's costs, or the one [`crate::Solver::objective`] chose; each cost on its own is
    /// [`Solution::named_cost`].
    pub cost: f64,
    /// The event log.
    pub events: Vec<Event<NY>>,
    /// One entry per sample time.
    pub samples: Vec<SampleState<X, NY, NZ>>,
    /// Solver statistics.
    pub stats: Stats,
    pub(super) directions: Vec<Variable>,
    dense: DenseOutput<NY, NZ>,
    pub(super) dy: Vec<[f64; NY]>,
    pub(super) dz: Vec<[f64; NZ]>,
    /// `∂t/∂θ_j` of the time reached: zero for the fixed `t_f`, `τ_j` for a terminal stop.
    pub(super) dt: Vec<f64>,
    dcost: Vec<f64>,
    named: NamedCosts,
    /// The named outputs, with the parameters of the solve (`outputs.rs`).
    pub(super) outputs: OutputFunctions<NY, NZ, NP>,
    state_names: [&'static str; NY],
    algebraic_names: [&'static str; NZ],
    parameter_names: [&'static str; NP],
}

// `Debug` by hand, without the typed state `x` (`y` holds the same values): the model's `X`
// need not be `Debug`, and `expect` on a solve's result needs the solution's `Debug`.
impl<X, const NY: usize, const NZ: usize> fmt::Debug for SampleState<X, NY, NZ> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SampleState")
            .field("t", &self.t)
            .field("mode", &self.mode)
            .field("y", &self.y)
            .field("z", &self.z)
            .field("dy", &self.dy)
            .field("dz", &self.dz)
            .finish_non_exhaustive()
    }
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> fmt::Debug for Solution<X, NY, NZ, NP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solution")
            .field("t", &self.t)
            .field("mode", &self.mode)
            .field("y", &self.y)
            .field("z", &self.z)
            .field("cost", &self.cost)
            .field("events", &self.events)
            .field("samples", &self.samples)
            .field("stats", &self.stats)
            .field("directions", &self.directions)
            .finish_non_exhaustive()
    }
}

impl<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize> Solution<X, NY, NZ, NP> {
    /// The directions `θ_j` the sensitivities were taken with respect to, in column order:
    /// the chosen parameters, then the chosen initial states.
    pub fn directions(&self) -> &[Variable] {
        &self.directions
    }

    /// The column of the direction the caller names.
    pub(super) fn column(&self, wrt: Wrt<'_>) -> Result<usize, LookupError> {
        let variable = match wrt {
            Wrt::Param(name) => Variable::Param(find("parameter", &self.parameter_names, name)?),
            Wrt::InitialState(name) => {
                Variable::InitialState(find("state", &self.state_names, name)?)
            }
        };
        let not_chosen = || LookupError::NotChosen { wrt: describe(wrt) };
        self.directions
            .iter()
            .position(|&d| d == variable)
            .ok_or_else(not_chosen)
    }

    /// The entry of the state or algebraic variable named `of` in `dy` or `dz`.
    fn entry(&self, dy: &[f64; NY], dz: &[f64; NZ], of: &str) -> Result<f64, LookupError> {
        if let Some(i) = index_of(&self.state_names, of) {
            return Ok(dy[i]);
        }
        if let Some(i) = index_of(&self.algebraic_names, of) {
            return Ok(dz[i]);
        }
        let names = self.state_names.iter().chain(&self.algebraic_names);
        Err(LookupError::UnknownName {
            kind: "state or algebraic variable",
            name: of.into(),
            known: names.copied().collect(),
        })
    }

    /// `∂v(t)/∂θ` for the state or algebraic variable named `of` at the final time and the
    /// direction `wrt` (a parameter name, or [`Wrt::InitialState`]). A name the model does not
    /// have, or a direction the solve did not compute, is a [`LookupError`] that says so.
    pub fn sensitivity<'w>(&self, of: &str, wrt: impl Into<Wrt<'w>>) -> Result<f64, LookupError> {
        let j = self.column(wrt.into())?;
        self.entry(&self.dy[j], &self.dz[j], of)
    }

    /// `∂x(t)/∂θ` as the model's struct (each field the derivative of that state).
    pub fn state_sensitivity<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Result<X, LookupError> {
        Ok(X::from_array(self.dy[self.column(wrt.into())?]))
    }

    /// `dG/dθ` of the objective.
    pub fn cost_gradient<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Result<f64, LookupError> {
        Ok(self.dcost[self.column(wrt.into())?])
    }

    /// The model's named costs ([`crate::HybridModel::COSTS`]): what [`Solution::named_cost`]
    /// and [`Solution::named_cost_gradient`] take.
    pub fn costs(&self) -> &'static [CostInfo] {
        self.named.info
    }

    /// The value `G_k` of the cost named `name` alone (its `#[cost]` function's name), from
    /// the same forward pass as the objective [`Solution::cost`] (the objective is the sum of
    /// these unless the solver chose one, [`crate::Solver::objective`]). A name the model does
    /// not have is a [`LookupError::UnknownName`] listing the model's costs.
    pub fn named_cost(&self, name: &str) -> Result<f64, LookupError> {
        Ok(self.named.find(name)?.0)
    }

    /// `dG_k/dθ` of the cost named `name` alone in the direction `wrt` (one of the solve's
    /// [`Solution::directions`]), by the forward sensitivities of the same solve. An unknown
    /// cost or direction is a [`LookupError`] that says so.
    pub fn named_cost_gradient<'w>(
        &self,
        name: &str,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let (_, gradient) = self.named.find(name)?;
        Ok(gradient[self.column(wrt.into())?])
    }

    /// `dt_k/dθ` of event `k`.
    pub fn event_time_sensitivity<'w>(
        &self,
        k: usize,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let j = self.column(wrt.into())?;
        Ok(item("event", &self.events, k)?.dt[j])
    }

    /// The solution at any time `t` of the solve, read from its dense output (request it with
    /// [`super::Solver::dense_output`]): the state, the algebraic variables and their
    /// sensitivities in the solution's directions, as a sample at `t` would hold them (at an
    /// event time, the state after the event; [`Solution::left_limit_at`] for the one before).
    ///
    /// It interpolates the stored steps (a quartic per step through its ends and three inner
    /// values from the stage values, accurate for stiff components too; [`crate::dense_output`]
    /// for the formulas, the measured error and the one case not yet covered, sensitivities of
    /// stiff components after an event): it is within a small multiple of the solve's own
    /// global error, not more accurate. A time outside the solve,
    /// or a solve without dense output, is a [`LookupError::Dense`].
    pub fn at(&self, t: f64) -> Result<SampleState<X, NY, NZ>, LookupError> {
        self.dense_at(t, Limit::Right)
    }

    /// The solution just before `t`: at an event time `t_k`, `y(t_k⁻)` (the event's
    /// `y_before`) and its sensitivities; elsewhere the same as [`Solution::at`].
    pub fn left_limit_at(&self, t: f64) -> Result<SampleState<X, NY, NZ>, LookupError> {
        self.dense_at(t, Limit::Left)
    }

    /// The dense output at `t` on the side `limit`.
    fn dense_at(&self, t: f64, limit: Limit) -> Result<SampleState<X, NY, NZ>, LookupError> {
        let DenseState {
            t,
            mode,
            y,
            z,
            dy,
            dz,
        } = self.dense.at(t, limit).map_err(LookupError::Dense)?;
        Ok(SampleState {
            t,
            mode,
            x: X::from_array(y),
            y,
            z,
            dy,
            dz,
        })
    }

    /// `∂v(t_k)/∂θ` of the state or algebraic variable `of` at sample `k`.
    pub fn sample_sensitivity<'w>(
        &self,
        k: usize,
        of: &str,
        wrt: impl Into<Wrt<'w>>,
    ) -> Result<f64, LookupError> {
        let j = self.column(wrt.into())?;
        let sample = item("sample", &self.samples, k)?;
        self.entry(&sample.dy[j], &sample.dz[j], of)
    }
}

/// A failed solve (or the forward solve of a failed gradient): what went wrong, and
/// everything computed up to it.
///
/// Its `Display` is the error with the model's names of modes, guards and switching surfaces
/// ([`SolveFailure::describe`]); `error` alone prints indices.
///
/// A ball that loses all its speed at the floor (restitution 0) has no continuation in the
/// model: the impact fires again at once, at the same state. The solve says so, with the
/// solution up to there:
///
/// ```
/// # use hysens::prelude::*;
/// # #[hybrid_model]
/// # pub mod ball {
/// #     #[states]
/// #     pub struct X { pub h: f64, pub v: f64 }
/// #     #[params]
/// #     pub struct P { pub g: f64, pub e: f64 }
/// #     #[mode(initial)]
/// #     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
/// #     #[guard(flight -> flight, falling)]
/// #     fn impact(x: &X) -> f64 { x.h }
/// #     #[reset(impact)]
/// #     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
/// #     #[cost(terminal)]
/// #     fn height(x: &X) -> f64 { x.h }
/// # }
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.0 });
/// let failure = ball::Model.solver().solve(0.0, 2.0, &x0, &p).unwrap_err();
/// assert!(matches!(failure.error, SolveError::StuckAtGuard { .. }), "{failure}");
/// assert!(failure.to_string().contains("impact")); // named as the model names it
/// assert!(!failure.partial.events.is_empty());      // what was computed is kept
/// assert!((failure.partial.t - (2.0f64 / 9.81).sqrt()).abs() < 1e-6);
/// # Ok(())
/// # }
/// ```
pub struct SolveFailure<X, const NY: usize, const NZ: usize, const NP: usize> {
    /// What went wrong, where.
    pub error: SolveError,
    /// The name of the mode the error happened in (`error.mode()` is its index).
    pub mode: &'static str,
    /// The solution up to the failure: the last accepted state, the events and samples
    /// reached, the statistics.
    pub partial: Box<Solution<X, NY, NZ, NP>>,
    modes: &'static [ModeInfo],
    guards: &'static [GuardInfo],
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> SolveFailure<X, NY, NZ, NP> {
    /// The error with the model's names ([`SolveError::describe`]); what `Display` prints.
    pub fn describe(&self) -> Described<'static> {
        self.error.describe(self.modes, self.guards)
    }
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> fmt::Debug
    for SolveFailure<X, NY, NZ, NP>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SolveFailure")
            .field("error", &self.error)
            .field("t", &self.partial.t)
            .finish_non_exhaustive()
    }
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> fmt::Display
    for SolveFailure<X, NY, NZ, NP>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe().fmt(f)
    }
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> std::error::Error
    for SolveFailure<X, NY, NZ, NP>
{
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Each named cost of a solve: its value and its gradient in each direction of the solution,
/// in one vector (one allocation): cost `k` at `k·(1 + d)`, its value, then `dG_k/dθ_j` for the
/// `d` directions.
#[derive(Clone, PartialEq)]
struct NamedCosts {
    info: &'static [CostInfo],
    /// The directions of each gradient.
    d: usize,
    entries: Vec<f64>,
}

impl NamedCosts {
    /// The costs of model `M` from a core solve's `costs` (one per cost, or none) and its
    /// summary `sol` (a model with one cost has it as its objective, whatever the objective:
    /// the builder then computes nothing more); `columns`: the raw column of each direction.
    fn new<M, const NY: usize, const NZ: usize, const NP: usize, const K: usize>(
        costs: &[CostValue<K>],
        sol: &HybridSolution<NY, NZ, K>,
        columns: &[usize],
    ) -> Self
    where
        M: HybridModel<NY, NZ, NP>,
    {
        let objective = [CostValue {
            value: sol.cost,
            gradient: sol.cost_gradient,
        }];
        let costs = match (M::COSTS.len(), costs.is_empty()) {
            (1, true) => &objective[..],
            _ => costs,
        };
        // A solve that failed before it started computed nothing: zero, as its `cost`.
        let cost = |k| costs.get(k).copied().unwrap_or(CostValue::ZERO);
        let entries = (0..M::COSTS.len()).flat_map(|k| {
            let cost = cost(k);
            let gradient = columns.iter().map(move |&j| cost.gradient[j]);
            core::iter::once(cost.value).chain(gradient)
        });
        NamedCosts {
            info: M::COSTS,
            d: columns.len(),
            entries: entries.collect(),
        }
    }

    /// The value of the cost named `name` and its gradient, or the error listing the model's.
    fn find(&self, name: &str) -> Result<(f64, &[f64]), LookupError> {
        let names: Vec<&'static str> = self.info.iter().map(|c| c.name).collect();
        let start = find("cost", &names, name)? * (1 + self.d);
        match self.entries.get(start..start + 1 + self.d) {
            Some([value, gradient @ ..]) => Ok((*value, gradient)),
            _ => Err(LookupError::UnknownName {
                kind: "cost",
                name: name.into(),
                known: names,
            }),
        }
    }
}

/// What the owned solve makes room for ([`Raw::run`]).
#[derive(Clone, Copy)]
pub(super) struct Room {
    /// Sample slots (one per sample time).
    pub samples: usize,
    /// The most events the solve may take.
    pub max_events: usize,
    /// Named-cost slots (zero: not computed one by one).
    pub costs: usize,
    /// Whether to keep the dense output.
    pub dense: bool,
}

/// The raw output of one core solve with `K` sensitivity columns.
pub(super) struct Raw<const NY: usize, const NZ: usize, const K: usize> {
    result: Result<(), SolveError>,
    solution: HybridSolution<NY, NZ, K>,
    events: Vec<EventRecord<NY, K>>,
    samples: Vec<Sample<NY, NZ, K>>,
    /// The dense output's points (`None`: not requested).
    dense: Option<Vec<DensePoint<NY, NZ, K>>>,
    /// Each named cost, when the solve computed them one by one ([`crate::solve_costs`]).
    costs: Vec<CostValue<K>>,
}

impl<const NY: usize, const NZ: usize, const K: usize> Raw<NY, NZ, K> {
    /// The outcome of a core solve, as it left its storage.
    pub fn new(
        result: Result<(), SolveError>,
        solution: HybridSolution<NY, NZ, K>,
        mut events: Vec<EventRecord<NY, K>>,
        mut samples: Vec<Sample<NY, NZ, K>>,
        mut dense: Option<Vec<DensePoint<NY, NZ, K>>>,
    ) -> Self {
        events.truncate(solution.n_events);
        samples.truncate(solution.n_samples);
        if let Some(points) = &mut dense {
            points.truncate(solution.n_dense_points);
        }
        Raw {
            result,
            solution,
            events,
            samples,
            dense,
            costs: Vec::new(),
        }
    }

    /// The value and gradient of each named cost of the solve, in the model's order.
    pub fn costs(&self) -> &[CostValue<K>] {
        &self.costs
    }

    /// The result of the solve.
    pub fn result(&self) -> Result<(), SolveError> {
        self.result
    }

    /// A solve that failed before it started (the summary is the start).
    pub fn failed_at_start(error: SolveError, t0: f64, y0: [f64; NY], z0: [f64; NZ]) -> Self {
        let mut solution = HybridSolution::ZERO;
        (solution.t, solution.y, solution.z) = (t0, y0, z0);
        Raw {
            result: Err(error),
            solution,
            events: Vec::new(),
            samples: Vec::new(),
            dense: None,
            costs: Vec::new(),
        }
    }

    /// Runs `core` with owned storage for what `room` says (samples, events, named costs, the
    /// dense output), with more room for events (up to `room.max_events`) or dense points if
    /// the first guess was too small (the solve is deterministic: a rerun gives the same
    /// results).
    pub fn run(
        room: Room,
        mut core: impl FnMut(
            &mut HybridOutputs<'_, NY, NZ, K>,
            &mut HybridSolution<NY, NZ, K>,
            &mut [CostValue<K>],
        ) -> Result<(), SolveError>,
    ) -> Self {
        let mut capacity = FIRST_EVENT_CAPACITY.min(room.max_events);
        let mut dense_capacity = FIRST_DENSE_CAPACITY;
        loop {
            let mut events = vec![EventRecord::ZERO; capacity];
            let mut samples = vec![Sample::ZERO; room.samples];
            let mut points = room.dense.then(|| vec![DensePoint::ZERO; dense_capacity]);
            let mut costs = vec![CostValue::ZERO; room.costs];
            let mut solution = HybridSolution::ZERO;
            let result = core(
                &mut HybridOutputs {
                    samples: &mut samples,
                    events: Some(&mut events),
                    steps: None,
                    dense: points.as_deref_mut(),
                },
                &mut solution,
                &mut costs,
            );
            let full = |room: usize, used: usize| matches!(result, Err(SolveError::StorageFull { capacity: c, .. }) if c == room && used == room);
            if full(capacity, solution.n_events) && capacity < room.max_events {
                capacity = capacity.saturating_mul(8).min(room.max_events);
                continue;
            }
            if room.dense && full(dense_capacity, solution.n_dense_points) {
                dense_capacity = dense_capacity.saturating_mul(8);
                continue;
            }
            let raw = Raw::new(result, solution, events, samples, points);
            return Raw { costs, ..raw };
        }
    }

    /// The owned solution of model `M` with parameters `p`, where column `column(d)` of the
    /// raw results is direction `d`.
    pub fn into_solution<M, X, const NP: usize>(
        self,
        p: [f64; NP],
        directions: Vec<Variable>,
        column: impl Fn(Variable) -> usize,
    ) -> Result<Solution<X, NY, NZ, NP>, SolveFailure<X, NY, NZ, NP>>
    where
        M: HybridModel<NY, NZ, NP>,
        X: Fields<NY>,
    {
        let columns: Vec<usize> = directions.iter().map(|&d| column(d)).collect();
        let mode_name = |mode: usize| M::MODES.get(mode).map_or("", |m| m.name);
        let pick = |s: &[[f64; K]; NY]| pick_columns(s, &columns);
        let pick_z = |s: &[[f64; K]; NZ]| pick_columns(s, &columns);
        let events = self
            .events
            .iter()
            .map(|e| owned_event::<M, NY, NZ, NP, K>(e, &columns))
            .collect();
        let samples = self
            .samples
            .iter()
            .map(|s| SampleState {
                t: s.t,
                mode: mode_name(s.mode),
                x: X::from_array(s.y),
                y: s.y,
                z: s.z,
                dy: pick(&s.sy),
                dz: pick_z(&s.sz),
            })
            .collect();
        let sol = &self.solution;
        let named = NamedCosts::new::<M, NY, NZ, NP, K>(&self.costs, sol, &columns);
        let solution = Solution {
            t: sol.t,
            mode: mode_name(sol.mode),
            x: X::from_array(sol.y),
            y: sol.y,
            z: sol.z,
            cost: sol.cost,
            events,
            samples,
            stats: sol.stats,
            dy: pick(&sol.sy),
            dz: pick_z(&sol.sz),
            dt: columns.iter().map(|&j| sol.st[j]).collect(),
            dcost: columns.iter().map(|&j| sol.cost_gradient[j]).collect(),
            outputs: OutputFunctions::of::<M>(p),
            dense: match self.dense {
                Some(points) => DenseOutput::new(points, columns, M::MODES),
                None => DenseOutput::none(),
            },
            named,
            directions,
            state_names: M::STATE_NAMES,
            algebraic_names: M::ALGEBRAIC_NAMES,
            parameter_names: M::PARAMETER_NAMES,
        };
        match self.result {
            Ok(()) => Ok(solution),
            Err(error) => Err(SolveFailure {
                error,
                mode: mode_name(error.mode()),
                partial: Box::new(solution),
                modes: M::MODES,
                guards: M::GUARDS,
            }),
        }
    }
}

/// The columns `columns` of the rows `s`, each as one array (a sensitivity per direction).
fn pick_columns<const R: usize, const K: usize>(
    s: &[[f64; K]; R],
    columns: &[usize],
) -> Vec<[f64; R]> {
    columns
        .iter()
        .map(|&j| core::array::from_fn(|i| s[i][j]))
        .collect()
}

/// The owned event of model `M` for the record `e`, with the event time's derivatives in the
/// directions whose columns are `columns`.
fn owned_event<M, const NY: usize, const NZ: usize, const NP: usize, const K: usize>(
    e: &EventRecord<NY, K>,
    columns: &[usize],
) -> Event<NY>
where
    M: HybridModel<NY, NZ, NP>,
{
    let mode_name = |mode: usize| M::MODES.get(mode).map_or("", |m| m.name);
    Event {
        t: e.t,
        guard: M::GUARDS.get(e.guard).map_or("", |g| g.name),
        from: mode_name(e.from),
        to: mode_name(e.to),
        y_before: e.y_before,
        y_after: e.y_after,
        dt: columns.iter().map(|&j| e.tau[j]).collect(),
    }
}
