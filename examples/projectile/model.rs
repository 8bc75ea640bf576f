//! The model of the `projectile` example: a projectile launched at a speed and an angle (both
//! parameters, through `#[initial_state]`) from the point the caller gives, flying without
//! drag, and a terminal guard that ends the solve when it lands; the objective is the range.

use hysens::hybrid_model;

/// `x' = vx`, `y' = vy`, `vx' = 0`, `vy' = −g`, from `(x0, y0)` with
/// `(vx, vy) = speed (cos θ, sin θ)`, until `y` falls through 0.
#[hybrid_model]
pub mod launch {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Horizontal position (m).
        pub x: f64,
        /// Height (m).
        pub y: f64,
        /// Horizontal velocity (m/s).
        pub vx: f64,
        /// Vertical velocity (m/s).
        pub vy: f64,
    }

    /// Gravity and the launch.
    #[params]
    pub struct P {
        /// Gravitational acceleration (m/s²).
        pub g: f64,
        /// Launch speed (m/s).
        pub speed: f64,
        /// Launch angle above the horizontal (rad).
        pub angle: f64,
    }

    /// The launch: the caller's position, the velocity from the speed and the angle (the
    /// caller's velocity is not read).
    #[initial_state]
    fn launched(x: &X, p: &P) -> X {
        X {
            x: x.x,
            y: x.y,
            vx: p.speed * p.angle.cos(),
            vy: p.speed * p.angle.sin(),
        }
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X {
            x: x.vx,
            y: x.vy,
            vx: 0.0,
            vy: -p.g,
        }
    }

    /// The ground: the solve ends when the projectile lands.
    #[guard(flight -> stop, falling)]
    fn lands(x: &X) -> f64 {
        x.y
    }

    /// The range: where it lands.
    #[cost(terminal)]
    fn range(x: &X) -> f64 {
        x.x
    }
}
