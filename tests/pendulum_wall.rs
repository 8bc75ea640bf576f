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
