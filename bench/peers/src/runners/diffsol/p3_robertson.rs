//! P3 in diffsol: Robertson's chemical kinetics as a stiff ODE (no algebraic constraint),
//! `k = (k1, k2, k3) = (0.04, 3e7, 1e4)`, `y(0) = (1, 0, 0)`:
//!
//! ```text
//! y1' = -k1 y1 + k3 y2 y3
//! y2' =  k1 y1 - k3 y2 y3 - k2 y2^2
//! y3' =  k2 y2^2
//! ```
//!
//! Same equations and parameter order as bench/reference/robertson_fsa.py.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

/// Build and solve P3 to `case.t_end`; outputs `y`, sensitivities `dy/dk_j`.
pub fn solve(case: &Case, method: Method) -> RunResult {
    let k = case.params;
    let problem = OdeBuilder::<M>::new()
        .p(k.iter().copied())
        .rtol(case.rtol)
        .atol([case.atol])
        .sens_rtol(case.rtol)
        .sens_atol([case.atol])
        .param_scales(k.iter().map(|x| x.abs()))
        .rhs_sens_implicit(
            |y, k, _t, f| {
                f[0] = -k[0] * y[0] + k[2] * y[1] * y[2];
                f[1] = k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] * y[1];
                f[2] = k[1] * y[1] * y[1];
            },
            |y, k, _t, v, jv| {
                jv[0] = -k[0] * v[0] + k[2] * y[2] * v[1] + k[2] * y[1] * v[2];
                jv[1] = k[0] * v[0] - (k[2] * y[2] + 2.0 * k[1] * y[1]) * v[1] - k[2] * y[1] * v[2];
                jv[2] = 2.0 * k[1] * y[1] * v[1];
            },
            |y, _k, _t, v, fp| {
                fp[0] = -y[0] * v[0] + y[1] * y[2] * v[2];
                fp[1] = y[0] * v[0] - y[1] * y[1] * v[1] - y[1] * y[2] * v[2];
                fp[2] = y[1] * y[1] * v[1];
            },
        )
        .init_sens(
            |_k, _t, y| {
                y[0] = 1.0;
                y[1] = 0.0;
                y[2] = 0.0;
            },
            |_k, _t, _v, s| s.fill(0.0),
            3,
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1, 2]))
}
