//! Integral costs limited to some modes: `#[cost(integral, modes(a, b))]` integrates its
//! integrand only while the solve is in those modes (zero elsewhere). The integrand then jumps
//! at a switch even where the state does not, and the objective's derivative has the
//! event-time term `(L⁻ − L⁺) τ` (Serban & Recuero 2019, Eq. 6): the discrete solution gets it
//! from the grid shift of the steps around the event, forward and adjoint alike. In a sliding
//! mode the integrand is the Filippov combination `(1 − α) L¹ + α L²` of its sides.
//!
//! Checked against closed forms differentiated with num-dual and FSA against the adjoint; the
//! flows are constant and the integrands polynomial of degree ≤ 2 in `t`, exact for the
//! ESDIRK4(3) tableau, so 1e-10 relative holds with margin at rtol 1e-10.
#![deny(missing_docs)]

use crate::adjoint_checks as adjoint;
use crate::closed_form;
use crate::language_models as models;

use closed_form::{adjoint_equals_forward, check_gradient, directions, forward_and_adjoint};
use models::{relay, two_speeds};
use num_dual::{Dual64, DualNum};

/// From `x0` below the level: `t1 = (level − x0)/va`, `x(T) = level + vc (T − t1)`;
/// `G = ∫ x dt + ∫_{t1}^{T} x² dt`.
#[test]
fn a_cost_in_one_mode_against_the_closed_form() {
    let (va, vc, level, x0, t_end) = (1.5, 0.7, 1.0, 0.2, 2.0);
    let p = two_speeds::P { va, vc, level };
    let start = two_speeds::X { x: x0 };
    let (solution, gradient) =
        forward_and_adjoint!(two_speeds::Model, (1e-10, 1e-12), t_end, &start, &p);
    let names = directions(&["va", "vc", "level"], &["x"]);
    let cost = |v: &[Dual64]| {
        let [va, vc, level, x0] = [v[0], v[1], v[2], v[3]];
        let t1 = (level - x0) / va;
        let x_end = level + vc * (-t1 + t_end);
        let position =
            (level * level - x0 * x0) / (va * 2.0) + (x_end * x_end - level * level) / (vc * 2.0);
        let squared_after = (x_end.powi(3) - level.powi(3)) / (vc * 3.0);
        position + squared_after
    };
    check_gradient(
        &solution,
        &gradient,
        &names,
        &[va, vc, level, x0],
        cost,
        1e-10,
    );
}

/// From `x0 + bias < 0`, the relay reaches the wall at `t1 = −(x0 + bias)/up` and slides until
/// its terminal guard stops it at `t_stop` (a guard of `below`, watched while sliding); the
/// time above is `α (t_stop − t1)` with `α = up/(up + down)`, and the stop adds `t_stop² + 0`.
#[test]
fn a_cost_of_one_side_is_shared_by_the_sliding_mode() {
    let (up, down, t_stop, bias, x0) = (1.0, 2.0, 2.5, -0.2, -0.3);
    let p = relay::Model::parameters(&relay::P { up, down, t_stop }, &relay::U { bias });
    let start = relay::X { x: x0 };
    let (solution, gradient) = forward_and_adjoint!(relay::Model, (1e-10, 1e-12), 10.0, &start, &p);
    let modes: Vec<&str> = solution.events.iter().map(|e| e.to).collect();
    assert_eq!(
        modes,
        ["wall_sliding", "stop"],
        "slides, then stops while sliding"
    );
    let names = directions(&["up", "down", "t_stop", "bias"], &["x"]);
    // The wall at t1 = −(x0 + bias)/up; on it until t_stop, where x = 0.
    let objective = |v: &[Dual64]| {
        let [up, down, t_stop, bias, x0] = [v[0], v[1], v[2], v[3], v[4]];
        let t1 = -(x0 + bias) / up;
        up / (up + down) * (t_stop - t1) + t_stop * t_stop
    };
    let values = [up, down, t_stop, bias, x0];
    check_gradient(&solution, &gradient, &names, &values, objective, 1e-10);
}

/// The no-heap adjoint against the forward sensitivities for every tableau, with an arbitrary
/// seed, and from checkpoints (`support/adjoint.rs`, 1e-10 relative).
#[test]
fn adjoint_equals_forward_for_every_tableau() {
    let p = two_speeds::P {
        va: 1.5,
        vc: 0.7,
        level: 1.0,
    };
    let problem = two_speeds::Model::problem(0.0, 2.0, &two_speeds::X { x: 0.2 }, &p);
    adjoint_equals_forward!("two speeds", two_speeds::Model, problem, events: true);
    let (p, u) = (
        relay::P {
            up: 1.0,
            down: 2.0,
            t_stop: 2.5,
        },
        relay::U { bias: -0.2 },
    );
    let problem = relay::Model::problem(0.0, 10.0, &relay::X { x: -0.3 }, &p, &u);
    adjoint_equals_forward!("relay", relay::Model, problem, events: true);
}
