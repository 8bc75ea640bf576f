//! The owned gradient of [`super::Solver::gradient`] (feature `std`): the objective and its
//! gradient with respect to every parameter and every initial state, by the discrete adjoint.
//! A failure is the [`SolveFailure`] of [`super::Solver::solve`]: the error with the model's
//! names and the forward solution up to it (its events, samples and statistics).

use std::vec;

use super::lookup::{find, LookupError};
use super::selection::Wrt;
use super::solution::{Raw, Room};
use super::{Fields, ModelTypes, ParamsOf, SolveFailure, Solver, StateOf};
use std::vec::Vec;

use crate::adjoint::{AdjointGradient, AdjointPoint, AdjointStats, AdjointTape, TapeStep};
use crate::error::SolveError;
use crate::hybrid::adjoint;
use crate::model::{AdjointProducts, CostValue, HybridModel, ModelSizes};
use crate::run::HybridRun;
use crate::run::{HybridOutputs, HybridSolution};
use crate::stats::Stats;

/// Tape entries the owned gradient makes room for at first; a longer solve is computed again
/// with the room it needs (deterministically, so with the same results).
const FIRST_TAPE_CAPACITY: usize = 256;

/// The objective `G` and its gradient by the discrete adjoint; see [`Solver::gradient`].
///
/// The final height of the ball of [`Solver`]'s example and its gradient, looked up by name,
/// with the adjoint trajectory `λ(t) = dG/dy(t)`:
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
/// let gradient = ball::Model.solver().tolerances(1e-10, 1e-12).gradient(0.0, 1.0, &x0, &p)?;
/// let dg_de = gradient.wrt("e")?; // dG/de
/// let dg_dh0 = gradient.wrt(Wrt::InitialState("h"))?; // dG/dh(0)
/// assert!(dg_de > 0.0 && dg_dh0.is_finite());
/// assert!(gradient.wrt("gravity").is_err()); // an unknown name lists the model's
/// let last = gradient.adjoint.last().expect("the adjoint trajectory");
/// assert_eq!((last.t, last.y), (1.0, [1.0, 0.0])); // λ(t_f) = ∂φ/∂y of φ = h
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient<const NY: usize, const NP: usize> {
    /// The objective `G = ∫ L dt + Σ_k ℓ_k + φ(t_f)`: the sum of the model's costs, or the
    /// cost chosen with [`Solver::objective`] (of [`Solver::cost_gradients`]: that cost's).
    pub cost: f64,
    /// `dG/dp`, in the model's parameter order.
    pub params: [f64; NP],
    /// `dG/dy0`, in the model's state order.
    pub initial_states: [f64; NY],
    /// Statistics of the forward pass.
    pub stats: Stats,
    /// Statistics of the backward pass.
    pub adjoint_stats: AdjointStats,
    /// The adjoint of the state `λ(t) = dG/dy(t)` along the solve, in time order: at every step
    /// boundary, with both sides of the jumps at sample times and the right limit at events
    /// ([`AdjointPoint`]; Serban & Recuero 2019, Figs. 3 and 8, show it for their examples).
    pub adjoint: Vec<AdjointPoint<NY>>,
    state_names: [&'static str; NY],
    parameter_names: [&'static str; NP],
}

impl<const NY: usize, const NP: usize> Gradient<NY, NP> {
    /// `dG/dθ` for a parameter (`"g"`) or an initial state (`Wrt::InitialState("v")`), by
    /// name; a name the model does not have is a [`LookupError`] listing the model's.
    pub fn wrt<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Result<f64, LookupError> {
        Ok(match wrt.into() {
            Wrt::Param(name) => self.params[find("parameter", &self.parameter_names, name)?],
            Wrt::InitialState(name) => self.initial_states[find("state", &self.state_names, name)?],
        })
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
    > Solver<'_, M, S, NY, NZ, NP, N, NS>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    /// The objective (the sum of the model's costs, or the one [`Solver::objective`] chose)
    /// and its gradient with respect to **all** parameters and initial states
    /// by the discrete adjoint: one forward solve that records a tape of its steps and events,
    /// then one backward pass over it — a cost that does not grow with the number of
    /// parameters. It is the transpose of the forward sensitivities' chain, so it equals their
    /// gradient of the same solve to round-off. (The sensitivity selection of
    /// [`Solver::sensitivities_to`] does not apply: the adjoint gives every entry at once.)
    ///
    /// The tape is owned here: a first try with room for a few hundred steps, and a solve too
    /// long for it is computed again with the room it named ([`SolveError::TapeFull`]); for
    /// caller storage, no heap and checkpointing, use [`crate::solve_adjoint`].
    ///
    /// On failure, the [`SolveFailure`] of [`Solver::solve`]: the error, the name of its mode
    /// and the forward solution up to it (without sensitivities).
    ///
    /// Runs on a larger stack segment when the thread has less stack left than the model
    /// needs ([`crate::stack_estimate`]), so any thread can call it, whatever the model's
    /// size.
    pub fn gradient(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> Result<Gradient<NY, NP>, SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>> {
        crate::stack::on_stack(Self::PARAMS_STACK_ESTIMATE, || {
            self.gradient_here(t0, tf, x0, p)
        })
    }

    /// [`Solver::gradient`] on the current stack.
    fn gradient_here(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> Result<Gradient<NY, NP>, SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>> {
        let problem = self.problem(t0, tf, x0.to_array(), p.to_array(), None);
        let forward = HybridRun::new(self.model, self.tableau, &problem, &self.options)
            .with_plan(self.plan())
            .with_objective(self.objective);
        let mut gradient = AdjointGradient::ZERO;
        let mut adjoint_points = Vec::new();
        let raw = self.taped(0, |tape, outputs, solution, _| {
            adjoint_points.clear();
            adjoint::<M, S, NY, NZ, NP, N>(
                &forward,
                AdjointTape::full(tape),
                outputs,
                solution,
                &mut gradient,
                Some(&mut |point| adjoint_points.push(point)),
            )
        });
        let solution =
            raw.into_solution::<M, StateOf<M, NY, NZ, NP>, NP>(problem.p, Vec::new(), |_| 0)?;
        let pass = (solution.stats, adjoint_points);
        Ok(Gradient::new::<M, NZ>(solution.cost, &gradient, pass))
    }

    /// The outcome of `pass`, a forward pass recording into a full tape and backward passes
    /// over it, given owned storage: the tape (a first try with room for a few hundred steps,
    /// and a solve too long for it computed again with the room it named,
    /// [`SolveError::TapeFull`]), the outputs (the forward solve logs its events too, with room
    /// as for `solve`, so that a failure has the partial solution `solve` would give) and
    /// `n_costs` named costs.
    pub(super) fn taped(
        &self,
        n_costs: usize,
        mut pass: impl FnMut(
            &mut [TapeStep<S, NY, NZ>],
            &mut HybridOutputs<'_, NY, NZ, NP>,
            &mut HybridSolution<NY, NZ, NP>,
            &mut [CostValue<NP>],
        ) -> Result<(), SolveError>,
    ) -> Raw<NY, NZ, NP> {
        let room = Room {
            samples: self.sample_times.len(),
            max_events: self.options.max_events,
            costs: n_costs,
            dense: false,
        };
        let mut capacity = FIRST_TAPE_CAPACITY;
        loop {
            let mut tape = vec![TapeStep::<S, NY, NZ>::ZERO; capacity];
            let raw = Raw::<NY, NZ, NP>::run(room, |outputs, solution, costs| {
                pass(&mut tape, outputs, solution, costs)
            });
            match raw.result() {
                Err(SolveError::TapeFull { needed, .. }) if needed > capacity => capacity = needed,
                _ => return raw,
            }
        }
    }
}

impl<const NY: usize, const NP: usize> Gradient<NY, NP> {
    /// The gradient of a cost of value `cost` of model `M` from a backward pass, with the
    /// statistics of the forward pass and the adjoint points (in the order the backward pass
    /// reported them, last first) of `pass`.
    pub(super) fn new<M, const NZ: usize>(
        cost: f64,
        gradient: &AdjointGradient<NY, NP>,
        (stats, mut adjoint): (Stats, Vec<AdjointPoint<NY>>),
    ) -> Self
    where
        M: HybridModel<NY, NZ, NP>,
    {
        adjoint.reverse();
        adjoint.dedup();
        Gradient {
            adjoint,
            cost,
            params: gradient.p,
            initial_states: gradient.y0,
            stats,
            adjoint_stats: gradient.stats,
            state_names: M::STATE_NAMES,
            parameter_names: M::PARAMETER_NAMES,
        }
    }
}
