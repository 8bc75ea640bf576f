//! Hybrid models with events shared by the facade's tests: each `tests/model_*.rs` checks one
//! against its plain-Rust twin, and `tests/adjoint_events.rs` compares their adjoint with their
//! forward sensitivities. The ball is the `bouncing_ball` example's model, the EM oscillator
//! (`steel`) the `steel_hysteresis` example's, both included here.
// Each test binary that includes this file uses a subset of its models.
#![allow(dead_code, unused_imports)] // the re-exports of included model files too

use hysens::hybrid_model;

/// A ball bouncing on the ground (`examples/bouncing_ball/model.rs`, included here).
#[path = "../../examples/bouncing_ball/model.rs"]
mod ball_model;
pub use ball_model::ball;

/// The ball as an index-1 DAE: `v' = v² − w` with the algebraic `w` from
/// `0 = r + r³/10`, `r = w − v² − g` (solution `w = v² + g`, so `v' = −g` as for the ball,
/// but `f` reads `z`, `g` reads `y`, the constraint is nonlinear in `w` and `w` changes along
/// the flight: Newton's method and the sensitivities go through the algebraic rows).
#[hybrid_model]
pub mod dae_ball {
    /// The differential states.
    #[states]
    pub struct X {
        /// Height.
        pub h: f64,
        /// Velocity.
        pub v: f64,
    }

    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// `v² + g`.
        pub w: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub e: f64,
    }

    #[mode(initial)]
    fn flight(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        let r = z.w - x.v.powi(2) - p.g;
        (
            X {
                h: x.v,
                v: x.v.powi(2) - z.w,
            },
            [r + 0.1 * r.powi(3)],
        )
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    #[cost(terminal)]
    fn height(x: &X) -> f64 {
        x.h
    }

    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}

/// A two-mode index-1 DAE with algebraic guards, memory and an input.
#[hybrid_model]
pub mod two_mode {
    /// Differential states.
    #[states]
    pub struct X {
        /// Position.
        pub a: f64,
        /// Velocity.
        pub b: f64,
    }

    /// Algebraic variables.
    #[algebraic]
    pub struct Z {
        /// Force.
        pub w: f64,
        /// Switching signal.
        pub s: f64,
    }

    /// Parameters.
    #[params]
    pub struct P {
        /// Stiffness.
        pub k: f64,
        /// Damping.
        pub c: f64,
        /// Switching threshold on `s`.
        pub thr: f64,
        /// Restitution at the switch up.
        pub e: f64,
    }

    /// Inputs (held constant over a solve).
    #[inputs]
    pub struct U {
        /// Forcing amplitude.
        pub f0: f64,
    }

    /// A tenth: a module constant used in the expressions.
    const TENTH: f64 = 0.1;

    /// The spring force.
    fn spring(a: f64, p: &P) -> f64 {
        -p.k * a
    }

    #[mode(initial)]
    fn low(x: &X, z: &Z, p: &P, u: &U, t: f64) -> (X, [f64; 2]) {
        (
            X {
                a: x.b,
                b: spring(x.a, p) - p.c * x.b + z.w,
            },
            [
                z.w - u.f0 * t.sin() - z.s * x.a,
                z.s - (x.a * x.b).tanh() - TENTH * z.w,
            ],
        )
    }

    #[mode(initial_if(up, positive))]
    fn high(x: &X, z: &Z, p: &P, u: &U, m: &Memory) -> (X, [f64; 2]) {
        let damping = p.c * x.b.powi(3);
        (
            X {
                a: x.b,
                b: spring(x.a, p) - damping + z.w * z.s,
            },
            [
                z.w.exp() - 1.0 - u.f0 * x.b,
                z.s * (1.0 + x.a.powi(2)) - z.w.cosh() - m.z.s,
            ],
        )
    }

    #[guard(low -> high, rising)]
    fn up(z: &Z, p: &P) -> f64 {
        z.s - p.thr
    }

    #[guard(high -> low, falling)]
    fn down(x: &X, z: &Z, m: &Memory) -> f64 {
        x.a - m.y.a + z.w
    }

    #[reset(up)]
    fn kick(x: &X, z: &Z, p: &P, t: f64) -> X {
        X {
            a: x.a,
            b: -p.e * x.b + TENTH * z.w * t.sin(),
        }
    }

    #[cost(integral)]
    fn effort(x: &X, z: &Z) -> f64 {
        x.a.powi(2) + 0.5 * z.w.powi(2)
    }

    #[cost(integral)]
    fn drift(x: &X, m: &Memory) -> f64 {
        (x.a - m.y.a).powi(2)
    }

    #[cost(terminal)]
    fn final_state(x: &X, z: &Z, p: &P, t: f64) -> f64 {
        p.k * x.b.powi(2) + z.s * (0.5 * t).cos()
    }

    #[cost(sampled)]
    fn signal_misfit(z: &Z, d: f64) -> f64 {
        (z.s - d).powi(2)
    }
}

/// The exponential-model hysteretic oscillator (Serban & Recuero 2019, Example 5.2): the
/// `steel_hysteresis` example's model, included.
#[path = "../../examples/steel_hysteresis/model.rs"]
mod steel_model;
pub use steel_model::{steel, REFERENCE_ADJOINT_JUMPS, REFERENCE_ADJOINT_START};
