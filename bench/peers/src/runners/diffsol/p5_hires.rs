//! P5 in diffsol: HIRES as a stiff ODE, `k = 280` the one parameter,
//! `y(0) = (1, 0, 0, 0, 0, 0, 0, 0.0057)`:
//!
//! ```text
//! y1' = −1.71 y1 + 0.43 y2 + 8.32 y3 + 0.0007
//! y2' =  1.71 y1 − 8.75 y2
//! y3' = −10.03 y3 + 0.43 y4 + 0.035 y5
//! y4' =  8.32 y2 + 1.71 y3 − 1.12 y4
//! y5' = −1.745 y5 + 0.43 y6 + 0.43 y7
//! y6' = −k y6 y8 + 0.69 y4 + 1.71 y5 − 0.43 y6 + 0.69 y7
//! y7' =  k y6 y8 − 1.81 y7
//! y8' = −k y6 y8 + 1.81 y7
//! ```
//!
//! Same equations as `examples/reproduce/models/stiff.rs` (hysens) and
//! bench/reference/stiff_references.py.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

/// Build and solve P5 to `case.t_end`; outputs `y`, sensitivities `dy/dk`.
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
            |y, p, _t, f| {
                let r = p[0] * y[5] * y[7];
                f[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
                f[1] = 1.71 * y[0] - 8.75 * y[1];
                f[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
                f[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
                f[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
                f[5] = -r + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
                f[6] = r - 1.81 * y[6];
                f[7] = -r + 1.81 * y[6];
            },
            |y, p, _t, v, jv| {
                let dr = p[0] * (y[7] * v[5] + y[5] * v[7]);
                jv[0] = -1.71 * v[0] + 0.43 * v[1] + 8.32 * v[2];
                jv[1] = 1.71 * v[0] - 8.75 * v[1];
                jv[2] = -10.03 * v[2] + 0.43 * v[3] + 0.035 * v[4];
                jv[3] = 8.32 * v[1] + 1.71 * v[2] - 1.12 * v[3];
                jv[4] = -1.745 * v[4] + 0.43 * v[5] + 0.43 * v[6];
                jv[5] = -dr + 0.69 * v[3] + 1.71 * v[4] - 0.43 * v[5] + 0.69 * v[6];
                jv[6] = dr - 1.81 * v[6];
                jv[7] = -dr + 1.81 * v[6];
            },
            |y, _p, _t, v, fp| {
                let dr = y[5] * y[7] * v[0];
                fp.fill(0.0);
                fp[5] = -dr;
                fp[6] = dr;
                fp[7] = -dr;
            },
        )
        .init_sens(
            |_p, _t, y| {
                y.fill(0.0);
                y[0] = 1.0;
                y[7] = 0.0057;
            },
            |_p, _t, _v, s| s.fill(0.0),
            8,
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1, 2, 3, 4, 5, 6, 7]))
}
