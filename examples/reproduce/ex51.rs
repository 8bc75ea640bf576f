//! Serban & Recuero 2019, Example 5.1 (the quickstart's model, p = 2.9, x(0) = 0 on [0, 5]),
//! at the quickstart's settings (rtol 1e-8, atol 1e-10, ESDIRK4(3)6L[2]SA): the three switch
//! times and their sensitivities, x(5), dx(5)/dp, G and dG/dp by the forward sensitivities and
//! by the discrete adjoint.
//!
//! References: the closed form of the problem (Eq. 39 solved phase by phase between the roots
//! of x³ − 5x² + 7x = p, the jumps of Eqs. 40–41), evaluated with mpmath at 40 digits; an
//! independent event-driven DOP853 run at rtol 1e-12 agrees to about 1e-13. The paper prints
//! only dG/dp = −2.31195, for FSA and for ASA (§5.1).
//!
//! Tolerances: `tests/hybrid_ex51.rs`, `ex51_reference_values`, the row of
//! ESDIRK4(3)6L at rtol 1e-8 (switch times 1e-7 absolute: they inherit the global error of
//! the state, δt = δx/ẋ), and `tests/adjoint_events.rs`, `ex51_adjoint_gradient_reference`
//! for the adjoint.
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::prelude::*;

use crate::ex51_model::ex51;
use crate::table::{event_time, Bound, Row};

const CASE: &str = "S&R Ex. 5.1";

/// The switch times t1, t2, t3 (closed form).
const SWITCH_TIMES: [f64; 3] = [0.21921592228980355, 0.27581259147348379, 1.2663478417960716];
/// dt_i/dp (closed form).
const SWITCH_TIME_SENSITIVITIES: [f64; 3] = [
    0.31570755009809896,
    0.02550807752556832,
    0.74491715157848093,
];
/// x(5) (closed form).
const X5: f64 = 4.9988424062172751;
/// dx(5)/dp (closed form).
const DX5_DP: f64 = -0.0015741079476662486;
/// G = ∫₀⁵ x dt (closed form).
const G: f64 = 20.029074653359594;
/// dG/dp (closed form; the paper prints −2.31195).
const DG_DP: f64 = -2.3119531074438905;
/// dG/dp as the paper prints it, for FSA and for ASA (§5.1).
const DG_DP_PAPER: &str = "-2.31195";

/// The rows of Example 5.1.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let (x0, p) = (ex51::X { x: 0.0 }, ex51::P { p: 2.9 });
    let solver = ex51::Model.solver().tolerances(1e-8, 1e-10);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &x0, &p)?;
    let adjoint = solver.gradient(0.0, 5.0, &x0, &p)?;

    // hybrid_ex51.rs asserts three events.
    let mut rows = vec![Row::count(
        CASE,
        "number of switches",
        3,
        forward.events.len(),
    )];
    for k in 0..3 {
        let i = k + 1;
        let t = event_time(&forward.events, k);
        // hybrid_ex51.rs: |t_i − t_i,ref| < 1e-7 (ESDIRK4(3)6L `t_tol`).
        rows.push(Row::new(
            CASE,
            format!("t{i}"),
            SWITCH_TIMES[k],
            t,
            Bound::Absolute(1e-7),
        ));
        // hybrid_ex51.rs: τ_i to 1e-6 relative (ESDIRK4(3)6L `tau_tol`).
        let tau = forward.event_time_sensitivity(k, "p").unwrap_or(f64::NAN);
        rows.push(Row::new(
            CASE,
            format!("dt{i}/dp"),
            SWITCH_TIME_SENSITIVITIES[k],
            tau,
            Bound::Relative(1e-6),
        ));
    }
    let dx5_dp = forward.sensitivity("x", "p").unwrap_or(f64::NAN);
    let dg_dp = forward.cost_gradient("p").unwrap_or(f64::NAN);
    let dg_dp_adjoint = adjoint.wrt("p").unwrap_or(f64::NAN);
    rows.extend([
        // hybrid_ex51.rs: x(5) to 5e-7 relative.
        Row::new(CASE, "x(5)", X5, forward.x.x, Bound::Relative(5e-7)),
        // hybrid_ex51.rs: dx(5)/dp to 2e-6 absolute (|s(5)| = 1.6e-3 is a small difference
        // of O(1) terms).
        Row::new(CASE, "dx(5)/dp", DX5_DP, dx5_dp, Bound::Absolute(2e-6)),
        // hybrid_ex51.rs: G to 1e-6 relative.
        Row::new(CASE, "G", G, forward.cost, Bound::Relative(1e-6)),
        // hybrid_ex51.rs: dG/dp to 1e-6 relative (ESDIRK4(3)6L `dg_tol`).
        Row::new(CASE, "dG/dp (FSA)", DG_DP, dg_dp, Bound::Relative(1e-6)).paper(DG_DP_PAPER),
        // tests/adjoint_events.rs, ex51_adjoint_gradient_reference: 1e-6 relative.
        Row::new(
            CASE,
            "dG/dp (adjoint)",
            DG_DP,
            dg_dp_adjoint,
            Bound::Relative(1e-6),
        )
        .paper(DG_DP_PAPER),
    ]);
    Ok(rows)
}
