//! P1 in diffsol: Serban & Recuero Ex. 5.1, a scalar ODE whose right-hand side switches on the
//! sign of `h(x, p) = x^3 - 5x^2 + 7x - p`.
//!
//! diffsol has one right-hand side per problem, so the discrete mode is carried as an extra
//! state `m` (0 = mode A `x' = 4 - x`, 1 = mode B `x' = 10 - 2x`) with `m' = 0`:
//!
//! ```text
//! states  u = (x, q, m),   q = ∫ x dt  (the cost G; diffsol refuses `integrate_out` together
//!                                       with forward sensitivities, so G is a state)
//! rhs     x' = (1 - m)(4 - x) + m(10 - 2x),   q' = x,   m' = 0
//! root    r(u, p) = h(x, p)                   (diffsol stops at every sign change)
//! reset   R(u) = (x, q, 1 - m)                (state continuous, mode flipped)
//! ```
//!
//! `solve_dense_sensitivities` applies the reset at each root and corrects the sensitivities
//! with diffsol's jump formula (see `runners/diffsol/mod.rs`): here `R_x f^- - f^+` is
//! `(xdot^- - xdot^+, 0, 0)` and `tau = -(h_x s^- + h_p) / (h_x xdot^-)`, which is exactly the
//! paper's Eq. 40-41, so diffsol *does* apply the hidden jump of this problem. (Without a root
//! and reset, s would stay identically 0: x(0) = 0 and neither f depends on p.)
//!
//! The initial mode is the one with `h(x0, p) <= 0` -> A for p = 2.9.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

/// Build and solve P1; outputs `[x(5), G]`, sensitivities `[[dx(5)/dp, dG/dp]]`.
pub fn solve(case: &Case, method: Method) -> RunResult {
    let p = case.params[0];
    let h = |x: f64, p: f64| x * x * x - 5.0 * x * x + 7.0 * x - p;
    let m0 = if h(0.0, p) <= 0.0 { 0.0 } else { 1.0 };
    let problem = OdeBuilder::<M>::new()
        .p([p])
        .rtol(case.rtol)
        .atol([case.atol])
        .sens_rtol(case.rtol)
        .sens_atol([case.atol])
        .param_scales([p.abs()])
        .rhs_sens_implicit(
            |u, _p, _t, f| {
                let (x, m) = (u[0], u[2]);
                f[0] = (1.0 - m) * (4.0 - x) + m * (10.0 - 2.0 * x);
                f[1] = x;
                f[2] = 0.0;
            },
            |u, _p, _t, v, jv| {
                let (x, m) = (u[0], u[2]);
                jv[0] = -(1.0 + m) * v[0] + (6.0 - x) * v[2];
                jv[1] = v[0];
                jv[2] = 0.0;
            },
            |_u, _p, _t, _v, fp| fp.fill(0.0),
        )
        .init_sens(
            move |_p, _t, u| {
                u[0] = 0.0;
                u[1] = 0.0;
                u[2] = m0;
            },
            |_p, _t, _v, s| s.fill(0.0),
            3,
        )
        .root_sens_implicit(
            move |u, p, _t, r| r[0] = h(u[0], p[0]),
            |u, _p, _t, v, rv| {
                let x = u[0];
                rv[0] = (3.0 * x * x - 10.0 * x + 7.0) * v[0];
            },
            |_u, _p, _t, v, rp| rp[0] = -v[0],
            1,
        )
        .reset_sens_implicit(
            |u, _p, _t, r| {
                r[0] = u[0];
                r[1] = u[1];
                r[2] = 1.0 - u[2];
            },
            |_u, _p, _t, v, rv| {
                rv[0] = v[0];
                rv[1] = v[1];
                rv[2] = -v[2];
            },
            |_u, _p, _t, _v, rp| rp.fill(0.0),
        )
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1]))
}
