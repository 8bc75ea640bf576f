//! The five-bar mechanism (`examples/five_bar/model.rs`: Corner, Sandu & Sandu 2019, §7, as
//! reconstructed in the project's notes; a constrained mechanism in a stabilized index-2 mode
//! with constrained impacts) against the notes' reference (`examples/five_bar/reference.rs`:
//! the index-1 form at tolerance 1e-13, trusted to about 1e-9), and its adjoint against its
//! forward gradient.

#[path = "../examples/five_bar/model.rs"]
mod model;
#[path = "../examples/five_bar/reference.rs"]
mod reference;

use hysens::prelude::*;
use model::five_bar;
use reference::{constraint_residuals, params, quantities, start, AT_1, AT_5, IMPACTS, QUANTITIES};

/// `|a − b|` relative to `max(|b|, 1)`.
fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// The nine impacts in `[0, 5]` (times, pre-impact `ẏ2`, the times' sensitivities) and the
/// state, the costs and their sensitivities at `T = 1` and `T = 5` against the reference, at
/// rtol 1e-10; the constraints at the end. Measured: worst 2.3e-8 relative (`∂ẏ2(5)/∂L02`,
/// −8.38: the sensitivities grow through nine impacts); the constraints 1.3e-15 (`|Φ|`);
/// asserted 1e-6 relative to `max(|v|, 1)` (the notes' suggested tolerance for this case) and
/// 1e-12.
#[test]
fn against_the_reference() {
    let mut worst = (0.0f64, String::new());
    let mut check = |what: String, v: f64, reference: f64| {
        if rel(v, reference) > worst.0 {
            worst = (rel(v, reference), what.clone());
        }
        assert!(rel(v, reference) < 1e-6, "{what}: {v} vs {reference}");
    };
    for (tf, reference) in [(1.0, &AT_1), (5.0, &AT_5)] {
        let solution = five_bar::Model
            .solver()
            .tolerances(1e-10, 1e-12)
            .sensitivities_to(Params::All, InitialStates::None)
            .solve(0.0, tf, &start::<five_bar::X>(), &params::<five_bar::P>())
            .expect("solves");
        let values = quantities(&solution);
        for (row, of) in ["", "d/dL01 ", "d/dL02 "].into_iter().enumerate() {
            for (i, name) in QUANTITIES.into_iter().enumerate() {
                check(
                    format!("{of}{name}({tf})"),
                    values[row][i],
                    reference[row][i],
                );
            }
        }
        let (position, velocity) = constraint_residuals(&solution.y);
        println!(
            "T = {tf}: {} impacts, |Φ| {position:.1e}, |Φ_q v| {velocity:.1e}",
            solution.events.len()
        );
        assert!(position < 1e-12 && velocity < 1e-12);
        if tf == 5.0 {
            assert_eq!(solution.events.len(), IMPACTS.len());
            for (k, (event, (t, w, dt))) in solution.events.iter().zip(IMPACTS).enumerate() {
                check(format!("t{k}"), event.t, t);
                check(format!("ẏ2⁻ at t{k}"), event.y_before[9], w);
                check(format!("dt{k}/dL01"), event.dt[0], dt[0]);
                check(format!("dt{k}/dL02"), event.dt[1], dt[1]);
            }
        }
    }
    println!("worst relative difference {:e} ({})", worst.0, worst.1);
}

/// The adjoint gradient of `z1 + z2` at `T = 5` (through nine constrained impacts) equals the
/// forward one of the same solve. Measured: 1.9e-12 (`L01`) and 7e-14 (`L02`) relative;
/// asserted 1e-10.
#[test]
fn adjoint_equals_forward() {
    let solver = five_bar::Model.solver().tolerances(1e-8, 1e-10);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &start::<five_bar::X>(), &params::<five_bar::P>())
        .expect("solves");
    let gradient = solver
        .gradient(0.0, 5.0, &start::<five_bar::X>(), &params::<five_bar::P>())
        .expect("solves");
    for name in ["l01", "l02"] {
        let (a, f) = (
            gradient.wrt(name).unwrap(),
            forward.cost_gradient(name).unwrap(),
        );
        println!("dG/d{name}: adjoint {a:.15e}, forward {f:.15e}");
        assert!(rel(a, f) < 1e-10, "dG/d{name}: {a} vs {f}");
    }
}
