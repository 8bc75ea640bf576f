//! Serban & Recuero 2019, Example 5.2: the exponential-model (EM) hysteretic oscillator, an
//! index-1 DAE whose modes read the memory (the state at the last velocity reversal).
//!
//! `u' = v`, `m v' = −A z + f(t)` with `f(t) = t sin(2πt)/2`, and the stress `z` given by
//! `0 = z − σ(u, u*, z*, p)` in the closed form of the EM law between reversals (the note
//! `000_serban_hybrid_asa.md`, §4.2, which also lists the paper's errata in this law). `u₀` and
//! `f̄` depend on `p` and are differentiated through the helpers.
//!
//! Shared by `cargo run --example reproduce` (against the note's reference values) and the
//! facade's tests, which include this file by `#[path]` through
//! `tests/support/event_models.rs`.

use hysens::hybrid_model;

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
