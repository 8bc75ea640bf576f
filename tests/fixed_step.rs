//! `Solver::fixed_step`: steps of one size without error control (Christensen et al.'s
//! fixed-step mode), across an event, with forward sensitivities that are the exact derivative
//! of those steps (central differences of fixed-step solves) and an adjoint gradient equal to
//! them.
#![deny(missing_docs)]

use crate::event_models;

use event_models::ball;
use hysens::prelude::*;

/// The ball dropped from 1 m, to `t = 1` (one impact near 0.45 s), steps of 0.05.
fn solver() -> Solver<'static, ball::Model, 4, 2, 0, 2, 2, 4> {
    ball::Model
        .solver()
        .tableau(&hysens::runtime::ESDIRK34)
        .tolerances(1e-10, 1e-12)
        .fixed_step(0.05)
}

const X0: ball::X = ball::X { h: 1.0, v: 0.0 };

fn params(g: f64, e: f64) -> ball::P {
    ball::P { g, e }
}

#[test]
fn steps_are_the_given_size_and_sensitivities_are_their_derivative() {
    let solution = solver()
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 1.0, &X0, &params(9.81, 0.8))
        .expect("solve");
    assert_eq!(solution.events.len(), 1);
    // 20 steps of 0.05, plus the step cut at the impact: 21 accepted, none rejected.
    assert_eq!(solution.stats.steps, 21, "{:?}", solution.stats);
    assert_eq!(solution.stats.rejected_steps, 0);
    let fd = |which: usize| {
        let h = 1e-6;
        let at = |d: f64| {
            let (g, e) = if which == 0 {
                (9.81 + d, 0.8)
            } else {
                (9.81, 0.8 + d)
            };
            solver().solve(0.0, 1.0, &X0, &params(g, e)).unwrap().y
        };
        let (up, down) = (at(h), at(-h));
        [(up[0] - down[0]) / (2.0 * h), (up[1] - down[1]) / (2.0 * h)]
    };
    for (j, name) in ["g", "e"].into_iter().enumerate() {
        let fd = fd(j);
        for (i, state) in ["h", "v"].into_iter().enumerate() {
            let exact = solution.sensitivity(state, name).unwrap();
            // Central differences with step 1e-6 of a map with O(1) second derivatives:
            // truncation ~1e-12, round-off ~1e-10 (Newton converged to 1e-10 relative).
            assert!(
                (exact - fd[i]).abs() < 1e-7 * (1.0 + fd[i].abs()),
                "∂{state}/∂{name}"
            );
        }
    }
}

#[test]
fn the_adjoint_of_fixed_steps_equals_their_forward_sensitivities() {
    let p = params(9.81, 0.8);
    let forward = solver()
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 1.0, &X0, &p)
        .unwrap();
    let gradient = solver().gradient(0.0, 1.0, &X0, &p).expect("gradient");
    for name in ["g", "e"] {
        let (a, f) = (
            gradient.wrt(name).unwrap(),
            forward.cost_gradient(name).unwrap(),
        );
        assert!(
            (a - f).abs() < 1e-10 * (1.0 + f.abs()),
            "{name}: {a} vs {f}"
        );
    }
}

#[test]
fn a_step_size_that_is_not_positive_and_finite_is_an_error() {
    for h in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        let failure = ball::Model
            .solver()
            .fixed_step(h)
            .solve(0.0, 1.0, &X0, &params(9.81, 0.8))
            .unwrap_err();
        assert!(failure.to_string().contains("step size"), "{h}: {failure}");
    }
}
