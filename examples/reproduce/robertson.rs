//! Robertson's stiff kinetics, k = (0.04, 3e7, 1e4) from y(0) = (1, 0, 0), with
//! ESDIRK4(3)6L[2]SA: the concentrations at t = 40, and the concentrations with their
//! sensitivities to the three rate constants at t = 1e5.
//!
//! Neither Kristensen, Jørgensen, Thomsen & Jørgensen (2005), who test on the Dow Chemical
//! benchmark (§5), nor Christensen, Cantisani & Jørgensen mention Robertson's problem, so the
//! references are those the test suite checks against:
//!
//! - t = 40: Hairer & Wanner II, §IV.10 (the standard literature values), at rtol 1e-8 and
//!   atol (1e-10, 1e-14, 1e-10) scaled to each concentration; 1e-6 relative, from
//!   `tests/esdirk_accuracy.rs`, `robertson_ode_and_dae`.
//! - t = 1e5: `bench/reference/robertson_fsa.py` (scipy LSODA at rtol 1e-12 on the state and
//!   sensitivity system, cross-checked by LSODA at other tolerances, Radau and central
//!   differences to ≲ 1e-9 relative), at rtol 1e-6, atol 1e-10; 1e-4 relative for every state
//!   and sensitivity, from `tests/robertson_fsa.rs`, `check_1e5`.
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::prelude::*;

use crate::robertson_model::{robertson, CLASSIC_RATES, CLASSIC_Y0};
use crate::robertson_reference as reference;
use crate::table::{Bound, Row};

const CASE: &str = "Robertson";

/// The state names, in the model's order.
const STATES: [&str; 3] = ["y1", "y2", "y3"];
/// The parameter names, in the model's order.
const PARAMS: [&str; 3] = ["k1", "k2", "k3"];

/// y(40), Hairer & Wanner II §IV.10 (as quoted by `esdirk_accuracy.rs`).
const Y_40: [f64; 3] = [0.7158270687193, 9.185534764557e-6, 0.2841637457452];
/// The rows of Robertson's problem.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let mut rows = at_40()?;
    rows.extend(at_1e5()?);
    Ok(rows)
}

/// The concentrations at t = 40.
fn at_40() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let mut options = HybridOptions::new(1e-8, 1e-10);
    options.integrator.atol_y = [1e-10, 1e-14, 1e-10];
    let solution =
        robertson::Model
            .solver()
            .options(options)
            .solve(0.0, 40.0, &CLASSIC_Y0, &CLASSIC_RATES)?;
    let rows = STATES.iter().enumerate().map(|(i, name)| {
        // esdirk_accuracy.rs: 1e-6 relative in every component.
        let quantity = format!("{name}(40)");
        Row::new(
            CASE,
            quantity,
            Y_40[i],
            solution.y[i],
            Bound::Relative(1e-6),
        )
    });
    Ok(rows.collect())
}

/// The concentrations and their sensitivities at t = 1e5.
fn at_1e5() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let solution = robertson::Model
        .solver()
        .tolerances(1e-6, 1e-10)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 1e5, &CLASSIC_Y0, &CLASSIC_RATES)?;
    // robertson_fsa.rs: 1e-4 relative for every state and sensitivity.
    let bound = Bound::Relative(1e-4);
    let mut rows = Vec::new();
    for (i, name) in STATES.into_iter().enumerate() {
        rows.push(Row::new(
            CASE,
            format!("{name}(1e5)"),
            reference::Y_1E5[i],
            solution.y[i],
            bound,
        ));
    }
    for (i, name) in STATES.into_iter().enumerate() {
        for (q, k) in PARAMS.into_iter().enumerate() {
            let value = solution.sensitivity(name, k).unwrap_or(f64::NAN);
            let quantity = format!("d{name}(1e5)/d{k}");
            rows.push(Row::new(
                CASE,
                quantity,
                reference::S_1E5[i][q],
                value,
                bound,
            ));
        }
    }
    Ok(rows)
}
