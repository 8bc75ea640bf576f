//! The owned result of [`Solver::solve`] (feature `std`): typed final state, sensitivities by
//! name, events and samples with mode names, statistics.

use std::boxed::Box;
use std::fmt;
use std::vec;
use std::vec::Vec;

use super::selection::{index_of, Variable, Wrt};
use super::{Fields, Solver};
use crate::error::SolveError;
use crate::solve;
use crate::stats::Stats;
use crate::{EventRecord, HybridOutputs, HybridSolution, Sample, StepPlan};
use crate::{HybridModel, ModelSizes};

/// Events the owned solve makes room for at first; a solve with more is computed again with
/// room for up to `max_events` (deterministically, so with the same results).
const FIRST_EVENT_CAPACITY: usize = 64;

/// One mode switch.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Event time `t_i`.
    pub t: f64,
    /// The guard that fired.
    pub guard: &'static str,
    /// The mode left.
    pub from: &'static str,
    /// The mode entered.
    pub to: &'static str,
    /// `dt_i/dθ_j` for each direction of [`Solution::directions`] (empty without
    /// sensitivities): the derivative of the event time of the discrete solution.
    pub dt: Vec<f64>,
}

/// The state at one sample time.
#[derive(Clone, Debug, PartialEq)]
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

/// The owned result of a solve; see [`Solver::solve`].
#[derive(Clone, Debug, PartialEq)]
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
    /// The objective `G = ∫ L dt + Σ_k ℓ_k + φ(t_f)` (as far as computed).
    pub cost: f64,
    /// The event log.
    pub events: Vec<Event>,
    /// One entry per sample time.
    pub samples: Vec<SampleState<X, NY, NZ>>,
    /// Solver statistics.
    pub stats: Stats,
    directions: Vec<Variable>,
    dy: Vec<[f64; NY]>,
    dz: Vec<[f64; NZ]>,
    dcost: Vec<f64>,
    state_names: [&'static str; NY],
    algebraic_names: [&'static str; NZ],
    parameter_names: [&'static str; NP],
}

impl<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize> Solution<X, NY, NZ, NP> {
    /// The directions `θ_j` the sensitivities were taken with respect to, in column order:
    /// the chosen parameters, then the chosen initial states.
    pub fn directions(&self) -> &[Variable] {
        &self.directions
    }

    /// The column of the direction the caller names.
    fn column(&self, wrt: Wrt<'_>) -> Option<usize> {
        let variable = match wrt {
            Wrt::Param(name) => Variable::Param(index_of(&self.parameter_names, name)?),
            Wrt::InitialState(name) => Variable::InitialState(index_of(&self.state_names, name)?),
        };
        self.directions.iter().position(|&d| d == variable)
    }

    /// `∂v(t)/∂θ` for the state or algebraic variable named `of` at the final time and the
    /// direction `wrt` (a parameter name, or [`Wrt::InitialState`]); `None` if a name is
    /// unknown or the direction was not chosen.
    pub fn sensitivity<'w>(&self, of: &str, wrt: impl Into<Wrt<'w>>) -> Option<f64> {
        let j = self.column(wrt.into())?;
        match index_of(&self.state_names, of) {
            Some(i) => Some(self.dy[j][i]),
            None => Some(self.dz[j][index_of(&self.algebraic_names, of)?]),
        }
    }

    /// `∂x(t)/∂θ` as the model's struct (each field the derivative of that state).
    pub fn state_sensitivity<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Option<X> {
        Some(X::from_array(self.dy[self.column(wrt.into())?]))
    }

    /// `dG/dθ` of the objective.
    pub fn cost_gradient<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Option<f64> {
        Some(self.dcost[self.column(wrt.into())?])
    }

    /// `dt_k/dθ` of event `k`.
    pub fn event_time_sensitivity<'w>(&self, k: usize, wrt: impl Into<Wrt<'w>>) -> Option<f64> {
        let j = self.column(wrt.into())?;
        self.events.get(k)?.dt.get(j).copied()
    }

    /// `∂v(t_k)/∂θ` of the state or algebraic variable `of` at sample `k`.
    pub fn sample_sensitivity<'w>(
        &self,
        k: usize,
        of: &str,
        wrt: impl Into<Wrt<'w>>,
    ) -> Option<f64> {
        let j = self.column(wrt.into())?;
        let sample = self.samples.get(k)?;
        match index_of(&self.state_names, of) {
            Some(i) => Some(sample.dy[j][i]),
            None => Some(sample.dz[j][index_of(&self.algebraic_names, of)?]),
        }
    }
}

/// A failed solve: what went wrong, and everything computed up to it.
pub struct SolveFailure<X, const NY: usize, const NZ: usize, const NP: usize> {
    /// What went wrong, where.
    pub error: SolveError,
    /// The solution up to the failure: the last accepted state, the events and samples
    /// reached, the statistics.
    pub partial: Box<Solution<X, NY, NZ, NP>>,
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
        fmt::Display::fmt(&self.error, f)
    }
}

impl<X, const NY: usize, const NZ: usize, const NP: usize> std::error::Error
    for SolveFailure<X, NY, NZ, NP>
{
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The raw output of one core solve with `K` columns.
struct Raw<const NY: usize, const NZ: usize, const K: usize> {
    result: Result<(), SolveError>,
    solution: HybridSolution<NY, NZ, K>,
    events: Vec<EventRecord<K>>,
    samples: Vec<Sample<NY, NZ, K>>,
}

impl<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Solver<'_, M, S, NY, NZ, NP, N, NS>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS>,
{
    /// Solves on `[t0, tf]` from the states `x0` with the parameters `p` (the model's `P`, or
    /// `Model::parameters(&p, &u)` for a model with inputs) and returns an owned
    /// [`Solution`]; on failure, a [`SolveFailure`] with the error and the solution up to it.
    ///
    /// Only the chosen directions are reported. Without initial states the solve carries the
    /// `NP` parameter columns; with any initial state it carries all `NS = NP + NY` columns
    /// (parameters and initial states in one pass, see the module documentation).
    pub fn solve<X: Fields<NY>>(
        &self,
        t0: f64,
        tf: f64,
        x0: &X,
        p: &impl Fields<NP>,
    ) -> Result<Solution<X, NY, NZ, NP>, SolveFailure<X, NY, NZ, NP>> {
        let selection = match self.selection(t0) {
            Ok(selection) => selection,
            Err(error) => {
                let mut failed = HybridSolution::ZERO;
                (failed.t, failed.y, failed.z) = (t0, x0.to_array(), self.z0);
                let raw = Raw::<NY, NZ, NP> {
                    result: Err(error),
                    solution: failed,
                    events: Vec::new(),
                    samples: Vec::new(),
                };
                return self.collect(&raw, &[], |_| 0);
            }
        };
        let directions: Vec<Variable> = selection.directions().collect();
        if selection.any_state() {
            let raw =
                self.run(|outputs, solution| self.solve_into(t0, tf, x0, p, outputs, solution));
            self.collect(&raw, &directions, |d| match d {
                Variable::Param(i) => i,
                Variable::InitialState(i) => NP + i,
            })
        } else {
            let fsa = selection.any();
            let problem = self.problem(
                t0,
                tf,
                x0.to_array(),
                p.to_array(),
                fsa.then_some([[0.0; NP]; NY]),
            );
            let raw = self.run(|outputs, solution| {
                solve(
                    self.model,
                    self.tableau,
                    &problem,
                    &self.options,
                    StepPlan::Adaptive,
                    outputs,
                    solution,
                )
            });
            self.collect(&raw, &directions, |d| match d {
                Variable::Param(i) | Variable::InitialState(i) => i,
            })
        }
    }

    /// Runs `core` with owned storage, with more room for events if the first guess was
    /// too small.
    fn run<const K: usize>(
        &self,
        core: impl Fn(
            &mut HybridOutputs<'_, NY, NZ, K>,
            &mut HybridSolution<NY, NZ, K>,
        ) -> Result<(), SolveError>,
    ) -> Raw<NY, NZ, K> {
        let max_events = self.options.max_events;
        let mut capacity = FIRST_EVENT_CAPACITY.min(max_events);
        loop {
            let mut events = vec![EventRecord::ZERO; capacity];
            let mut samples = vec![Sample::ZERO; self.sample_times.len()];
            let mut solution = HybridSolution::ZERO;
            let result = core(
                &mut HybridOutputs {
                    samples: &mut samples,
                    events: Some(&mut events),
                    steps: None,
                },
                &mut solution,
            );
            let events_full = matches!(result, Err(SolveError::StorageFull { capacity: c, .. })
                if c == capacity && solution.n_events == capacity);
            if events_full && capacity < max_events {
                capacity = capacity.saturating_mul(8).min(max_events);
                continue;
            }
            events.truncate(solution.n_events);
            samples.truncate(solution.n_samples);
            return Raw {
                result,
                solution,
                events,
                samples,
            };
        }
    }

    /// The owned solution of a raw one; column `column(d)` of the raw results is direction `d`.
    fn collect<X: Fields<NY>, const K: usize>(
        &self,
        raw: &Raw<NY, NZ, K>,
        directions: &[Variable],
        column: impl Fn(Variable) -> usize,
    ) -> Result<Solution<X, NY, NZ, NP>, SolveFailure<X, NY, NZ, NP>> {
        let columns: Vec<usize> = directions.iter().map(|&d| column(d)).collect();
        let sol = &raw.solution;
        let mode_name = |mode: usize| M::MODES.get(mode).map_or("", |m| m.name);
        let pick_y = |s: &[[f64; K]; NY]| -> Vec<[f64; NY]> {
            columns
                .iter()
                .map(|&j| core::array::from_fn(|i| s[i][j]))
                .collect()
        };
        let pick_z = |s: &[[f64; K]; NZ]| -> Vec<[f64; NZ]> {
            columns
                .iter()
                .map(|&j| core::array::from_fn(|i| s[i][j]))
                .collect()
        };
        let events = raw
            .events
            .iter()
            .map(|e| Event {
                t: e.t,
                guard: M::GUARDS.get(e.guard).map_or("", |g| g.name),
                from: mode_name(e.from),
                to: mode_name(e.to),
                dt: columns.iter().map(|&j| e.tau[j]).collect(),
            })
            .collect();
        let samples = raw
            .samples
            .iter()
            .map(|s| SampleState {
                t: s.t,
                mode: mode_name(s.mode),
                x: X::from_array(s.y),
                y: s.y,
                z: s.z,
                dy: pick_y(&s.sy),
                dz: pick_z(&s.sz),
            })
            .collect();
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
            directions: directions.to_vec(),
            dy: pick_y(&sol.sy),
            dz: pick_z(&sol.sz),
            dcost: columns.iter().map(|&j| sol.cost_gradient[j]).collect(),
            state_names: M::STATE_NAMES,
            algebraic_names: M::ALGEBRAIC_NAMES,
            parameter_names: M::PARAMETER_NAMES,
        };
        match raw.result {
            Ok(()) => Ok(solution),
            Err(error) => Err(SolveFailure {
                error,
                partial: Box::new(solution),
            }),
        }
    }
}
