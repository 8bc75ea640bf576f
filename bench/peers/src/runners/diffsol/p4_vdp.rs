//! P4 in diffsol: the stiff Van der Pol oscillator (unscaled form), `mu = 1000`,
//! `y(0) = (2, 0)`:
//!
//! ```text
//! y1' = y2
//! y2' = mu (1 - y1^2) y2 - y1
//! ```
//!
//! Same equations as bench/reference/vdp_fsa.py.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

/// Build and solve P4 to `case.t_end`; outputs `y`, sensitivities `dy/dmu`.
pub fn solve(case: &Case, method: Method) -> RunResult {
    let mu = case.params[0];
    let problem = OdeBuilder::<M>::new()
        .p([mu])
        .rtol(case.rtol)
        .atol([case.atol])
        .sens_rtol(case.rtol)
        .sens_atol([case.atol])
        .param_scales([mu.abs()])
        .rhs_sens_implicit(
            |y, p, _t, f| {
                f[0] = y[1];
                f[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0];
            },
            |y, p, _t, v, jv| {
                jv[0] = v[1];
                jv[1] =
                    (-2.0 * p[0] * y[0] * y[1] - 1.0) * v[0] + p[0] * (1.0 - y[0] * y[0]) * v[1];
            },
            |y, _p, _t, v, fp| {
                fp[0] = 0.0;
                fp[1] = (1.0 - y[0] * y[0]) * y[1] * v[0];
            },
        )
        .init_sens(
            |_p, _t, y| {
                y[0] = 2.0;
                y[1] = 0.0;
            },
            |_p, _t, _v, s| s.fill(0.0),
            2,
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1]))
}
