//! The model of the `relay_sliding` example: a double integrator (a mass, per unit mass) under
//! a relay controller `u = −k sign(s)` on the switching line `s = x₂ + λ x₁`, with a constant
//! load `d` — a Filippov system with one switching surface, the line `s = 0`.

use hysens::hybrid_model;

/// Position `x₁`, velocity `x₂`: `x₁' = x₂`, `x₂' = u + d` with the relay output
/// `u = −k sign(x₂ + λ x₁)`. On the line `s = 0` the motion may slide (Filippov): `s` stays
/// zero and the relay's average, the equivalent control `u_eq = −(λ x₂ + d)`, holds it there
/// while `|u_eq| < k`.
#[hybrid_model]
pub mod relay {
    /// The differential states.
    #[states]
    pub struct X {
        /// Position (m).
        pub x1: f64,
        /// Velocity (m/s).
        pub x2: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The slope of the switching line `s = x₂ + λ x₁ = 0` (1/s): on it `x₁' = −λ x₁`.
        pub lambda: f64,
        /// The relay's amplitude (m/s²).
        pub k: f64,
        /// The constant load (m/s²).
        pub d: f64,
    }

    /// Below the line (`s < 0`): the relay pushes, `u = +k`.
    #[mode(initial)]
    fn below(x: &X, p: &P) -> X {
        X {
            x1: x.x2,
            x2: p.k + p.d,
        }
    }

    /// Above the line (`s > 0`): the relay brakes, `u = −k`; the first mode when `s(0) > 0`.
    #[mode(initial_if(line, positive))]
    fn above(x: &X, p: &P) -> X {
        X {
            x1: x.x2,
            x2: -p.k + p.d,
        }
    }

    /// The switching line `s = x₂ + λ x₁` (m/s): crossing it, sliding along it (the mode
    /// `line_sliding`) and leaving it are generated.
    #[switching_surface(below, above)]
    fn line(x: &X, p: &P) -> f64 {
        x.x2 + p.lambda * x.x1
    }

    /// The cost `G = ∫ x₁² dt` (m²·s): how far from the origin, for how long.
    #[cost(integral)]
    fn position_error(x: &X) -> f64 {
        x.x1 * x.x1
    }
}
