//! The transpose of the initial-state map (`fsa/initial.rs`): the gradient with respect to
//! the state the solve started from, `Ḡ_y0 = dG/dy0`, carried back through `y0 = I(t0, x, p)`
//! to the caller's states and parameters: `dG/dx = I_xᵀ Ḡ_y0`, `dG/dp += I_pᵀ Ḡ_y0 + Sᵀ dG/dx`
//! with the caller's seed `S = ∂x/∂p` (the backward pass ran on the mapped problem without a
//! seed: `I_x S + I_p` is applied here, transposed).
#![allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas

use super::AdjointGradient;
use crate::error::SolveError;
use crate::linalg::all_finite;
use crate::model::{HybridModel, Memory, ResetJacobian};
use crate::run::HybridProblem;

/// Carries `gradient.y0` (with respect to the mapped `y0`) back to the caller's states, and
/// adds its part to `gradient.p` (through `I_p` and the caller's seed), after a backward pass
/// over the problem `fsa/initial.rs` mapped. `problem` is the caller's (before the map).
///
/// Errors: a non-finite gradient (a huge seed or map derivative overflowing), as
/// [`SolveError::NonFiniteValue`] at `t0`.
pub(crate) fn chain_initial_state<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    problem: &HybridProblem<'_, NY, NZ, NP>,
    gradient: &mut AdjointGradient<NY, NP>,
) -> Result<(), SolveError>
where
    M: HybridModel<NY, NZ, NP>,
{
    let memory = Memory {
        y: problem.y0,
        z: problem.z0,
    };
    let mut jac = ResetJacobian::zeroed();
    model.initial_state_jacobian(&problem.initial_point(&memory), &mut jac);
    let mapped = gradient.y0;
    let mut given = [0.0; NY];
    jac.add_y_p_transposed_times(&mapped, &mut given, &mut gradient.p);
    if let Some(seed) = &problem.sensitivities {
        for k in 0..NY {
            for j in 0..NP {
                gradient.p[j] += seed[k][j] * given[k];
            }
        }
    }
    gradient.y0 = given;
    if !all_finite(&gradient.p) || !all_finite(&gradient.y0) {
        return Err(SolveError::NonFiniteValue {
            t: problem.t0,
            mode: 0,
            what: "adjoint gradient",
        });
    }
    Ok(())
}
