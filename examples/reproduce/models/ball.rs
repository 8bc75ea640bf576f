//! The bouncing ball: free flight under gravity `g`, an impact when the height falls through
//! zero, and a reset that reverses the velocity with restitution `e`; two terminal costs (the
//! final height and the final mechanical energy per unit mass).
//!
//! Shared by `cargo run --example reproduce` (against the closed form of the flight arcs) and
//! the facade's tests, which include this file by `#[path]` through
//! `tests/support/event_models.rs`.

use hysens::hybrid_model;

/// A ball bouncing on the ground.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height above the ground.
        pub h: f64,
        /// Upward velocity.
        pub v: f64,
    }

    /// Gravity and restitution.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
        /// Coefficient of restitution.
        pub e: f64,
    }

    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
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
    fn height(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}
