//! diffsol 0.18 runners (nalgebra backend, dense LU), each with forward sensitivities.
//!
//! Every runner builds its problem with `OdeBuilder` closures (`rhs_sens_implicit`,
//! `init_sens`, and for the hybrid cases `root_sens_implicit` + `reset_sens_implicit`), creates a
//! sensitivity solver (`bdf_sens`, `esdirk34_sens`, `tr_bdf2_sens`) and calls
//! `solve_dense_sensitivities(&[t_end])`. That call sets `t_end` as stop time, so the last step
//! ends on it; when a root is found and a reset operator is configured it
//! moves the state back to the root (`state_mut_back`), applies
//! `apply_reset_with_sens(root_idx)` and continues. `apply_reset_with_sens` applies the
//! standard event jump to the sensitivities (diffsol 0.18, `ode_solver/state.rs`):
//!
//! ```text
//! tau = -(r_x s^- + r_p) / (r_x f^- + r_t)                  (event-time sensitivity)
//! s^+ = R_x s^- + R_p + (R_x f^- + R_t - f^+) tau           (f^+ = rhs at the reset state)
//! ```
//!
//! Known defect (diffsol 0.18, shown by `examples/p2_reset_variants.rs`): the jump recomputes
//! `dy` but not the sensitivity derivative `ds`, and ESDIRK34/TR-BDF2 take their explicit first
//! stage from the previous `dy`/`ds`, so the first step after an event integrates the
//! sensitivities with the pre-event `ds`. With sensitivities in the error test (below) the
//! step is rejected and shrunk until the error is within tolerance; without, P2's
//! `dz(T)/dγ` comes out 8.17 (ESDIRK34) instead of 9.09995.
//!
//! Settings common to all diffsol runners (documented in the README):
//! * `rtol`, `atol` from the case;
//! * sensitivities are included in the error control, `sens_rtol = rtol`,
//!   `sens_atol = atol`, `param_scales = |p|` (diffsol divides the sensitivity atol by the
//!   parameter scale, as CVODES does with `pbar`); without `sens_*` diffsol leaves the
//!   sensitivities out of the error test;
//! * default initial step, dense nalgebra LU ([`LS`]), no Jacobian colouring;
//! * analytic Jacobian-vector products and parameter-Jacobian products.

mod p1_serban;
mod p2_bouncing_ball;
mod p3_robertson;
mod p4_vdp;
mod p5_hires;
mod p6_akzo;

use diffsol::{
    DenseMatrix, MatrixCommon, NalgebraContext, NalgebraLU, NalgebraMat, NalgebraVec,
    OdeEquationsImplicitSens, OdeSolverProblem, OdeSolverStopReason, Op,
    SensitivitiesOdeSolverMethod,
};

use super::{runners_of, Methods, Runner};
use crate::case::{Case, RunResult, Solution};

/// Matrix type of every diffsol problem here (dense, nalgebra).
pub(crate) type M = NalgebraMat<f64>;
/// Linear solver of every diffsol solver here (dense LU, nalgebra).
pub(crate) type LS = NalgebraLU<f64>;

/// The diffsol integration methods benchmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Variable-order BDF/NDF (orders 1-5), `problem.bdf_sens::<LS>()`.
    Bdf,
    /// ESDIRK34 (Jørgensen et al. 2018), `problem.esdirk34_sens::<LS>()`.
    Esdirk34,
    /// TR-BDF2 (Hosea & Shampine 1996), `problem.tr_bdf2_sens::<LS>()`.
    TrBdf2,
}

impl Methods for Method {
    const TOOL: &'static str = "diffsol 0.18";
    const ALL: &'static [Method] = &[Method::Bdf, Method::Esdirk34, Method::TrBdf2];

    fn name(self) -> &'static str {
        match self {
            Method::Bdf => "BDF",
            Method::Esdirk34 => "ESDIRK34",
            Method::TrBdf2 => "TR-BDF2",
        }
    }
}

/// Every diffsol method on every case that has a diffsol implementation.
pub fn runners(cases: &[Case]) -> Vec<Box<dyn Runner>> {
    runners_of(cases, |id| match id {
        "P1" => Some(p1_serban::solve as fn(&Case, Method) -> RunResult),
        "P2" => Some(p2_bouncing_ball::solve),
        "P3a" | "P3b" => Some(p3_robertson::solve),
        "P4a" | "P4b" => Some(p4_vdp::solve),
        "P5" => Some(p5_hires::solve),
        "P6" => Some(p6_akzo::solve),
        _ => None,
    })
}

/// Final states and sensitivities of a diffsol solve, before mapping to a case's outputs.
pub(crate) struct FinalState {
    /// All states at `t_end`.
    pub y: Vec<f64>,
    /// `s[j][i]` = d y_i(t_end) / d p_j.
    pub s: Vec<Vec<f64>>,
    pub steps: usize,
    pub f_evals: usize,
}

impl FinalState {
    /// Map to a [`Solution`] whose outputs are the states `idx` (in that order).
    pub fn select(self, idx: &[usize]) -> Solution {
        Solution {
            outputs: idx.iter().map(|&i| self.y[i]).collect(),
            sens: self
                .s
                .iter()
                .map(|sj| idx.iter().map(|&i| sj[i]).collect())
                .collect(),
            steps: Some(self.steps),
            f_evals: Some(self.f_evals),
        }
    }
}

/// Create the `method` sensitivity solver for `problem` and integrate to `t_end`.
pub(crate) fn solve_to_end<Eqn>(
    problem: &OdeSolverProblem<Eqn>,
    method: Method,
    t_end: f64,
) -> Result<FinalState, String>
where
    Eqn: OdeEquationsImplicitSens<M = M, V = NalgebraVec<f64>, T = f64, C = NalgebraContext>,
{
    let mut end = match method {
        Method::Bdf => problem
            .bdf_sens::<LS>()
            .map_err(|e| e.to_string())
            .and_then(|s| finish(s, t_end)),
        Method::Esdirk34 => problem
            .esdirk34_sens::<LS>()
            .map_err(|e| e.to_string())
            .and_then(|s| finish(s, t_end)),
        Method::TrBdf2 => problem
            .tr_bdf2_sens::<LS>()
            .map_err(|e| e.to_string())
            .and_then(|s| finish(s, t_end)),
    }
    .map_err(|e| format!("diffsol: {e}"))?;
    // the closure counts every call since the problem was built, and it is built per solve
    end.f_evals = problem.eqn.rhs().statistics().number_of_calls;
    Ok(end)
}

/// Integrate an already created sensitivity solver to `t_end` (the single evaluation point).
/// Returns final states, sensitivities and accepted steps (`f_evals` is left 0).
fn finish<'a, Eqn, S>(mut solver: S, t_end: f64) -> Result<FinalState, String>
where
    Eqn: OdeEquationsImplicitSens<M = M, V = NalgebraVec<f64>, T = f64, C = NalgebraContext> + 'a,
    S: SensitivitiesOdeSolverMethod<'a, Eqn>,
{
    let (ys, sens, stop) = solver
        .solve_dense_sensitivities(&[t_end])
        .map_err(|e| e.to_string())?;
    if let OdeSolverStopReason::RootFound(t, _) = stop {
        return Err(format!("stopped at a root at t = {t} instead of t_end"));
    }
    let n = ys.nrows();
    let y = (0..n).map(|i| ys.get_index(i, 0)).collect();
    let s = sens
        .iter()
        .map(|sj| (0..n).map(|i| sj.get_index(i, 0)).collect())
        .collect();
    let steps = solver.get_statistics().number_of_steps;
    Ok(FinalState {
        y,
        s,
        steps,
        f_evals: 0,
    })
}
