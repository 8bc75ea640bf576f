//! The model of the parameter-estimation example: a ball dropped on the floor, losing a
//! fraction `e` of its speed at each impact, with heights measured at sample times. The
//! sampled cost `½ (h(t_k) − d_k)²` makes the objective `G = ½ Σ_k (h(t_k) − d_k)²`, the
//! least-squares misfit that `hysens::argmin::Fit` minimizes over `g` and `e`.

use hysens::hybrid_model;

/// The bouncing ball with a sampled least-squares cost on its height.
#[hybrid_model]
pub mod ball {
    /// The differential states.
    #[states]
    pub struct X {
        /// Height above the floor (m).
        pub h: f64,
        /// Upward velocity (m/s).
        pub v: f64,
    }

    /// The parameters the fit estimates.
    #[params]
    pub struct P {
        /// Gravitational acceleration (m/s²).
        pub g: f64,
        /// Coefficient of restitution.
        pub e: f64,
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    /// The ball reaches the floor: `h` crosses zero going down.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }

    /// The velocity reverses and shrinks by `e`.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    /// `½ (h(t_k) − d_k)²` at each sample time, against the measured height `d_k`.
    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        0.5 * (x.h - d).powi(2)
    }
}
