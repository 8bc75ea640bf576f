//! A pendulum whose bob hits a wall: a constrained mechanical system with impacts, written as a
//! Hessenberg index-2 mode in Cartesian coordinates with the rod as a holonomic constraint
//! (`cartesian`), and the same pendulum in its angle, an ODE (`angle`), its reference.
//!
//! The Cartesian model is the stabilized index-2 form of Gear, Gupta & Leimkuhler (GGL) that
//! Corner, Sandu & Sandu's index-3 equations reduce to (`M = I`, `q = (x, y)`, `v = (u, w)`,
//! `Φ = (|q|² − L²)/2`, `Φ_q = qᵀ`):
//!
//! ```text
//! q' = v + Φ_qᵀ μ,   v' = F − Φ_qᵀ λ,   0 = Φ(q),   0 = Φ_q v
//! ```
//!
//! with `F = (0, −g)`: both the position and the velocity constraint hold at every stage, `μ`
//! (zero on the exact solution) absorbs the drift, `λ` is the rod's tension per unit length.
//! `k_y f_z = [[0, |q|²], [−|q|², q·v]]` is nonsingular. The wall at `x = −d` (a parameter: a
//! guard that moves with `ρ`) reverses the bob's velocity with restitution `e`,
//! `v⁺ = −e v⁻` — Corner et al.'s map (a)/(c) for one degree of freedom: the reset keeps
//! `Φ_q v⁺ = 0`, and the dependent velocity needs no projection. The rod length `L` is a
//! parameter of the constraint, and the start (released from rest at angle `a`) depends on
//! `L` and `a` (`#[initial_state]`).
//!
//! The angle model: `θ'' = −(g/L) sin θ`, the wall at `L sin θ = −d`, `θ'⁺ = −e θ'⁻`; on the
//! circle `x = L sin θ`, `y = −L cos θ`, `λ = (g cos θ + L θ'²)/L`.

#[hysens::hybrid_model]
pub mod cartesian {
    /// Position and velocity of the bob.
    #[states]
    pub struct X {
        /// Horizontal position.
        pub x: f64,
        /// Vertical position (up).
        pub y: f64,
        /// Horizontal velocity.
        pub u: f64,
        /// Vertical velocity.
        pub w: f64,
    }

    /// The multipliers of the position and velocity constraints.
    #[algebraic]
    pub struct Z {
        /// Tension per unit length.
        pub lam: f64,
        /// The velocity-level multiplier (zero on the exact solution).
        pub mu: f64,
    }

    /// Gravity, rod length, restitution, wall distance, release angle.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Rod length.
        pub l: f64,
        /// Restitution.
        pub e: f64,
        /// Distance of the wall left of the pivot.
        pub d: f64,
        /// Release angle from the downward vertical.
        pub a: f64,
    }

    /// Released from rest at angle `a`.
    #[initial_state]
    fn release(p: &P) -> X {
        X {
            x: p.l * p.a.sin(),
            y: -p.l * p.a.cos(),
            u: 0.0,
            w: 0.0,
        }
    }

    /// Swinging on the rod (GGL, index 2).
    #[mode(initial, index2)]
    fn swinging(x: &X, z: &Z, p: &P) -> (X, [f64; 2]) {
        (
            X {
                x: x.u + x.x * z.mu,
                y: x.w + x.y * z.mu,
                u: -x.x * z.lam,
                w: -p.g - x.y * z.lam,
            },
            [
                0.5 * (x.x * x.x + x.y * x.y - p.l * p.l),
                x.x * x.u + x.y * x.w,
            ],
        )
    }

    /// The bob reaches the wall.
    #[guard(swinging -> swinging, falling)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x + p.d
    }

    /// The impact: the velocity reversed with restitution `e`.
    #[reset(wall)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            x: x.x,
            y: x.y,
            u: -p.e * x.u,
            w: -p.e * x.w,
        }
    }

    /// The height at the end and the tension there.
    #[cost(terminal)]
    fn end(x: &X, z: &Z) -> f64 {
        x.y + 0.1 * z.lam
    }

    /// `∫ x² dt`.
    #[cost(integral)]
    fn spread(x: &X) -> f64 {
        x.x * x.x
    }
}

#[hysens::hybrid_model]
pub mod angle {
    /// The angle from the downward vertical and its rate.
    #[states]
    pub struct X {
        /// `θ`.
        pub th: f64,
        /// `θ'`.
        pub om: f64,
    }

    /// Gravity, rod length, restitution, wall distance, release angle.
    #[params]
    pub struct P {
        /// Gravity.
        pub g: f64,
        /// Rod length.
        pub l: f64,
        /// Restitution.
        pub e: f64,
        /// Distance of the wall left of the pivot.
        pub d: f64,
        /// Release angle.
        pub a: f64,
    }

    /// Released from rest at angle `a`.
    #[initial_state]
    fn release(p: &P) -> X {
        X { th: p.a, om: 0.0 }
    }

    /// Swinging.
    #[mode(initial)]
    fn swinging(x: &X, p: &P) -> X {
        X {
            th: x.om,
            om: -p.g / p.l * x.th.sin(),
        }
    }

    /// The bob reaches the wall.
    #[guard(swinging -> swinging, falling)]
    fn wall(x: &X, p: &P) -> f64 {
        p.l * x.th.sin() + p.d
    }

    /// The impact.
    #[reset(wall)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            th: x.th,
            om: -p.e * x.om,
        }
    }

    /// The same cost: `y + 0.1 λ` at the end.
    #[cost(terminal)]
    fn end(x: &X, p: &P) -> f64 {
        -p.l * x.th.cos() + 0.1 * (p.g * x.th.cos() + p.l * x.om * x.om) / p.l
    }

    /// `∫ x² dt`.
    #[cost(integral)]
    fn spread(x: &X, p: &P) -> f64 {
        p.l * p.l * x.th.sin() * x.th.sin()
    }
}
