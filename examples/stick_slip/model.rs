//! The model of the `stick_slip` example: a mass on a spring, resting on a belt that moves at
//! the speed `v_b`, with dry friction between them that weakens linearly with the slip speed —
//! a Filippov system with one switching surface, the belt speed `v = v_b`.

use hysens::hybrid_model;

/// Position `x` (the spring's elongation), velocity `v` (over the ground), per unit mass:
/// `x' = v`, `v' = −ω² x + F`, with the friction `F = −a sign(v − v_b) + b (v − v_b)` — the
/// Coulomb level `a` at zero slip, weakening by `b` per unit slip speed (while `a − b|v − v_b|`
/// stays positive, as it does here). On the surface `v = v_b` the mass may stick to the belt
/// (Filippov sliding): `v` stays `v_b` and the friction's average, the equivalent friction
/// `F_eq = ω² x`, holds the spring while `|ω² x| < a`.
#[hybrid_model]
pub mod oscillator {
    /// The differential states.
    #[states]
    pub struct X {
        /// Position: the spring's elongation (m).
        pub x: f64,
        /// Velocity over the ground (m/s).
        pub v: f64,
    }

    /// The parameters.
    #[params]
    pub struct P {
        /// The spring's angular frequency `ω = √(k/m)` (1/s).
        pub omega: f64,
        /// The friction at zero slip, per unit mass, `μN/m` (m/s²): the mass sticks while the
        /// spring's pull `ω²|x|` is below it.
        pub a: f64,
        /// How fast the friction weakens with the slip speed `|v − v_b|` (1/s); 0 is Coulomb.
        pub b: f64,
        /// The belt's speed (m/s).
        pub vb: f64,
    }

    /// Slower than the belt (`v < v_b`): the belt drags the mass forward, `F = a + b(v − v_b)`.
    #[mode(initial)]
    fn slip_back(x: &X, p: &P) -> X {
        X {
            x: x.v,
            v: -p.omega * p.omega * x.x + p.a + p.b * (x.v - p.vb),
        }
    }

    /// Faster than the belt (`v > v_b`): the belt holds the mass back, `F = −a + b(v − v_b)`;
    /// the first mode when `v(0) > v_b`.
    #[mode(initial_if(belt, positive))]
    fn slip_forward(x: &X, p: &P) -> X {
        X {
            x: x.v,
            v: -p.omega * p.omega * x.x - p.a + p.b * (x.v - p.vb),
        }
    }

    /// The relative velocity `g = v − v_b` (m/s): crossing the belt speed, sticking to the belt
    /// (the sliding mode `belt_sliding`) and breaking loose are generated.
    #[switching_surface(slip_back, slip_forward)]
    fn belt(x: &X, p: &P) -> f64 {
        x.v - p.vb
    }

    /// The cost `G = ∫ x² dt` (m²·s): how far the spring is stretched, for how long.
    #[cost(integral)]
    fn elongation(x: &X) -> f64 {
        x.x * x.x
    }
}
