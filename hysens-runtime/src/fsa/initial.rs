//! The initial-state map of a model with `#[initial_state]` ([`HybridModel::initial_state`]):
//! the solve starts from `y0 = I(t0, x, p)` of the caller's states `x`, with the sensitivities
//! `∂y0/∂p = I_x S + I_p` from the caller's `S = ∂x/∂p` (zero when not given). Its transpose,
//! the gradient with respect to `y0` carried back to `x` and `p`, is `adjoint/initial.rs`.
//! And the first mode's algebraic guess of a model with `#[algebraic_guess]`
//! ([`HybridModel::algebraic_guess`]), a function of that `y0` and `p`: only a guess, which
//! Newton's method makes consistent, so it has no derivatives to carry.
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use crate::linalg::all_finite;
use crate::model::{HybridModel, Memory, ResetJacobian};
use crate::run::HybridProblem;

/// The problem the solve starts from: `problem` with `y0 = I(t0, x, p)` and, with
/// sensitivities, `∂y0/∂p = I_x S + I_p`, and with the model's algebraic guess `z0(t0, y0, p)`;
/// `None` (solve `problem` itself) for a model with neither, and for a non-finite given state,
/// parameter or seed (which the driver then reports as such, keeping the given state).
pub(crate) fn mapped_problem<'a, M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'a, NY, NZ, NP>,
) -> Option<HybridProblem<'a, NY, NZ, NP>>
where
    M: HybridModel<NY, NZ, NP>,
{
    if !M::HAS_INITIAL_STATE && !M::HAS_ALGEBRAIC_GUESS {
        return None;
    }
    let seeds_finite = problem
        .sensitivities
        .is_none_or(|s| s.iter().all(all_finite));
    if !all_finite(&problem.y0) || !all_finite(&problem.p) || !seeds_finite {
        return None;
    }
    let mut mapped = *problem;
    if M::HAS_INITIAL_STATE {
        let memory = Memory {
            y: problem.y0,
            z: problem.z0,
        };
        let at = problem.initial_point(&memory);
        model.initial_state(&at, &mut mapped.y0);
        mapped.sensitivities = problem.sensitivities.map(|given| {
            let mut jac = ResetJacobian::zeroed();
            model.initial_state_jacobian(&at, &mut jac);
            let mut seeds = jac.p;
            jac.add_y_times_columns(&given, &mut seeds);
            seeds
        });
    }
    if M::HAS_ALGEBRAIC_GUESS {
        let memory = Memory {
            y: mapped.y0,
            z: mapped.z0,
        };
        let mut z0 = mapped.z0;
        model.algebraic_guess(&mapped.initial_point(&memory), &mut z0);
        mapped.z0 = z0;
    }
    Some(mapped)
}
