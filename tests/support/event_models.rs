//! Hybrid models with events shared by the facade's tests: each `tests/model_*.rs` checks one
//! against its plain-Rust twin, and `tests/adjoint_events.rs` compares their adjoint with their
//! forward sensitivities.
// Each test binary that includes this file uses a subset of its models.
#![allow(dead_code)]

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

/// The exponential-model hysteretic oscillator (Serban & Recuero 2019, Example 5.2).
#[hybrid_model]
pub mod steel {
    /// Displacement and velocity.
    #[states]
    pub struct X {
        /// Deformation displacement `u`.
        pub u: f64,
        /// Velocity `v`.
        pub v: f64,
    }

    /// The internal stress.
    #[algebraic]
    pub struct Z {
        /// Stress `z`.
        pub z: f64,
    }

    /// The parameters of the exponential model.
    #[params]
    pub struct P {
        /// Stiffness `k_a`.
        pub k_a: f64,
        /// Stiffness `k_b`.
        pub k_b: f64,
        /// Rate `alpha`.
        pub alpha: f64,
        /// Rate `beta`.
        pub beta: f64,
    }

    /// Nodal mass `m`.
    const MASS: f64 = 1.0;
    /// Cross-section area `A`.
    const AREA: f64 = 1.0;
    /// The model's small constant `δ`.
    const DELTA: f64 = 1e-20;

    /// `u₀ = −ln(δ/(k_a − k_b))/(2α)`.
    fn u0(p: &P) -> f64 {
        -(DELTA / (p.k_a - p.k_b)).ln() / (2.0 * p.alpha)
    }

    /// `f̄ = (k_a − k_b)/(2α) (1 − exp(−2α u₀))`.
    fn fbar(p: &P) -> f64 {
        (p.k_a - p.k_b) / (2.0 * p.alpha) * (1.0 - (-2.0 * p.alpha * u0(p)).exp())
    }

    /// `g_β(u) = −2βu + 2 sinh(βu) + k_b u`.
    fn g_beta(u: f64, p: &P) -> f64 {
        -2.0 * p.beta * u + 2.0 * (p.beta * u).sinh() + p.k_b * u
    }

    /// The stress law `σ(u, u*, z*, p)` on the branch `ξ`.
    fn sigma(xi: f64, x: &X, m: &Memory, p: &P) -> f64 {
        let c = fbar(p) + DELTA / p.alpha;
        let e = (-p.alpha * xi * (x.u - m.y.u)).exp();
        g_beta(x.u, p) + xi * c - e * (g_beta(m.y.u, p) + xi * c - m.z.z)
    }

    /// The load `f(t) = t sin(2πt)/2` on the free end.
    fn load(t: f64) -> f64 {
        0.5 * t * (2.0 * core::f64::consts::PI * t).sin()
    }

    #[mode(initial)]
    fn loading(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 1]) {
        (
            X {
                u: x.v,
                v: (-AREA * z.z + load(t)) / MASS,
            },
            [z.z - sigma(1.0, x, m, p)],
        )
    }

    #[mode]
    fn unloading(x: &X, z: &Z, p: &P, m: &Memory, t: f64) -> (X, [f64; 1]) {
        (
            X {
                u: x.v,
                v: (-AREA * z.z + load(t)) / MASS,
            },
            [z.z - sigma(-1.0, x, m, p)],
        )
    }

    #[guard(loading -> unloading, falling)]
    fn reversal_down(x: &X) -> f64 {
        x.v
    }

    #[guard(unloading -> loading, rising)]
    fn reversal_up(x: &X) -> f64 {
        x.v
    }

    #[cost(integral)]
    fn deformation(x: &X) -> f64 {
        x.u.powi(2)
    }
}
