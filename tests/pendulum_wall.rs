//! The pendulum hitting a wall (`examples/pendulum_wall/model.rs`): the Cartesian index-2 model
//! against the angle ODE, forward and adjoint.

#[path = "../examples/pendulum_wall/model.rs"]
mod model;

use hysens::prelude::*;
use model::{angle, cartesian};

const TF: f64 = 5.0;
const NAMES: [&str; 5] = ["g", "l", "e", "d", "a"];

fn cartesian_params() -> cartesian::P {
    cartesian::P {
        g: 9.81,
        l: 1.0,
        e: 0.8,
        d: 0.3,
        a: 1.0,
    }
}

fn angle_params() -> angle::P {
    angle::P {
        g: 9.81,
        l: 1.0,
        e: 0.8,
        d: 0.3,
        a: 1.0,
    }
}

/// `|a − b|` relative to `max(|b|, 1)`.
fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

/// The Cartesian index-2 model against the angle ODE at rtol 1e-10 (both solved by hysens,
/// two formulations of one system): the impact times, the final state, the cost, their
/// derivatives with respect to all five parameters (forward sensitivities; the adjoint
/// gradient of the index-2 model too, equal to its forward one), and the constraints at the
/// end. The reference is solved at rtol 1e-12, so the differences are the index-2 model's.
/// Measured: 4 impacts, worst relative difference 4.0e-9 (`dy/dd`), forward and adjoint
/// gradients equal to 1e-15, the constraints at the end 6e-17 and 3e-17; asserted 1e-8
/// relative (to `max(|v|, 1)`), 1e-10 and 1e-12.
#[test]
fn cartesian_against_the_angle() {
    let rtol = 1e-10;
    let zero = cartesian::X {
        x: 0.0,
        y: 0.0,
        u: 0.0,
        w: 0.0,
    };
    let solver = cartesian::Model.solver().tolerances(rtol, rtol * 1e-2);
    let c = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, TF, &zero, &cartesian_params())
        .expect("solves");
    let gradient = solver
        .gradient(0.0, TF, &zero, &cartesian_params())
        .expect("solves");
    // The reference at a tighter tolerance, so that the differences are the index-2 model's.
    let a = angle::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, TF, &angle::X { th: 0.0, om: 0.0 }, &angle_params())
        .expect("solves");
    assert_eq!(c.events.len(), a.events.len());
    assert!(c.events.len() >= 2, "{} impacts", c.events.len());
    let mut worst = (0.0f64, String::new());
    let mut check = |what: String, v: f64, reference: f64| {
        if rel(v, reference) > worst.0 {
            worst = (rel(v, reference), what.clone());
        }
        assert!(rel(v, reference) < 1e-8, "{what}: {v} vs {reference}");
    };
    for (k, (ec, ea)) in c.events.iter().zip(&a.events).enumerate() {
        check(format!("t{k}"), ec.t, ea.t);
        for (q, name) in NAMES.iter().enumerate() {
            check(format!("dt{k}/d{name}"), ec.dt[q], ea.dt[q]);
        }
    }
    let (th, om) = (a.y[0], a.y[1]);
    let l = 1.0;
    check("x(T)".into(), c.y[0], l * th.sin());
    check("y(T)".into(), c.y[1], -l * th.cos());
    check("u(T)".into(), c.y[2], l * th.cos() * om);
    check("w(T)".into(), c.y[3], l * th.sin() * om);
    check("G".into(), c.cost, a.cost);
    for name in NAMES {
        let s = |of: &str| a.sensitivity(of, name).expect("computed");
        let dl = if name == "l" { 1.0 } else { 0.0 };
        // x = L sin θ: dx = dL sin θ + L cos θ dθ.
        check(
            format!("dx/d{name}"),
            c.sensitivity("x", name).unwrap(),
            dl * th.sin() + l * th.cos() * s("th"),
        );
        check(
            format!("dy/d{name}"),
            c.sensitivity("y", name).unwrap(),
            -dl * th.cos() + l * th.sin() * s("th"),
        );
        let dg = a.cost_gradient(name).unwrap();
        let (forward, adjoint) = (c.cost_gradient(name).unwrap(), gradient.wrt(name).unwrap());
        assert!(
            rel(adjoint, forward) < 1e-10,
            "dG/d{name}: {adjoint} vs {forward}"
        );
        check(
            format!("dG/d{name} (forward)"),
            c.cost_gradient(name).unwrap(),
            dg,
        );
        check(
            format!("dG/d{name} (adjoint)"),
            gradient.wrt(name).unwrap(),
            dg,
        );
        println!(
            "dG/d{name}: index-2 forward {:.12e}, adjoint {:.12e}, angle ODE {dg:.12e}",
            c.cost_gradient(name).unwrap(),
            gradient.wrt(name).unwrap()
        );
    }
    let (x, y, u, w) = (c.y[0], c.y[1], c.y[2], c.y[3]);
    let (position, velocity) = (0.5 * (x * x + y * y - l * l), x * u + y * w);
    println!(
        "{} impacts; worst relative difference {:e} ({}); constraints at the end {position:e}, {velocity:e}",
        c.events.len(),
        worst.0,
        worst.1
    );
    assert!(position.abs() < 1e-12 && velocity.abs() < 1e-12);
}

/// Every tolerance from 1e-3 to 1e-12 and rods of 1 mm, 1 m and 1 km (the wall alike,
/// `d = 0.3 L`; the time span `5 √L` s, the same swings), as a stranger would run it: each solve
/// succeeds with the angle model's number of impacts, its final angle within `100·rtol`
/// (relative to π) of the angle model's at rtol 1e-12, and the adjoint gradient equals the
/// forward one. Measured: the angle within 1.4–2.6 × rtol from 1e-6 on at every scale (1.9e-4
/// and 2.8e-4 at rtol 1e-3), the steps the same at every scale (449, 2000, 9187 at 1e-6, 1e-8,
/// 1e-10 for 1 m), the adjoint within 6e-14.
///
/// `atol` is `1e-2·rtol` for every component. The algebraic variables' tolerance matters in an
/// index-2 mode: with `atol` scaled by `L` for them too, `μ` (zero on the exact solution, a
/// rate that multiplies `q`) got a tolerance 1e3 times too loose at 1 km, and the angle was
/// 100 times rtol off (1.1e-5 at rtol 1e-7); with `atol_z` 1e-14 at 1 km, 42 000 steps at every
/// rtol (`μ`'s round-off then dominates the error test).
#[test]
fn every_tolerance_and_scale() {
    for l in [1e-3f64, 1.0, 1e3] {
        let (g, e, d, a) = (9.81, 0.8, 0.3 * l, 1.0);
        let tf = 5.0 * l.sqrt();
        let reference = angle::Model
            .solver()
            .tolerances(1e-12, 1e-14)
            .solve(
                0.0,
                tf,
                &angle::X { th: 0.0, om: 0.0 },
                &angle::P { g, l, e, d, a },
            )
            .expect("solves");
        let unused = cartesian::X {
            x: 0.0,
            y: 0.0,
            u: 0.0,
            w: 0.0,
        };
        let p = cartesian::P { g, l, e, d, a };
        for k in 3..=12 {
            let rtol = 10f64.powi(-k);
            let solver = cartesian::Model.solver().tolerances(rtol, rtol * 1e-2);
            let forward = solver
                .sensitivities_to(Params::All, InitialStates::None)
                .solve(0.0, tf, &unused, &p)
                .unwrap_or_else(|f| panic!("L = {l:e}, rtol {rtol:e}: {f}"));
            let gradient = solver
                .gradient(0.0, tf, &unused, &p)
                .unwrap_or_else(|f| panic!("L = {l:e}, rtol {rtol:e}: {f}"));
            assert_eq!(
                forward.events.len(),
                reference.events.len(),
                "L = {l:e}, rtol {rtol:e}"
            );
            let angle = forward.y[0].atan2(-forward.y[1]);
            let off = (angle - reference.y[0]).abs() / core::f64::consts::PI;
            let largest = NAMES
                .iter()
                .map(|n| forward.cost_gradient(*n).unwrap().abs())
                .fold(1e-300, f64::max);
            let adjoint = NAMES
                .iter()
                .map(|n| (gradient.wrt(*n).unwrap() - forward.cost_gradient(*n).unwrap()).abs())
                .fold(0.0, f64::max)
                / largest;
            println!(
                "L = {l:e}, rtol {rtol:e}: {} steps, angle off {off:.1e}, adjoint vs forward {adjoint:.1e}",
                forward.stats.steps
            );
            assert!(
                off < 100.0 * rtol,
                "L = {l:e}, rtol {rtol:e}: angle off {off:e}"
            );
            assert!(
                adjoint < 1e-8,
                "L = {l:e}, rtol {rtol:e}: adjoint {adjoint:e}"
            );
        }
    }
}
