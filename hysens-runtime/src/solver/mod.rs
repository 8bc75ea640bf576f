//! The solving API: [`Solver`], a builder over the no_std core [`crate::solve`], with the
//! selection of sensitivity directions (`selection.rs`), the model extended by its initial
//! states (`extended.rs`), typed variables and the model's own input types (`fields.rs`:
//! [`ModelTypes`], so that the initial state and the parameters cannot be swapped), the named
//! outputs on the no-heap results (`core_outputs.rs`), and, with feature `std`, the owned
//! solution and failure (`solution.rs`, with its outputs in `outputs.rs`), the owned gradient
//! (`gradient.rs`), the gradients of every named cost with one forward pass
//! (`cost_gradients.rs`) and the dense output the solution is read from at any time
//! (`dense.rs`).

mod core_outputs;
#[cfg(feature = "std")]
mod cost_gradients;
#[cfg(feature = "std")]
mod dense;
mod extended;
mod fields;
#[cfg(feature = "std")]
mod gradient;
#[cfg(feature = "std")]
mod lookup;
#[cfg(feature = "std")]
mod outputs;
mod selection;
#[cfg(feature = "std")]
mod solution;

#[cfg(feature = "std")]
pub use cost_gradients::CostGradients;
pub use fields::{Fields, ModelTypes, NoParams};
#[cfg(feature = "std")]
pub use gradient::Gradient;
#[cfg(feature = "std")]
pub use lookup::LookupError;
pub use selection::{InitialStates, Params, Variable, Wrt};
#[cfg(feature = "std")]
pub use solution::{Event, SampleState, Solution, SolveFailure};
#[cfg(feature = "std")]
use solution::{Raw, Room};

use crate::error::SolveError;
use crate::stack_estimate_in;
use crate::tableau::{Tableau, ESDIRK436L2SA};
use crate::{solve_costs, CostErrorTest, CostValue, HybridModel, ModelSizes, Objective};
use crate::{HybridOptions, HybridOutputs, HybridProblem, HybridRun, HybridSolution, StepPlan};
use extended::Extended;
use selection::Selection;

/// The model's state type ([`ModelTypes::State`]).
type StateOf<M, const NY: usize, const NZ: usize, const NP: usize> =
    <M as ModelTypes<NY, NZ, NP>>::State;
/// The model's algebraic type ([`ModelTypes::Algebraic`]).
type AlgebraicOf<M, const NY: usize, const NZ: usize, const NP: usize> =
    <M as ModelTypes<NY, NZ, NP>>::Algebraic;
/// The model's parameter type ([`ModelTypes::Params`]).
type ParamsOf<M, const NY: usize, const NZ: usize, const NP: usize> =
    <M as ModelTypes<NY, NZ, NP>>::Params;
/// The storage of a core solve with `K` sensitivity columns: outputs, summary, named costs.
type Storage<'s, 'o, const NY: usize, const NZ: usize, const K: usize> = (
    &'s mut HybridOutputs<'o, NY, NZ, K>,
    &'s mut HybridSolution<NY, NZ, K>,
    &'s mut [CostValue<K>],
);
/// What [`Solver::solve`] returns: the solution, or the failure with the solution up to it.
#[cfg(feature = "std")]
type SolveResult<M, const NY: usize, const NZ: usize, const NP: usize> = Result<
    Solution<StateOf<M, NY, NZ, NP>, NY, NZ, NP>,
    SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>,
>;

/// A configured solve of a hybrid model.
///
/// Made by the generated `Model::solver()` (or [`Solver::new`] for a hand-written model);
/// it takes the model's own types ([`ModelTypes`]: the initial state as the model's `X`, the
/// parameters as its `P`), so swapping them does not compile. Every setting has a default:
/// tolerances `rtol = 1e-6`, `atol = 1e-8`, Kennedy & Carpenter's ESDIRK4(3)6L\[2\]SA, no
/// sensitivities, no samples, algebraic guess zero, the sum of the model's costs as the
/// objective ([`Solver::objective`] chooses one), and the integral cost (if the model has
/// one) in the local error test with the states' tolerances ([`Solver::cost_error_test`],
/// [`Solver::cost_error_test_off`]).
///
/// ```
/// use hysens::prelude::*;
///
/// #[hybrid_model]
/// pub mod ball {
///     #[states]
///     pub struct X { pub h: f64, pub v: f64 }
///     #[params]
///     pub struct P { pub g: f64, pub e: f64 }
///     #[mode(initial)]
///     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
///     #[guard(flight -> flight, falling)]
///     fn impact(x: &X) -> f64 { x.h }
///     #[reset(impact)]
///     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
///     #[cost(terminal)]
///     fn height(x: &X) -> f64 { x.h }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.8 });
/// let times = [0.25, 0.5];
/// let solver = ball::Model.solver().tolerances(1e-10, 1e-12).samples(&times);
/// let solution = solver
///     .sensitivities_to(Params::All, InitialStates::All)
///     .solve(0.0, 1.0, &x0, &p)?;
/// let dh_dg = solution.sensitivity("h", "g")?; // ∂h(t_f)/∂g
/// let dh_dv0 = solution.sensitivity("h", Wrt::InitialState("v"))?; // ∂h(t_f)/∂v(t0)
/// assert_eq!(solution.events[0].guard, "impact");
/// assert_eq!(solution.samples[1].t, 0.5);
/// // The adjoint: the same derivatives of the terminal cost h(t_f), to round-off (the two
/// // solves take the same steps: same settings, same samples).
/// let gradient = solver.gradient(0.0, 1.0, &x0, &p)?;
/// assert!((gradient.wrt("g")? - dh_dg).abs() < 1e-9);
/// assert!((gradient.wrt(Wrt::InitialState("v"))? - dh_dv0).abs() < 1e-9);
/// # Ok(())
/// # }
/// ```
///
/// Two ways to run it, one engine:
///
/// - [`Solver::solve`] (feature `std`) returns an owned [`crate::Solution`]: the final state as
///   the model's own `X`, sensitivities looked up by name, events and samples with mode names,
///   statistics. It allocates only those owned results.
/// - [`Solver::solve_into`] writes into caller-provided storage and allocates nothing
///   (no_std); its sensitivity columns are all parameters, then all initial states
///   (`NS = NP + NY`).
///
/// **Initial-state sensitivities** are first-class: any subset of the parameters and of the
/// initial differential states is chosen per solve by name ([`Params`], [`InitialStates`]).
/// They are derivatives of the same discrete solution: the initial states are appended to the
/// parameters and their columns start from unit vectors, so they cross every event exactly
/// like the parameter columns (the jump conditions of Serban & Recuero 2019, Eq. 6, act on any
/// direction). Without initial states the owned path carries only the `NP` parameter columns,
/// the cost of the core solve with sensitivities.
///
/// The const parameters are the tableau's stages `S` and the model's sizes (`N = NY + NZ`,
/// `NS = NP + NY`, from [`ModelSizes`]); they are inferred, never written.
///
/// A solver only borrows its model, so it is `Copy` for any model and `Send + Sync` whenever
/// the model is `Sync` (every `#[hybrid_model]` is): one solver can be shared by many threads,
/// each solving its own problem (the facade's `hysens::batch` does that).
#[derive(Debug)]
pub struct Solver<
    'a,
    M,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
> {
    model: &'a M,
    tableau: &'a Tableau<S>,
    options: HybridOptions<NY, NZ>,
    params: Params<'a>,
    initial_states: InitialStates<'a>,
    sample_times: &'a [f64],
    sample_data: &'a [f64],
    z0: [f64; NZ],
    dense: bool,
    objective: Objective,
    step_size: Option<f64>,
}

// By hand: `derive` would require `M: Clone` (`M: Copy`), but only `&M` is copied.
impl<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Clone for Solver<'_, M, S, NY, NZ, NP, N, NS>
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Copy for Solver<'_, M, S, NY, NZ, NP, N, NS>
{
}

impl<'a, M, const NY: usize, const NZ: usize, const NP: usize, const N: usize, const NS: usize>
    Solver<'a, M, 6, NY, NZ, NP, N, NS>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    /// A solver of `model` with the defaults listed on [`Solver`]. A hand-written model
    /// implements [`ModelTypes`] for it (arrays will do: `type State = [f64; NY];` …).
    pub fn new(model: &'a M) -> Self {
        const {
            assert!(
                N == NY + NZ && NS == NP + NY,
                "ModelSizes<N, NS> must have N = NY + NZ and NS = NP + NY"
            )
        };
        Solver {
            model,
            tableau: &ESDIRK436L2SA,
            options: HybridOptions::new(1e-6, 1e-8),
            params: Params::None,
            initial_states: InitialStates::None,
            sample_times: &[],
            sample_data: &[],
            z0: [0.0; NZ],
            dense: false,
            objective: Objective::Sum,
            step_size: None,
        }
    }
}

impl<
        'a,
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    > Solver<'a, M, S, NY, NZ, NP, N, NS>
where
    M: HybridModel<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    /// Bytes of stack [`Solver::solve_into`] needs, with the margin of
    /// [`crate::stack_estimate`] (`NS` sensitivity columns, this solver's tableau). With
    /// feature `std` the builder grows the stack itself; a `no_std` caller sizes the thread
    /// that runs `solve_into` with it.
    pub const STACK_ESTIMATE: usize = stack_estimate_in::<M::Store, S, NY, NZ, NS, N>();

    /// Bytes of stack a solve with the `NP` parameter columns needs: [`Solver::solve`]
    /// without initial-state directions and [`Solver::gradient`].
    #[cfg(feature = "std")]
    const PARAMS_STACK_ESTIMATE: usize = stack_estimate_in::<M::Store, S, NY, NZ, NP, N>();

    /// Uniform relative and absolute tolerances for every state (the other settings unchanged).
    pub fn tolerances(mut self, rtol: f64, atol: f64) -> Self {
        let integrator = &mut self.options.integrator;
        integrator.rtol_y = [rtol; NY];
        integrator.atol_y = [atol; NY];
        integrator.rtol_z = [rtol; NZ];
        integrator.atol_z = [atol; NZ];
        self
    }

    /// Puts the integral cost's quadrature into the local error test with its own relative
    /// and absolute tolerances for the accumulated cost ([`crate::Options::cost_error_test`]).
    /// By default it is in the test with the states' tolerances (those of
    /// [`Solver::tolerances`]); this sets others. The cost and its gradient are computed as
    /// without it; the steps resolve `∫ L dt` too. The `L` of the test is the sum of the
    /// model's integral costs whatever the [`Solver::objective`], so that the steps, and the
    /// tape of an adjoint, are the same for every objective.
    pub fn cost_error_test(mut self, rtol: f64, atol: f64) -> Self {
        self.options.integrator.cost_error_test = CostErrorTest::Tolerances { rtol, atol };
        self
    }

    /// Leaves the integral cost's quadrature out of the local error test
    /// ([`CostErrorTest::Off`]): the steps are those the states choose, fewer where `∫ L dt`
    /// is harder to integrate than the states, and `G` and its gradient only as accurate as
    /// the quadrature on those steps ([`crate::Options::cost_error_test`]).
    pub fn cost_error_test_off(mut self) -> Self {
        self.options.integrator.cost_error_test = CostErrorTest::Off;
        self
    }

    /// All settings at once (tolerances per component, step limits, Newton, events).
    pub fn options(mut self, options: HybridOptions<NY, NZ>) -> Self {
        self.options = options;
        self
    }

    /// The cap on the number of events (default 10 000): the solve stops at the next one with
    /// [`SolveError::TooManyEvents`]. (Events that accumulate in time stop it earlier, as Zeno
    /// behaviour: [`HybridOptions::min_event_separation`].)
    pub fn max_events(mut self, max_events: usize) -> Self {
        self.options.max_events = max_events;
        self
    }

    /// Another ESDIRK tableau (e.g. [`crate::ESDIRK34`]).
    pub fn tableau<const S2: usize>(
        self,
        tableau: &'a Tableau<S2>,
    ) -> Solver<'a, M, S2, NY, NZ, NP, N, NS> {
        Solver {
            model: self.model,
            tableau,
            options: self.options,
            params: self.params,
            initial_states: self.initial_states,
            sample_times: self.sample_times,
            sample_data: self.sample_data,
            z0: self.z0,
            dense: self.dense,
            objective: self.objective,
            step_size: self.step_size,
        }
    }

    /// Forward sensitivities with respect to these parameters and initial states.
    pub fn sensitivities_to(
        mut self,
        params: Params<'a>,
        initial_states: InitialStates<'a>,
    ) -> Self {
        self.params = params;
        self.initial_states = initial_states;
        self
    }

    /// Steps of size `h` without error control ([`StepPlan::Fixed`]), as the fixed-step mode of
    /// Christensen et al. (five ESDIRK34 steps per sample of an NMPC): the tolerances then set
    /// only the Newton iteration's test. The sensitivities and the adjoint are the exact
    /// derivatives of these steps. An `h` that is not positive and finite is an
    /// [`SolveError::InvalidArgument`] of the solve.
    pub fn fixed_step(mut self, h: f64) -> Self {
        self.step_size = Some(h);
        self
    }

    /// The step plan of this solver's solves: fixed steps if set, else adaptive.
    fn plan(&self) -> StepPlan<'a> {
        match self.step_size {
            Some(h) => StepPlan::Fixed(h),
            None => StepPlan::Adaptive,
        }
    }

    /// Output times (non-decreasing, in `[t0, tf]`): the solver lands exactly on each.
    pub fn samples(mut self, times: &'a [f64]) -> Self {
        self.sample_times = times;
        self
    }

    /// Keep the dense output: the solution and its sensitivities are then read at any time
    /// after the solve with [`Solution::at`] and [`Solution::left_limit_at`], without changing
    /// the steps the solve takes (sample times do change them: the solver lands on each). It
    /// stores a point per accepted step (the state, the sensitivities and their rates) and,
    /// with sensitivities, evaluates the model's Jacobians once more per step (twice more in
    /// a DAE mode).
    pub fn dense_output(mut self) -> Self {
        self.dense = true;
        self
    }

    /// One datum per sample time for the sampled cost `ℓ(t_k, y, z, p, d_k)`. Required with
    /// sample times when the model has a sampled cost
    /// ([`crate::HybridModel::HAS_SAMPLED_COST`]): a solve without them is an error.
    pub fn data(mut self, data: &'a [f64]) -> Self {
        self.sample_data = data;
        self
    }

    /// The guess of the initial algebraic variables, made consistent with `g = 0` by Newton's
    /// method (if the first mode reads the memory `z*`, pass consistent values: the memory of
    /// the first mode is `(y0, z0)` with this `z0`). A model with an `#[algebraic_guess]`
    /// function ([`HybridModel::HAS_ALGEBRAIC_GUESS`]) takes its guess from it instead.
    pub fn algebraic_guess(mut self, z0: &AlgebraicOf<M, NY, NZ, NP>) -> Self {
        self.z0 = z0.to_array();
        self
    }

    /// Makes the cost named `name` (its `#[cost]` function's name, one of
    /// [`HybridModel::COSTS`]) the objective, instead of the sum of all costs: the
    /// [`Solution::cost`] and [`Solution::cost_gradient`] of [`Solver::solve`] (and
    /// [`Solver::solve_into`]), and what [`Solver::gradient`] differentiates by the adjoint.
    /// The steps do not change: the integral cost in the local error test is always the sum of
    /// the integral costs ([`Solver::cost_error_test`]), so every objective of one problem is
    /// computed on the same steps. A name the model does not have is a
    /// [`LookupError::UnknownName`] listing the model's costs.
    ///
    /// (Every cost's value and forward gradient are also in any owned [`Solution`],
    /// [`Solution::named_cost`]; the adjoint gradients of all of them with one forward pass are
    /// [`Solver::cost_gradients`].)
    #[cfg(feature = "std")]
    pub fn objective(mut self, name: &str) -> Result<Self, LookupError> {
        let names: std::vec::Vec<&'static str> = M::COSTS.iter().map(|c| c.name).collect();
        self.objective = Objective::Cost(lookup::find("cost", &names, name)?);
        Ok(self)
    }

    /// The chosen directions, resolved against the model's names.
    fn selection(&self, t0: f64) -> Result<Selection<NY, NP>, SolveError> {
        Selection::resolve(
            self.params,
            self.initial_states,
            &M::PARAMETER_NAMES,
            &M::STATE_NAMES,
            t0,
        )
    }

    /// The problem with `K` sensitivity columns.
    fn problem<const K: usize>(
        &self,
        t0: f64,
        tf: f64,
        y0: [f64; NY],
        p: [f64; K],
        seeds: Option<[[f64; K]; NY]>,
    ) -> HybridProblem<'a, NY, NZ, K> {
        HybridProblem {
            t0,
            tf,
            y0,
            z0: self.z0,
            p,
            sensitivities: seeds,
            sample_times: self.sample_times,
            sample_data: self.sample_data,
        }
    }

    /// Solves on `[t0, tf]` from the states `x0` (the model's `X`) with the parameters `p` (the
    /// model's `P`, or `Model::parameters(&p, &u)` for a model with inputs) and returns an
    /// owned [`Solution`]; on failure, a [`SolveFailure`] with the error, the name of its mode
    /// and the solution up to it (its `Display` names modes, guards and surfaces).
    ///
    /// Only the chosen directions are reported. Without initial states the solve carries the
    /// `NP` parameter columns; with any initial state it carries all `NS = NP + NY` columns
    /// (parameters and initial states in one pass).
    ///
    /// Runs on a larger stack segment when the thread has less stack left than the model
    /// needs ([`crate::stack_estimate`]), so any thread can call it, whatever the model's
    /// size.
    #[cfg(feature = "std")]
    pub fn solve(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> SolveResult<M, NY, NZ, NP> {
        let selection = self.selection(t0);
        let need = match &selection {
            Ok(selection) if selection.any_state() => Self::STACK_ESTIMATE,
            _ => Self::PARAMS_STACK_ESTIMATE,
        };
        crate::stack::on_stack(need, || self.solve_here(selection, t0, tf, x0, p))
    }

    /// [`Solver::solve`] on the current stack.
    #[cfg(feature = "std")]
    fn solve_here(
        &self,
        selection: Result<Selection<NY, NP>, SolveError>,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> SolveResult<M, NY, NZ, NP> {
        let selection = match selection {
            Ok(selection) => selection,
            Err(error) => {
                let raw = Raw::<NY, NZ, NP>::failed_at_start(error, t0, x0.to_array(), self.z0);
                let (p, none) = (p.to_array(), std::vec::Vec::new());
                return raw.into_solution::<M, StateOf<M, NY, NZ, NP>, NP>(p, none, |_| 0);
            }
        };
        let directions = selection.directions().collect();
        if selection.any_state() {
            self.solve_all_columns(directions, t0, tf, x0, p)
        } else {
            self.solve_parameter_columns(selection.any(), directions, t0, tf, x0, p)
        }
    }

    /// [`Solver::solve_here`] with the `NS` columns of parameters and initial states. Not
    /// inlined: its `NY × NS` storage stays out of the frame of a solve with `NP` columns,
    /// whose stack [`Solver::solve`] sizes for `NP`.
    #[cfg(feature = "std")]
    #[inline(never)]
    fn solve_all_columns(
        &self,
        directions: std::vec::Vec<Variable>,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> SolveResult<M, NY, NZ, NP> {
        let raw = Raw::<NY, NZ, NS>::run(self.owned_room(), |outputs, solution, costs| {
            self.solve_into_here(t0, tf, x0, p, (outputs, solution, costs))
        });
        let p = p.to_array();
        raw.into_solution::<M, StateOf<M, NY, NZ, NP>, NP>(p, directions, |d| match d {
            Variable::Param(i) => i,
            Variable::InitialState(i) => NP + i,
        })
    }

    /// [`Solver::solve_here`] with the `NP` parameter columns (`any`: whether any is chosen;
    /// none is a plain solve). Not inlined, as [`Solver::solve_all_columns`].
    #[cfg(feature = "std")]
    #[inline(never)]
    fn solve_parameter_columns(
        &self,
        any: bool,
        directions: std::vec::Vec<Variable>,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> SolveResult<M, NY, NZ, NP> {
        let seeds = any.then_some([[0.0; NP]; NY]);
        let problem = self.problem(t0, tf, x0.to_array(), p.to_array(), seeds);
        let raw = Raw::<NY, NZ, NP>::run(self.owned_room(), |outputs, solution, costs| {
            let run = HybridRun::new(self.model, self.tableau, &problem, &self.options)
                .with_plan(self.plan());
            solve_costs(
                &run.with_objective(self.objective),
                outputs,
                solution,
                costs,
            )
        });
        let p = problem.p;
        raw.into_solution::<M, StateOf<M, NY, NZ, NP>, NP>(p, directions, |d| match d {
            Variable::Param(i) | Variable::InitialState(i) => i,
        })
    }

    /// Solves on `[t0, tf]` from `x0` with parameters `p` (the model's types, as for
    /// [`Solver::solve`]) into caller-provided storage, allocating nothing.
    ///
    /// The `NS` sensitivity columns are all parameters (`0..NP`) and then all initial states
    /// (`NP..NS`), computed together when any direction is chosen; a column that was not
    /// chosen is zero. (To pay only for parameter columns without initial states, call the
    /// core [`crate::solve`] with `NP` columns.) `outputs.samples` must hold one entry per
    /// sample time. On failure `solution` and `outputs` keep what was computed.
    ///
    /// With feature `std` it runs on a larger stack segment (mapped for the call, not on the
    /// heap) when the thread has less stack left than [`Solver::STACK_ESTIMATE`]; without it,
    /// run it on a thread with that much stack to spare.
    pub fn solve_into(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
        outputs: &mut HybridOutputs<'_, NY, NZ, NS>,
        solution: &mut HybridSolution<NY, NZ, NS>,
    ) -> Result<(), SolveError> {
        #[cfg(feature = "std")]
        return crate::stack::on_stack(Self::STACK_ESTIMATE, || {
            self.solve_into_here(t0, tf, x0, p, (outputs, solution, &mut []))
        });
        #[cfg(not(feature = "std"))]
        self.solve_into_here(t0, tf, x0, p, (outputs, solution, &mut []))
    }

    /// What the owned results make room for: samples, events, named costs (computed one by
    /// one for a model with two or more: a model with one has it as its objective) and the
    /// dense output if requested.
    #[cfg(feature = "std")]
    fn owned_room(&self) -> Room {
        Room {
            samples: self.sample_times.len(),
            max_events: self.options.max_events,
            costs: match M::COSTS.len() {
                0 | 1 => 0,
                n => n,
            },
            dense: self.dense,
        }
    }

    /// [`Solver::solve_into`] on the current stack, with each named cost into `costs` (none:
    /// not computed, [`crate::solve_costs`]).
    fn solve_into_here(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
        (outputs, solution, costs): Storage<'_, '_, NY, NZ, NS>,
    ) -> Result<(), SolveError> {
        let (y0, p) = (x0.to_array(), p.to_array());
        let selection = match self.selection(t0) {
            Ok(selection) => selection,
            Err(error) => {
                // As the core does for its own argument errors: the summary is the start.
                *solution = HybridSolution::ZERO;
                (solution.t, solution.y, solution.z) = (t0, y0, self.z0);
                return Err(error);
            }
        };
        let mut extended_p = [0.0; NS];
        let mut seeds = [[0.0; NS]; NY];
        for (to, from) in extended_p.iter_mut().zip(p.iter().chain(&y0)) {
            *to = *from;
        }
        for (i, row) in seeds.iter_mut().enumerate() {
            if let (true, Some(seed)) = (selection.states[i], row.get_mut(NP + i)) {
                *seed = 1.0;
            }
        }
        let problem = self.problem(t0, tf, y0, extended_p, selection.any().then_some(seeds));
        let model = Extended {
            model: self.model,
            params: selection.params,
        };
        let run =
            HybridRun::new(&model, self.tableau, &problem, &self.options).with_plan(self.plan());
        solve_costs(
            &run.with_objective(self.objective),
            outputs,
            solution,
            costs,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solver is `Copy`, `Send` and `Sync` for a model that is `Sync` but not `Clone` (here
    /// one holding a `Vec`, as a model with a data table might).
    #[test]
    fn solver_is_copy_and_sync_for_a_model_that_is_not_clone() {
        fn shareable<T: Copy + Send + Sync>(_: &T) {}
        struct Table(std::vec::Vec<f64>);
        let table = Table(std::vec![1.0, 2.0]);
        let solver: Solver<'_, Table, 6, 1, 0, 1, 1, 2> = Solver {
            model: &table,
            tableau: &ESDIRK436L2SA,
            options: HybridOptions::new(1e-6, 1e-8),
            params: Params::All,
            initial_states: InitialStates::None,
            sample_times: &[],
            sample_data: &[],
            z0: [],
            dense: false,
            objective: Objective::Sum,
            step_size: None,
        };
        shareable(&solver);
        let copy = solver;
        assert_eq!(copy.model.0.len() + solver.model.0.len(), 4);
    }
}
