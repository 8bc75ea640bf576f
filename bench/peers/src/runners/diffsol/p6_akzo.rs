//! P6 in diffsol: Chemical Akzo Nobel as the index-1 DAE `M y' = f(y, p)` with the singular
//! mass matrix `M = diag(1, 1, 1, 1, 1, 0)` (`OdeBuilder::mass`), the same formulation as
//! hysens' (five differential states, the algebraic `y6`), `p = (k1, kla) = (18.7, 3.3)`:
//!
//! ```text
//! r1 = k1 y1⁴ √y2,  r2 = k2 y3 y4,  r3 = (k2/K) y1 y5,  r4 = k3 y1 y4²,  r5 = k4 y6² √y2
//! F_in = kla (p_CO2/H − y2)
//! y1' = −2 r1 + r2 − r3 − r4
//! y2' = −r1/2 − r4 − r5/2 + F_in
//! y3' =  r1 − r2 + r3
//! y4' = −r2 + r3 − 2 r4
//! y5' =  r2 − r3 + r5
//!   0 =  Ks y1 y4 − y6
//! ```
//!
//! with `k2 = 0.58, k3 = 0.09, k4 = 0.42, K = 34.4, Ks = 115.83, p_CO2 = 0.9, H = 737`,
//! `y(0) = (0.444, 0.00123, 0, 0.007, 0, Ks · 0.444 · 0.007)` (consistent, as are the zero
//! initial sensitivities: `dy6/dp = Ks (y4 dy1/dp + y1 dy4/dp) = 0` at t = 0). diffsol's
//! `bdf_sens`/`esdirk34_sens`/`tr_bdf2_sens` also run their consistent-initialisation Newton
//! solve on the algebraic part (a no-op here). Same equations as
//! `examples/reproduce/models/stiff.rs` (hysens) and bench/reference/stiff_references.py.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

const K2: f64 = 0.58;
const K3: f64 = 0.09;
const K4: f64 = 0.42;
const BIG_K: f64 = 34.4;
const KS: f64 = 115.83;
const P_CO2: f64 = 0.9;
const HENRY: f64 = 737.0;

/// Build and solve P6 to `case.t_end`; outputs `y1..y6`, sensitivities `dy/d(k1, kla)`.
pub fn solve(case: &Case, method: Method) -> RunResult {
    let p = case.params;
    let problem = OdeBuilder::<M>::new()
        .p(p.iter().copied())
        .rtol(case.rtol)
        .atol([case.atol])
        .sens_rtol(case.rtol)
        .sens_atol([case.atol])
        .param_scales(p.iter().map(|x| x.abs()))
        .rhs_sens_implicit(
            |y, p, _t, f| {
                let sq = y[1].sqrt();
                let r1 = p[0] * y[0].powi(4) * sq;
                let r2 = K2 * y[2] * y[3];
                let r3 = K2 / BIG_K * y[0] * y[4];
                let r4 = K3 * y[0] * y[3] * y[3];
                let r5 = K4 * y[5] * y[5] * sq;
                let inflow = p[1] * (P_CO2 / HENRY - y[1]);
                f[0] = -2.0 * r1 + r2 - r3 - r4;
                f[1] = -0.5 * r1 - r4 - 0.5 * r5 + inflow;
                f[2] = r1 - r2 + r3;
                f[3] = -r2 + r3 - 2.0 * r4;
                f[4] = r2 - r3 + r5;
                f[5] = KS * y[0] * y[3] - y[5];
            },
            |y, p, _t, v, jv| {
                let sq = y[1].sqrt();
                let dr1 =
                    p[0] * (4.0 * y[0].powi(3) * sq * v[0] + y[0].powi(4) / (2.0 * sq) * v[1]);
                let dr2 = K2 * (y[3] * v[2] + y[2] * v[3]);
                let dr3 = K2 / BIG_K * (y[4] * v[0] + y[0] * v[4]);
                let dr4 = K3 * (y[3] * y[3] * v[0] + 2.0 * y[0] * y[3] * v[3]);
                let dr5 = K4 * (2.0 * y[5] * sq * v[5] + y[5] * y[5] / (2.0 * sq) * v[1]);
                let dinflow = -p[1] * v[1];
                jv[0] = -2.0 * dr1 + dr2 - dr3 - dr4;
                jv[1] = -0.5 * dr1 - dr4 - 0.5 * dr5 + dinflow;
                jv[2] = dr1 - dr2 + dr3;
                jv[3] = -dr2 + dr3 - 2.0 * dr4;
                jv[4] = dr2 - dr3 + dr5;
                jv[5] = KS * (y[3] * v[0] + y[0] * v[3]) - v[5];
            },
            |y, _p, _t, v, fp| {
                let dr1 = y[0].powi(4) * y[1].sqrt() * v[0];
                let dinflow = (P_CO2 / HENRY - y[1]) * v[1];
                fp[0] = -2.0 * dr1;
                fp[1] = -0.5 * dr1 + dinflow;
                fp[2] = dr1;
                fp[3] = 0.0;
                fp[4] = 0.0;
                fp[5] = 0.0;
            },
        )
        .mass(|x, _p, _t, beta, y| {
            for (y, x) in y.iter_mut().zip(x).take(5) {
                *y = *x + beta * *y;
            }
            y[5] *= beta;
        })
        .init_sens(
            |_p, _t, y| {
                y[0] = 0.444;
                y[1] = 0.00123;
                y[2] = 0.0;
                y[3] = 0.007;
                y[4] = 0.0;
                y[5] = KS * 0.444 * 0.007;
            },
            |_p, _t, _v, s| s.fill(0.0),
            6,
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1, 2, 3, 4, 5]))
}
