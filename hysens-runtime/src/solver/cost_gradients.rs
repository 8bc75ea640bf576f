//! The adjoint gradients of every named cost of a model with one forward pass (feature
//! `std`): [`super::Solver::cost_gradients`].
//!
//! A gradient by the discrete adjoint costs one forward pass that records a tape and one
//! backward pass over it. The backward pass is where the objective enters (its seeds: the
//! terminal cost at `t_f`, the sampled costs as jumps, the integrand's quadrature in each step;
//! `adjoint/cost.rs`); the tape does not depend on it, because the steps do not
//! (`model/costs.rs`: the integral cost in the error test is always the sum). So the gradients
//! of `K` costs need one forward pass and `K` backward passes, and each is bit for bit the
//! gradient [`super::Solver::gradient`] gives with that cost as the objective.

use std::vec::Vec;

use super::lookup::{find, LookupError};
use super::{Fields, Gradient, ModelTypes, ParamsOf, SolveFailure, Solver, StateOf};
use crate::adjoint::AdjointGradient;
use crate::hybrid::adjoint_costs;
use crate::model::{AdjointProducts, CostInfo, ModelSizes};
use crate::run::HybridRun;

/// The gradient of each named cost of a model; see [`Solver::cost_gradients`].
#[derive(Clone, Debug, PartialEq)]
pub struct CostGradients<const NY: usize, const NP: usize> {
    /// One per cost, in the model's order ([`crate::HybridModel::COSTS`]): its value as
    /// [`Gradient::cost`], its gradient, the statistics of the shared forward pass and of its
    /// own backward pass, and its adjoint trajectory.
    pub gradients: Vec<Gradient<NY, NP>>,
    costs: &'static [CostInfo],
}

impl<const NY: usize, const NP: usize> CostGradients<NY, NP> {
    /// The gradient of the cost named `name`; a name the model does not have is a
    /// [`LookupError::UnknownName`] listing the model's costs.
    pub fn of(&self, name: &str) -> Result<&Gradient<NY, NP>, LookupError> {
        let names: Vec<&'static str> = self.costs.iter().map(|c| c.name).collect();
        Ok(&self.gradients[find("cost", &names, name)?])
    }

    /// The model's costs, in the order of [`CostGradients::gradients`].
    pub fn costs(&self) -> &'static [CostInfo] {
        self.costs
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
    /// The value and the gradient with respect to all parameters and initial states of
    /// **each** named cost of the model ([`crate::HybridModel::COSTS`]), by the discrete
    /// adjoint with one forward pass shared: it records the tape once (as
    /// [`Solver::gradient`] does), then runs one backward pass per cost over it (module docs).
    /// Each gradient equals that of [`Solver::gradient`] with the cost as the
    /// [`Solver::objective`], bit for bit, and the forward sensitivities'
    /// [`crate::Solution::named_cost_gradient`] to round-off. (The solver's own objective does
    /// not apply.) A model without named costs gives none.
    ///
    /// On failure, the [`SolveFailure`] of [`Solver::solve`]. Runs on a larger stack segment
    /// when the thread has less stack left than the model needs, as [`Solver::gradient`].
    pub fn cost_gradients(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> Result<CostGradients<NY, NP>, SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>> {
        crate::stack::on_stack(Self::PARAMS_STACK_ESTIMATE, || {
            self.cost_gradients_here(t0, tf, x0, p)
        })
    }

    /// [`Solver::cost_gradients`] on the current stack.
    fn cost_gradients_here(
        &self,
        t0: f64,
        tf: f64,
        x0: &StateOf<M, NY, NZ, NP>,
        p: &ParamsOf<M, NY, NZ, NP>,
    ) -> Result<CostGradients<NY, NP>, SolveFailure<StateOf<M, NY, NZ, NP>, NY, NZ, NP>> {
        let problem = self.problem(t0, tf, x0.to_array(), p.to_array(), None);
        let forward = HybridRun::new(self.model, self.tableau, &problem, &self.options)
            .with_plan(self.plan());
        let n_costs = M::COSTS.len();
        let mut gradients = std::vec![AdjointGradient::ZERO; n_costs];
        let mut points: Vec<Vec<_>> = std::vec![Vec::new(); n_costs];
        let raw = self.taped(n_costs, |tape, outputs, solution, costs| {
            points.iter_mut().for_each(Vec::clear);
            let storage = (costs, &mut gradients[..]);
            let observe = |k: usize, point| points[k].push(point);
            adjoint_costs::<M, S, NY, NZ, NP, N>(
                &forward, tape, outputs, solution, storage, observe,
            )
        });
        let values: Vec<f64> = raw.costs().iter().map(|c| c.value).collect();
        let solution =
            raw.into_solution::<M, StateOf<M, NY, NZ, NP>, NP>(problem.p, Vec::new(), |_| 0)?;
        let gradients = gradients
            .iter()
            .zip(values)
            .zip(points)
            .map(|((gradient, value), points)| {
                Gradient::new::<M, NZ>(value, gradient, (solution.stats, points))
            })
            .collect();
        Ok(CostGradients {
            gradients,
            costs: M::COSTS,
        })
    }
}
