//! P2 in diffsol: the bouncing ball, `z' = v`, `v' = -g`, impact when `z` crosses 0,
//! `v^+ = -gamma v^-`; parameters `p = (z0, v0, g, gamma)`, `z(0) = z0`, `v(0) = v0`.
//!
//! ```text
//! root    r(u, p) = z
//! reset   R(u, p) = (0, -gamma v)
//! ```
//!
//! The reset puts the ball exactly on the floor (`z^+ = 0`) rather than keeping the
//! interpolated `z^-`: diffsol returns the root on the far side of the crossing (z^- is a tiny
//! negative number) and re-arms its root finder at the reset state, so keeping `z^-` would make
//! the next step see a second sign change and bounce the ball again. With `z^+ = 0` the jump
//! formula gives `s_z^+ = -v^+ tau`, the derivative of "z = 0 at t_impact(p)", i.e. the same
//! sensitivity as the identity map on the constraint `s_z^- + v^- tau = 0`.

use diffsol::OdeBuilder;

use super::{solve_to_end, Method, M};
use crate::case::{Case, RunResult};

/// Appends P2's equations to a `diffsol::OdeBuilder`: the right-hand side, the initial state,
/// the root and the reset, each with its sensitivity products, parameters `p = (z0, v0, g,
/// gamma)`. `$zero_z` (a `bool`) picks the reset of the height: `z^+ = 0` (`true`, the
/// benchmark's, see the module docs) or `z^+ = z^-` (`examples/p2_reset_variants.rs` compares
/// the two). A macro because each closure has a type of its own, which the builder's type
/// carries.
#[macro_export]
macro_rules! p2_bouncing_ball_equations {
    ($builder:expr, $zero_z:expr) => {{
        let zero_z: bool = $zero_z;
        $builder
            .rhs_sens_implicit(
                |u, p, _t, f| {
                    f[0] = u[1];
                    f[1] = -p[2];
                },
                |_u, _p, _t, v, jv| {
                    jv[0] = v[1];
                    jv[1] = 0.0;
                },
                |_u, _p, _t, v, fp| {
                    fp[0] = 0.0;
                    fp[1] = -v[2];
                },
            )
            .init_sens(
                |p, _t, u| {
                    u[0] = p[0];
                    u[1] = p[1];
                },
                |_p, _t, v, s| {
                    s[0] = v[0];
                    s[1] = v[1];
                },
                2,
            )
            .root_sens_implicit(
                |u, _p, _t, r| r[0] = u[0],
                |_u, _p, _t, v, rv| rv[0] = v[0],
                |_u, _p, _t, _v, rp| rp[0] = 0.0,
                1,
            )
            .reset_sens_implicit(
                move |u, p, _t, r| {
                    r[0] = if zero_z { 0.0 } else { u[0] };
                    r[1] = -p[3] * u[1];
                },
                move |_u, p, _t, v, rv| {
                    rv[0] = if zero_z { 0.0 } else { v[0] };
                    rv[1] = -p[3] * v[1];
                },
                |u, _p, _t, v, rp| {
                    rp[0] = 0.0;
                    rp[1] = -u[1] * v[3];
                },
            )
    }};
}

/// Build and solve P2; outputs `[z(T), v(T)]`, sensitivities to `(z0, v0, g, gamma)`.
pub fn solve(case: &Case, method: Method) -> RunResult {
    let p = case.params;
    let problem = OdeBuilder::<M>::new()
        .p(p.iter().copied())
        .rtol(case.rtol)
        .atol([case.atol])
        .sens_rtol(case.rtol)
        .sens_atol([case.atol])
        .param_scales(p.iter().map(|x| x.abs()));
    let problem = crate::p2_bouncing_ball_equations!(problem, true)
        .build()
        .map_err(|e| format!("diffsol build: {e}"))?;
    let end = solve_to_end(&problem, method, case.t_end)?;
    Ok(end.select(&[0, 1]))
}
