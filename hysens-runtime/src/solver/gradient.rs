//! The owned gradient of [`super::Solver::gradient`] (feature `std`): the objective and its
//! gradient with respect to every parameter and every initial state, by the discrete adjoint.

use std::vec;

use super::selection::{index_of, Wrt};
use super::{Fields, Solver};
use std::vec::Vec;

use crate::adjoint::{
    adjoint, AdjointGradient, AdjointPoint, AdjointStats, AdjointTape, Forward, TapeStep,
};
use crate::error::SolveError;
use crate::model::{AdjointProducts, ModelSizes};
use crate::stats::Stats;
use crate::{HybridOutputs, HybridSolution, Sample, StepPlan};

/// Tape entries the owned gradient makes room for at first; a longer solve is computed again
/// with four times the room (deterministically, so with the same results).
const FIRST_TAPE_CAPACITY: usize = 256;

/// The objective `G` and its gradient by the discrete adjoint; see [`Solver::gradient`].
#[derive(Clone, Debug, PartialEq)]
pub struct Gradient<const NY: usize, const NP: usize> {
    /// The objective `G = ∫ L dt + Σ_k ℓ_k + φ(t_f)`.
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
    /// name; `None` if the name is unknown.
    pub fn wrt<'w>(&self, wrt: impl Into<Wrt<'w>>) -> Option<f64> {
        match wrt.into() {
            Wrt::Param(name) => Some(self.params[index_of(&self.parameter_names, name)?]),
            Wrt::InitialState(name) => {
                Some(self.initial_states[index_of(&self.state_names, name)?])
            }
        }
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
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    /// The objective and its gradient with respect to **all** parameters and initial states
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
    /// Runs on a larger stack segment when the thread has less stack left than the model
    /// needs ([`crate::stack_estimate`]), so any thread can call it, whatever the model's
    /// size.
    pub fn gradient<X: Fields<NY>>(
        &self,
        t0: f64,
        tf: f64,
        x0: &X,
        p: &impl Fields<NP>,
    ) -> Result<Gradient<NY, NP>, SolveError> {
        crate::stack::on_stack(Self::PARAMS_STACK_ESTIMATE, || {
            self.gradient_here(t0, tf, x0, p)
        })
    }

    /// [`Solver::gradient`] on the current stack.
    fn gradient_here<X: Fields<NY>>(
        &self,
        t0: f64,
        tf: f64,
        x0: &X,
        p: &impl Fields<NP>,
    ) -> Result<Gradient<NY, NP>, SolveError> {
        let problem = self.problem(t0, tf, x0.to_array(), p.to_array(), None);
        let mut capacity = FIRST_TAPE_CAPACITY;
        loop {
            let mut tape = vec![TapeStep::<S, NY, NZ>::ZERO; capacity];
            let mut samples = vec![Sample::ZERO; self.sample_times.len()];
            let mut solution = HybridSolution::ZERO;
            let mut gradient = AdjointGradient::ZERO;
            let mut adjoint_points = Vec::new();
            let forward = Forward {
                model: self.model,
                tableau: self.tableau,
                problem: &problem,
                options: &self.options,
                plan: StepPlan::Adaptive,
            };
            let result = adjoint::<M, S, NY, NZ, NP, N>(
                &forward,
                AdjointTape::full(&mut tape),
                &mut HybridOutputs {
                    samples: &mut samples,
                    events: None,
                    steps: None,
                },
                &mut solution,
                &mut gradient,
                Some(&mut |point| adjoint_points.push(point)),
            );
            match result {
                Err(SolveError::TapeFull { needed, .. }) if needed > capacity => {
                    capacity = needed;
                }
                Err(error) => return Err(error),
                Ok(()) => {
                    adjoint_points.reverse();
                    adjoint_points.dedup();
                    return Ok(Gradient {
                        adjoint: adjoint_points,
                        cost: solution.cost,
                        params: gradient.p,
                        initial_states: gradient.y0,
                        stats: solution.stats,
                        adjoint_stats: gradient.stats,
                        state_names: M::STATE_NAMES,
                        parameter_names: M::PARAMETER_NAMES,
                    });
                }
            }
        }
    }
}
