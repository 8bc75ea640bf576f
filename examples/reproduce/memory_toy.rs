//! The memory toy, the project's own test problem (in no paper; defined in
//! `models/memory_toy.rs`), at p = (1, 1) on [0, 3], rtol 1e-10, atol 1e-12 with
//! ESDIRK4(3)6L[2]SA: G, its gradient by the forward sensitivities and by the discrete adjoint,
//! y2(3) and dy2(3)/dp. Its point: the memory's sensitivity must be the total derivative at the
//! moving switch (erratum of Serban & Recuero 2019, §4.1, Eq. 25: `s* = s_i⁺` holds only where
//! the memory's time derivative vanishes, in general `s* = s_i⁺ + ẏ_i⁺ τ_i`; read literally,
//! Eq. 25 gives dG/dp2 = −1.26424, wrong).
//!
//! References: exact values, from the toy's closed-form solution (two linear phases) evaluated
//! with mpmath.
//!
//! Tolerances: `tests/hybrid_memory.rs`, `memory_toy_total_derivative`
//! (forward), and `tests/adjoint_memory.rs`,
//! `adjoint_gradient_meets_the_reference_values` (adjoint): 1e-7 relative to max(|ref|, 1),
//! global errors at rtol 1e-10 being ≲ 2e-8 (dG/dp2 is a small difference of O(1) terms).
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use hysens::prelude::*;

use crate::memory_toy_model::memory_toy;
use crate::table::{Bound, Row};

const CASE: &str = "Memory toy (hysens test problem)";

/// G = ∫₀³ y2 dt (closed form).
const G: f64 = 2.76745584206517;
/// dG/dp (closed form).
const DG_DP: [f64; 2] = [-1.17346169177501, -0.128905834420503];
/// y2(3) (closed form).
const Y2_3: f64 = 1.496785275591945;
/// dy2(3)/dp (closed form).
const DY2_3_DP: [f64; 2] = [-0.8582352679472773, 0.2325441579348296];
/// The parameter names, in the model's order.
const PARAMS: [&str; 2] = ["p1", "p2"];

/// The bound of both tests.
const BOUND: Bound = Bound::RelativeToMax1(1e-7);

/// A computed derivative along the parameter named by its argument (NaN where there is none).
type ValueAlong<'a> = &'a dyn Fn(&str) -> f64;

/// The rows of the memory toy.
pub fn rows() -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let (x0, p) = (
        memory_toy::X { y1: 0.0, y2: 0.0 },
        memory_toy::P { p1: 1.0, p2: 1.0 },
    );
    let solver = memory_toy::Model.solver().tolerances(1e-10, 1e-12);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 3.0, &x0, &p)?;
    let adjoint = solver.gradient(0.0, 3.0, &x0, &p)?;

    let mut rows = vec![
        Row::new(CASE, "G", G, forward.cost, BOUND),
        Row::new(CASE, "y2(3)", Y2_3, forward.x.y2, BOUND),
    ];
    // The derivatives along each parameter: (of what, by which method, the references, the
    // computed value along a parameter).
    let derivatives: [(&str, &str, [f64; 2], ValueAlong); 3] = [
        ("dy2(3)", "", DY2_3_DP, &|name| {
            forward.sensitivity("y2", name).unwrap_or(f64::NAN)
        }),
        ("dG", " (FSA)", DG_DP, &|name| {
            forward.cost_gradient(name).unwrap_or(f64::NAN)
        }),
        ("dG", " (adjoint)", DG_DP, &|name| {
            adjoint.wrt(name).unwrap_or(f64::NAN)
        }),
    ];
    for (of, method, references, value) in derivatives {
        for (j, name) in PARAMS.into_iter().enumerate() {
            let quantity = format!("{of}/d{name}{method}");
            rows.push(Row::new(CASE, quantity, references[j], value(name), BOUND));
        }
    }
    Ok(rows)
}
