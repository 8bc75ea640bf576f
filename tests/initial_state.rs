//! Initial states that depend on the parameters: `#[initial_state] fn I(x: &X, p: &P) -> X`
//! gives the state the solve starts from, `y0 = I(t0, x, p)`, from the states the caller
//! passes and the parameters. Sensitivities and gradients include `∂y0/∂p = I_p` (forward:
//! the seeded columns `I_x S + I_p`; adjoint: `dG/dp += I_pᵀ dG/dy0`), and the initial-state
//! directions are those of the caller's `x` (`dG/dx = I_xᵀ dG/dy0`).
//!
//! Checked against closed forms differentiated with num-dual, and the adjoint against the
//! forward sensitivities (for every tableau, with an arbitrary seed `∂x/∂p`, and from
//! checkpoints: `support/adjoint.rs`):
//!
//! - a projectile launched at a speed and an angle (parameters) from a given point, stopped
//!   when it lands: its range and its derivative with respect to the angle (`dR/dθ = 0` at
//!   45° from the ground);
//! - a tank filled to a fraction of a given height (`h0 = fill · x`), an index-1 DAE outflow,
//!   solved to a fixed time;
//! - a tank draining by Torricelli's law whose first algebraic guess comes from the model
//!   (`#[algebraic_guess]`), from the mapped state and the parameters.
#![deny(missing_docs)]

use crate::adjoint_checks as adjoint;
use crate::closed_form;
use crate::language_models as models;

use closed_form::{
    adjoint_equals_forward, assert_close, check_gradient, directions, forward_and_adjoint,
};
use hysens::prelude::*;
use models::{filled_tank, launch, torricelli, unparameterized};
use num_dual::{Dual64, DualNum};

/// The gravity of every launch here.
const G: f64 = 9.81;

/// The launch's start and parameters: from `(x, y)` with the caller's velocity `(vx, vy)`
/// (which the launch replaces), at `speed` and `angle` under [`G`].
fn launch_at(
    (x, y): (f64, f64),
    (vx, vy): (f64, f64),
    speed: f64,
    angle: f64,
) -> (launch::X, launch::P) {
    (launch::X { x, y, vx, vy }, launch::P { g: G, speed, angle })
}

/// The range from `(x0, h0)` at speed `s` and angle `θ`: `vx = s cos θ`, `vy = s sin θ`,
/// `T = (vy + √(vy² + 2 g h0))/g`, `R = x0 + vx T`. The caller's velocity is replaced by the
/// launch, so `dR/dvx0 = dR/dvy0 = 0`.
#[test]
fn the_range_and_its_gradient_include_the_launch() {
    let (g, speed, angle, x0, h0) = (G, 12.0, 0.6, 0.5, 1.5);
    // The caller's velocity is overwritten by the launch.
    let (start, p) = launch_at((x0, h0), (100.0, -100.0), speed, angle);
    let (solution, gradient) =
        forward_and_adjoint!(launch::Model, (1e-12, 1e-14), 100.0, &start, &p);
    let range = |v: &[Dual64]| {
        let [g, speed, angle, x0, h0] = [v[0], v[1], v[2], v[3], v[4]];
        let (vx, vy) = (speed * angle.cos(), speed * angle.sin());
        let t = (vy + (vy * vy + g * h0 * 2.0).sqrt()) / g;
        x0 + vx * t
    };
    let names = directions(&["g", "speed", "angle"], &["x", "y"]);
    let values = [g, speed, angle, x0, h0];
    check_gradient(&solution, &gradient, &names, &values, range, 1e-10);
    for velocity in ["vx", "vy"] {
        let wrt = Wrt::InitialState(velocity);
        assert_eq!(solution.cost_gradient(wrt), Ok(0.0), "FSA d/d{velocity}");
        assert_eq!(gradient.wrt(wrt), Ok(0.0), "adjoint d/d{velocity}");
    }
}

/// From the ground, the range `s² sin 2θ / g` is largest at 45°: its derivative with respect
/// to the angle vanishes there (to the solution's round-off).
#[test]
fn the_range_from_the_ground_is_stationary_at_45_degrees() {
    let (start, p) = launch_at((0.0, 0.0), (0.0, 0.0), 12.0, core::f64::consts::FRAC_PI_4);
    let gradient = launch::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .gradient(0.0, 100.0, &start, &p)
        .expect("gradient");
    assert_close("R", gradient.cost, 144.0 / G, 1e-12);
    let slope = gradient.wrt("angle").unwrap();
    assert!(slope.abs() < 1e-10, "dR/dθ at 45° = {slope:e}");
}

/// The DAE tank from `h0 = fill · x`: `h = h0 e^{−kT}`, `∫ q dt = h0 (1 − e^{−kT})`, and
/// `G = h0 (1 − e^{−kT}) + h0² e^{−2kT}`. At rtol 1e-12 the exponential's global error is
/// ~1e-11 relative.
#[test]
fn a_dae_starts_from_the_mapped_state() {
    let (k, fill, x, t_end) = (0.4, 0.75, 2.0, 3.0);
    let p = filled_tank::P { k, fill };
    let start = filled_tank::X { h: x };
    let (solution, gradient) =
        forward_and_adjoint!(filled_tank::Model, (1e-12, 1e-14), t_end, &start, &p);
    let cost = |v: &[Dual64]| {
        let [k, fill, x] = [v[0], v[1], v[2]];
        let h0 = fill * x;
        let decay = (-k * t_end).exp();
        h0 * (-decay + 1.0) + h0 * h0 * decay * decay
    };
    let names = directions(&["k", "fill"], &["h"]);
    check_gradient(&solution, &gradient, &names, &[k, fill, x], cost, 1e-9);
}

/// Torricelli's tank from `h0 = fill · x`, its algebraic variable `r = √(h + a)` guessed by the
/// model (`#[algebraic_guess]`; from `r = 0` Newton's method would meet a singular `g_z`):
/// `√(h + a)` falls linearly, `h(T) = (√(h0 + a) − kT/2)² − a`. The guess is not
/// differentiated (the consistent `r0` follows from `g = 0`), and the gradient is exact
/// without it. At rtol 1e-12 the global error is ~1e-11 relative.
#[test]
fn a_dae_starts_from_the_model_s_algebraic_guess() {
    let (k, a, fill, x, t_end) = (0.3, 0.5, 0.8, 2.0, 2.0);
    let p = torricelli::P { k, a, fill };
    let start = torricelli::X { h: x };
    let (solution, gradient) =
        forward_and_adjoint!(torricelli::Model, (1e-12, 1e-14), t_end, &start, &p);
    let level = |v: &[Dual64]| {
        let [k, a, fill, x] = [v[0], v[1], v[2], v[3]];
        let root = (fill * x + a).sqrt() - k * t_end * 0.5;
        root * root - a
    };
    let names = directions(&["k", "a", "fill"], &["h"]);
    check_gradient(&solution, &gradient, &names, &[k, a, fill, x], level, 1e-10);
    // The positive root, from the start on: r(0) = √(h0 + a).
    let first = torricelli::Model
        .solver()
        .samples(&[0.0])
        .solve(0.0, t_end, &start, &p)
        .expect("solves");
    assert_close("r(0)", first.samples[0].z[0], (fill * x + a).sqrt(), 1e-14);
}

/// The no-heap adjoint against the forward sensitivities for every tableau, with an arbitrary
/// seed `∂x/∂p` (so the forward map `I_x S + I_p` is exercised with `S ≠ 0`), and from
/// checkpoints (`support/adjoint.rs`, 1e-10 relative).
#[test]
fn adjoint_equals_forward_for_every_tableau() {
    let (start, p) = launch_at((0.5, 1.5), (0.0, 0.0), 12.0, 0.6);
    let problem = launch::Model::problem(0.0, 100.0, &start, &p);
    adjoint_equals_forward!("launch", launch::Model, problem, events: true);
    let p = filled_tank::P { k: 0.4, fill: 0.75 };
    let problem = filled_tank::Model::problem(0.0, 3.0, &filled_tank::X { h: 2.0 }, &p);
    adjoint_equals_forward!("filled tank", filled_tank::Model, problem, events: false);
    let p = torricelli::P {
        k: 0.3,
        a: 0.5,
        fill: 0.8,
    };
    let problem = torricelli::Model::problem(0.0, 2.0, &torricelli::X { h: 2.0 }, &p);
    adjoint_equals_forward!("Torricelli's tank", torricelli::Model, problem, events: false);
}

/// A model without parameters goes through every entry point with `NoParams` (the builder's
/// solve with sensitivities to its initial state, its gradient, the model's own `gradient`,
/// and the no-heap adjoint): `x = x0 e^{−t}`, `G = ∫ x dt = x0 (1 − e^{−T})`, `dG/dx0 = 1 −
/// e^{−T}` (rtol 1e-12: the exponential's global error ~1e-11 relative).
#[test]
fn a_model_without_parameters_takes_no_params() {
    let (x0, t_end) = (2.0, 1.5);
    let start = unparameterized::X { x: x0 };
    let (solution, gradient) = forward_and_adjoint!(
        unparameterized::Model,
        (1e-12, 1e-14),
        t_end,
        &start,
        &NoParams
    );
    let names = directions(&[], &["x"]);
    let area = |v: &[Dual64]| v[0] * (1.0 - (-t_end).exp());
    check_gradient(&solution, &gradient, &names, &[x0], area, 1e-10);
    // The model's own `gradient` solves at the builder's default tolerances (rtol 1e-6).
    let direct = unparameterized::Model
        .gradient(0.0, t_end, &start)
        .expect("the model's own gradient");
    let exact = 1.0 - (-t_end).exp();
    assert!((direct.initial_states[0] - exact).abs() < 1e-5 * exact);
    assert_eq!(unparameterized::Model::parameters(), NoParams);
    let problem = unparameterized::Model::problem(0.0, t_end, &start);
    adjoint_equals_forward!("no parameters", unparameterized::Model, problem, events: false);
}
