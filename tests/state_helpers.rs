//! Helpers that return the states: a mode, a DAE mode's derivatives, a reset and the initial
//! state written through plain functions of the model's variables
//! (`fn free_fall(x: &X, p: &P) -> X { .. }`). The macro inlines them and differentiates the
//! result, so a model written with them is the same model as the one written out: every
//! number of a solve with sensitivities and of the adjoint gradient is equal bit for bit (the
//! symbolic engine builds the same expressions, so the generated kernels compute the same
//! operations in the same order).
#![deny(missing_docs)]

use crate::closed_form;
use crate::event_models;
use crate::language_models as models;

use closed_form::forward_and_adjoint;
use event_models::{with_helpers, written_out};
use hysens::prelude::*;
use models::filled_tank;

/// `(solution, gradient)` of the ball `$ball` (`written_out` or `with_helpers`) dropped from
/// `h0` at rest with `(g, c, e, v0)`: [`forward_and_adjoint!`] on `[0, 3]` at rtol 1e-9.
macro_rules! bounces {
    ($ball:ident, $h0:expr, ($g:expr, $c:expr, $e:expr, $v0:expr)) => {
        forward_and_adjoint!(
            $ball::Model,
            (1e-9, 1e-11),
            3.0,
            &$ball::X { h: $h0, v: 0.0 },
            &$ball::P {
                g: $g,
                c: $c,
                e: $e,
                v0: $v0
            }
        )
    };
}

/// The two balls give the same numbers, bit for bit: states, sensitivities, event times and
/// their derivatives, cost and gradient, forward and adjoint.
#[test]
fn a_model_through_helpers_is_the_model_written_out() {
    let (g, c, e, v0, h0) = (9.81, 0.3, 0.8, 2.0, 1.0);
    let (a, ga) = bounces!(written_out, h0, (g, c, e, v0));
    let (b, gb) = bounces!(with_helpers, h0, (g, c, e, v0));
    assert!(
        a.events.len() >= 3,
        "the ball bounces: {} events",
        a.events.len()
    );
    assert_eq!((a.y, a.cost), (b.y, b.cost));
    assert_eq!(a.events, b.events);
    for wrt in ["g", "c", "e", "v0"] {
        assert_eq!(a.cost_gradient(wrt), b.cost_gradient(wrt), "dG/d{wrt}");
        assert_eq!(
            a.sensitivity("v", wrt),
            b.sensitivity("v", wrt),
            "dv/d{wrt}"
        );
    }
    assert_eq!(
        (ga.params, ga.initial_states),
        (gb.params, gb.initial_states)
    );
}

/// A DAE mode's derivatives through a helper (the filled tank, whose mode calls `falling_with`,
/// filled to all of the given height): `h = h0 e^{−kT}`, `dh/dk = −T h` (rtol 1e-12: the
/// exponential's global error ~1e-11 relative).
#[test]
fn a_dae_mode_through_a_helper() {
    let (k, h0, t_end) = (0.4, 2.0, 3.0);
    let p = filled_tank::P { k, fill: 1.0 };
    let start = filled_tank::X { h: h0 };
    let solution = filled_tank::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, t_end, &start, &p)
        .expect("solve");
    let exact = h0 * (-k * t_end).exp();
    assert!((solution.y[0] - exact).abs() < 1e-10 * exact);
    let dk = solution.sensitivity("h", "k").unwrap();
    assert!(
        (dk + t_end * exact).abs() < 1e-10 * t_end * exact,
        "dh/dk = {dk}"
    );
}
