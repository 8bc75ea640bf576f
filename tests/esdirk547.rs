//! ESDIRK5(4)7L[2]SA2 (Kennedy & Carpenter 2019), the fifth-order tableau: its order observed
//! with fixed steps, its forward sensitivities equal to its adjoint, and its work against the
//! default tableau on HIRES and Chemical Akzo Nobel at tight tolerances.
#![deny(missing_docs)]

use crate::models;
use crate::stiff;

use hysens::prelude::*;
use hysens::runtime::ESDIRK547L2SA2;
use models::{ex51, vdp};
use stiff::*;

/// Van der Pol with μ = 1 (not stiff) on [0, 2]: the error at t = 2 with fixed steps h and h/2
/// falls by 2⁵ for a fifth-order method, states and sensitivities alike.
#[test]
fn fixed_steps_converge_at_fifth_order() {
    let x0 = vdp::X { y1: 2.0, y2: 0.0 };
    let p = vdp::P { mu: 1.0 };
    let reference = vdp::Model
        .solver()
        .tolerances(1e-13, 1e-15)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 2.0, &x0, &p)
        .unwrap();
    let error = |h: f64| {
        let s = vdp::Model
            .solver()
            .tableau(&ESDIRK547L2SA2)
            .tolerances(1e-14, 1e-16)
            .fixed_step(h)
            .sensitivities_to(Params::All, InitialStates::None)
            .solve(0.0, 2.0, &x0, &p)
            .unwrap();
        let state = (s.y[0] - reference.y[0])
            .abs()
            .max((s.y[1] - reference.y[1]).abs());
        let sens = ["y1", "y2"]
            .iter()
            .map(|n| {
                (s.sensitivity(n, "mu").unwrap() - reference.sensitivity(n, "mu").unwrap()).abs()
            })
            .fold(0.0, f64::max);
        (state, sens)
    };
    let (coarse, fine) = (error(0.1), error(0.05));
    let orders = ((coarse.0 / fine.0).log2(), (coarse.1 / fine.1).log2());
    println!("observed orders (state, ∂/∂μ): {orders:?}; errors at h = 0.05: {fine:?}");
    // Fifth order within 0.5 (pre-asymptotic constants at h = 0.1; the errors, ≥ 1e-9, are far
    // above the reference's ~1e-12).
    assert!(orders.0 > 4.5 && orders.1 > 4.5, "{orders:?}");
}

/// The adjoint gradient through the fifth-order steps equals the forward one (the discrete
/// adjoint transposes whatever tableau ran), across the three switches of Serban & Recuero's
/// Ex. 5.1.
#[test]
fn adjoint_equals_forward_sensitivities_across_switches() {
    let solver = ex51::Model
        .solver()
        .tableau(&ESDIRK547L2SA2)
        .tolerances(1e-8, 1e-10);
    let (x0, p) = (ex51::X { x: 0.0 }, ex51::P { p: 2.9 });
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 5.0, &x0, &p)
        .unwrap();
    let adjoint = solver.gradient(0.0, 5.0, &x0, &p).unwrap();
    assert_eq!(forward.events.len(), 3);
    let (f, a) = (
        forward.cost_gradient("p").unwrap(),
        adjoint.wrt("p").unwrap(),
    );
    // Round-off of the two chains: 1e-10 relative (as for the other tableaus).
    assert!((f - a).abs() < 1e-10 * f.abs(), "{f} vs {a}");
    // And the gradient is right: the closed form of Serban & Recuero (§5.1).
    assert!((f + 2.3119531074438905).abs() < 1e-6, "{f}");
}

/// HIRES and Akzo at rtol 1e-8 and 1e-10: within 10 rtol of the references, and the work
/// against the default tableau (printed; `BENCHMARKS.md` quotes it).
#[test]
fn tight_tolerances_with_fewer_steps() {
    for rtol in [1e-8, 1e-10] {
        let atol = rtol * 1e-4;
        let h5 = hires::Model
            .solver()
            .tableau(&ESDIRK547L2SA2)
            .tolerances(rtol, atol)
            .solve(0.0, HIRES_T, &HIRES_Y0, &HIRES_P)
            .unwrap();
        let h4 = hires::Model
            .solver()
            .tolerances(rtol, atol)
            .solve(0.0, HIRES_T, &HIRES_Y0, &HIRES_P)
            .unwrap();
        let a5 = akzo::Model
            .solver()
            .tableau(&ESDIRK547L2SA2)
            .tolerances(rtol, atol)
            .solve(0.0, AKZO_T, &AKZO_Y0, &AKZO_P)
            .unwrap();
        let a4 = akzo::Model
            .solver()
            .tolerances(rtol, atol)
            .solve(0.0, AKZO_T, &AKZO_Y0, &AKZO_P)
            .unwrap();
        let err = |y: &[f64], r: &[f64]| {
            y.iter()
                .zip(r)
                .map(|(y, r)| ((y - r) / r).abs())
                .fold(0.0, f64::max)
        };
        let akzo_y = |s: &Solution<akzo::X, 5, 1, 2>| {
            let mut v = s.y.to_vec();
            v.push(s.z[0]);
            v
        };
        let (eh5, eh4) = (err(&h5.y, &HIRES_REFERENCE), err(&h4.y, &HIRES_REFERENCE));
        let (ea5, ea4) = (
            err(&akzo_y(&a5), &AKZO_REFERENCE),
            err(&akzo_y(&a4), &AKZO_REFERENCE),
        );
        println!(
            "rtol {rtol:.0e}: HIRES 5th {eh5:.1e} ({} steps, {} f), 4th {eh4:.1e} ({} steps, {} f); \
             Akzo 5th {ea5:.1e} ({} steps, {} f), 4th {ea4:.1e} ({} steps, {} f)",
            h5.stats.steps, h5.stats.f_evals, h4.stats.steps, h4.stats.f_evals,
            a5.stats.steps, a5.stats.f_evals, a4.stats.steps, a4.stats.f_evals
        );
        assert!(eh5 < 10.0 * rtol && ea5 < 10.0 * rtol, "{eh5} {ea5}");
    }
}
