//! Helpers that return the states: a mode, a DAE mode's derivatives, a reset and the initial
//! state written through plain functions of the model's variables
//! (`fn free_fall(x: &X, p: &P) -> X { .. }`). The macro inlines them and differentiates the
//! result, so a model written with them is the same model as the one written out: every
//! number of a solve with sensitivities and of the adjoint gradient is equal bit for bit (the
//! symbolic engine builds the same expressions, so the generated kernels compute the same
//! operations in the same order).
#![deny(missing_docs)]

use hysens::prelude::*;

/// A ball with linear drag, bouncing, written out.
#[hysens::hybrid_model]
pub mod written_out {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// Gravity, drag, restitution, launch speed.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Linear drag coefficient.
        pub c: f64,
        /// Restitution.
        pub e: f64,
        /// Launch speed.
        pub v0: f64,
    }

    /// Thrown up from the given height.
    #[initial_state]
    fn thrown(x: &X, p: &P) -> X {
        X { h: x.h, v: p.v0 }
    }

    /// Flight with drag.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X {
            h: x.v,
            v: -p.g - p.c * x.v,
        }
    }

    /// The floor.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    /// The height over time.
    #[cost(integral)]
    fn height(x: &X) -> f64 {
        x.h
    }
}

/// The same ball through helpers.
#[hysens::hybrid_model]
pub mod with_helpers {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// Gravity, drag, restitution, launch speed.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Linear drag coefficient.
        pub c: f64,
        /// Restitution.
        pub e: f64,
        /// Launch speed.
        pub v0: f64,
    }

    /// The state moving at `speed` from the height of `x`.
    fn moving(x: &X, speed: f64) -> X {
        X { h: x.h, v: speed }
    }

    /// Free fall with drag.
    fn free_fall(x: &X, p: &P) -> X {
        let drag = p.c * x.v;
        X {
            h: x.v,
            v: -p.g - drag,
        }
    }

    /// Thrown up from the given height.
    #[initial_state]
    fn thrown(x: &X, p: &P) -> X {
        moving(x, p.v0)
    }

    /// Flight with drag.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        free_fall(x, p)
    }

    /// The floor.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        moving(x, -p.e * x.v)
    }

    /// The height over time.
    #[cost(integral)]
    fn height(x: &X) -> f64 {
        x.h
    }
}

/// A DAE tank whose derivatives come from a helper: `h' = −q`, `0 = q − k h`.
#[hysens::hybrid_model]
pub mod dae_with_helper {
    /// The level.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
    }

    /// The outflow.
    #[algebraic]
    pub struct Z {
        /// Flow.
        pub q: f64,
    }

    /// The valve.
    #[params]
    pub struct P {
        /// Valve coefficient.
        pub k: f64,
    }

    /// The level falls with the outflow.
    fn outflow(z: &Z) -> X {
        X { h: -z.q }
    }

    /// Draining.
    #[mode(initial)]
    fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (outflow(z), [z.q - p.k * x.h])
    }

    /// The final level.
    #[cost(terminal)]
    fn level(x: &X) -> f64 {
        x.h
    }
}

/// The two balls give the same numbers, bit for bit: states, sensitivities, event times and
/// their derivatives, cost and gradient, forward and adjoint.
#[test]
fn a_model_through_helpers_is_the_model_written_out() {
    let (g, c, e, v0, h0) = (9.81, 0.3, 0.8, 2.0, 1.0);
    let a = written_out::Model
        .solver()
        .tolerances(1e-9, 1e-11)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(
            0.0,
            3.0,
            &written_out::X { h: h0, v: 0.0 },
            &written_out::P { g, c, e, v0 },
        )
        .expect("written out");
    let b = with_helpers::Model
        .solver()
        .tolerances(1e-9, 1e-11)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(
            0.0,
            3.0,
            &with_helpers::X { h: h0, v: 0.0 },
            &with_helpers::P { g, c, e, v0 },
        )
        .expect("with helpers");
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
    let ga = written_out::Model
        .gradient(
            0.0,
            3.0,
            &written_out::X { h: h0, v: 0.0 },
            &written_out::P { g, c, e, v0 },
        )
        .expect("adjoint, written out");
    let gb = with_helpers::Model
        .gradient(
            0.0,
            3.0,
            &with_helpers::X { h: h0, v: 0.0 },
            &with_helpers::P { g, c, e, v0 },
        )
        .expect("adjoint, with helpers");
    assert_eq!(
        (ga.params, ga.initial_states),
        (gb.params, gb.initial_states)
    );
}

/// The DAE mode's derivatives through a helper: `h = h0 e^{−kT}`, `dh/dk = −T h`
/// (rtol 1e-12: the exponential's global error ~1e-11 relative).
#[test]
fn a_dae_mode_through_a_helper() {
    let (k, h0, t_end) = (0.4, 2.0, 3.0);
    let solution = dae_with_helper::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(
            0.0,
            t_end,
            &dae_with_helper::X { h: h0 },
            &dae_with_helper::P { k },
        )
        .expect("solve");
    let exact = h0 * (-k * t_end).exp();
    assert!((solution.cost - exact).abs() < 1e-10 * exact);
    let dk = solution.cost_gradient("k").unwrap();
    assert!(
        (dk + t_end * exact).abs() < 1e-10 * t_end * exact,
        "dh/dk = {dk}"
    );
}
