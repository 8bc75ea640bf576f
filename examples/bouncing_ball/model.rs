//! The model of the `bouncing_ball` example: a ball in free flight under gravity that bounces
//! on the floor, losing a fraction of its speed at each impact (Newton's restitution law), with
//! two terminal costs (the final height and the final mechanical energy per unit mass).
//!
//! Shared by the `reproduce` example (against the closed form of the flight arcs) and the
//! facade's tests, which include this file by `#[path]` (`tests/support/event_models.rs`).

use hysens::hybrid_model;

/// A ball bouncing on the floor: `h' = v`, `v' = −g` in flight; when `h` falls through zero,
/// the velocity reverses and shrinks, `v⁺ = −e v⁻`.
#[hybrid_model]
pub mod ball {
    /// The differential states.
    #[states]
    pub struct X {
        /// Height above the floor (m).
        pub h: f64,
        /// Vertical velocity, up is positive (m/s).
        pub v: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// Gravitational acceleration (m/s²).
        pub g: f64,
        /// Coefficient of restitution (dimensionless, in `[0, 1]`).
        pub e: f64,
    }

    /// Free flight: the only mode.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    /// The impact: the height falls through zero.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// Newton's restitution law: the velocity reverses and shrinks by `e`.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    /// The final height.
    #[cost(terminal)]
    fn height(x: &X) -> f64 {
        x.h
    }

    /// The final mechanical energy per unit mass.
    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }
}
