//! The model of the `steel_hysteresis` example: Serban & Recuero 2019, Example 5.2, a mass on a
//! bar whose internal force follows the exponential model (EM) of hysteresis — an index-1 DAE
//! whose modes read the state at the last velocity reversal (a system with memory, §4).
//!
//! `u' = v`, `m v' = −A z + f(t)` with the load `f(t) = t sin(2πt)/2` (Eq. 45), and the stress
//! `z` given by the algebraic equation `0 = z − σ(u, u*, z*, p)`, where `(u*, z*)` is the state
//! at the last reversal (the memory; at the start, the initial state) and, in the closed form
//! of the EM law (Eq. 46 with the derived memory variable `u*_i` of §5.2 substituted; it equals
//! Eq. 46 to about 3e-14 and is better conditioned; erratum of Serban & Recuero 2019, §5.2: the
//! printed `u*_i` has `sinh(βu*)`, which must read `2 sinh(βu*)` for `σ = z*` at `u = u*`):
//!
//! `σ = g_β(u) + ξ c − E (g_β(u*) + ξ c − z*)`, `g_β(u) = −2βu + 2 sinh(βu) + k_b u`,
//! `E = exp(−α ξ (u − u*))`, `c = f̄ + δ/α`,
//! `u₀ = −ln(δ/(k_a − k_b))/(2α)`, `f̄ = (k_a − k_b)/(2α) (1 − exp(−2α u₀))`, `δ = 1e-20`.
//!
//! The branch `ξ = sign(v)` is the mode: `loading` (`ξ = +1`) and `unloading` (`ξ = −1`); the
//! reversals are the zero crossings of `v`, with `u`, `v` (and so `z`) continuous. Between
//! reversals `σ` runs from `z*` at `u = u*` with the tangent stiffness `k_a` towards the
//! bounding branch `g_β(u) + ξ c` of slope `k_b`: the hysteresis loop. `u₀` and `f̄` depend
//! on `p`; as helpers of `P` they are differentiated with it (holding them fixed would give
//! `dG/dk_a = 0`, against the paper). The cost is the total deformation `G = ∫ u² dt`.
//!
//! The model exists only here: the facade's tests include this file by `#[path]` through
//! `tests/support/event_models.rs`.

use hysens::hybrid_model;

/// The exponential-model hysteretic oscillator (Serban & Recuero 2019, Example 5.2, Eq. 45–46).
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
        /// Stress `z` (the restoring force is `A z`).
        pub z: f64,
    }

    /// The parameters of the exponential model.
    #[params]
    pub struct P {
        /// Stiffness `k_a`: the tangent right after a reversal.
        pub k_a: f64,
        /// Stiffness `k_b`: the slope of the bounding branches.
        pub k_b: f64,
        /// Rate `alpha` at which the tangent goes from `k_a` to `k_b`.
        pub alpha: f64,
        /// Rate `beta` of the nonlinear (sinh) hardening of the bounding branches.
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

    /// Moving forward (`v > 0`, `ξ = +1`); the first mode.
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

    /// Moving back (`v < 0`, `ξ = −1`).
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

    /// The velocity falls through zero: loading → unloading.
    #[guard(loading -> unloading, falling)]
    fn reversal_down(x: &X) -> f64 {
        x.v
    }

    /// The velocity rises through zero: unloading → loading.
    #[guard(unloading -> loading, rising)]
    fn reversal_up(x: &X) -> f64 {
        x.v
    }

    /// The total deformation `G = ∫ u² dt`.
    #[cost(integral)]
    fn deformation(x: &X) -> f64 {
        x.u.powi(2)
    }
}

/// The paper's parameters (Serban & Recuero 2019, Example 5.2): `k_a = 32π²`, `k_b = π²`,
/// `α = 205`, `β = 0`.
#[allow(dead_code)] // the examples use it; the tests include this file too
pub fn paper_parameters() -> steel::P {
    let pi2 = core::f64::consts::PI.powi(2);
    steel::P {
        k_a: 32.0 * pi2,
        k_b: pi2,
        alpha: 205.0,
        beta: 0.0,
    }
}

/// The continuous adjoint of this model at the paper's parameters (Serban & Recuero 2019,
/// Ex. 5.2: Eq. 48 with the jumps of Algorithm 1, in the sign of the paper's §4, which is ours),
/// computed along an independent reference solve (DOP853 at rtol 1e-12, atol 1e-14), right
/// after the reversals in the paper's Fig. 8 window, `(t_k, λ₁(t_k⁺), λ₁(t_k⁻), λ₂(t_k))`, and
/// `λ(0⁺)` (7 digits given).
#[allow(dead_code)] // the example and the tests use it; `reproduce` includes this file too
pub const REFERENCE_ADJOINT_JUMPS: [(f64, f64, f64, f64); 4] = [
    (6.19324271, 7.442231e-04, 1.895932e-02, 1.835433e-03),
    (6.69612846, 1.680377e-01, -1.875232e-02, -1.321459e-02),
    (7.19960693, -2.283082e-01, -2.878139e-02, 1.351316e-02),
    (7.70358866, 2.706821e-02, 2.973664e-02, 8.177830e-04),
];
/// `λ(0⁺)` of the same reference adjoint (`λ₂(0) = dG/dv0`, confirmed by finite differences).
#[allow(dead_code)] // as above
pub const REFERENCE_ADJOINT_START: [f64; 2] = [-4.682615e-04, 9.062163e-05];
