//! The exponential-model (EM) hysteretic oscillator of Serban & Recuero 2019, Example 5.2, as a
//! `#[hybrid_model]` with memory: every emitted kernel against num-dual, and the
//! generated tables.
//!
//! `u' = v`, `m v' = −A z + f(t)` with `f(t) = t sin(2πt)/2`, and the stress `z` given by the
//! algebraic equation `0 = z − σ(u, u*, z*, p)`, where `(u*, z*)` is the state at the last
//! velocity reversal (the memory) and, in the closed form of the EM law between reversals,
//!
//! `σ = g_β(u) + ξ c − E (g_β(u*) + ξ c − z*)`, `g_β(u) = −2βu + 2 sinh(βu) + k_b u`,
//! `E = exp(−α ξ (u − u*))`, `c = f̄ + δ/α`,
//! `u₀ = −ln(δ/(k_a − k_b))/(2α)`, `f̄ = (k_a − k_b)/(2α) (1 − exp(−2α u₀))`, `δ = 1e-20`.
//!
//! `u₀` and `f̄` depend on `p` (they must be differentiated: holding them fixed gives
//! `dG/dk_a = 0`), so they are helper functions of `P` here, and the `p`-derivatives checked
//! below go through them. `ξ = +1` in mode `loading`, `−1` in mode `unloading`; the reversals
//! are the zero crossings of `v` (falling from loading, rising from unloading), with continuity.
//! The cost is `∫ u² dt`.
#![deny(missing_docs)]

use crate::event_models;
use crate::support;

use event_models::steel;
use hysens::runtime::{Direction, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo, Point};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// The model again, in plain Rust over a number type. `p = [k_a, k_b, alpha, beta]`.
struct Steel;

type V<D> = Vars<D, 2, 1, 4>;

const DELTA: f64 = 1e-20;

fn u0<D: Scalar>(p: &[D; 4]) -> D {
    let [k_a, k_b, alpha, _] = *p;
    -(D::from(DELTA) / (k_a - k_b)).ln() / (alpha * 2.0)
}

fn fbar<D: Scalar>(p: &[D; 4]) -> D {
    let [k_a, k_b, alpha, _] = *p;
    (k_a - k_b) / (alpha * 2.0) * (-(-(alpha * 2.0) * u0(p)).exp() + 1.0)
}

fn g_beta<D: Scalar>(u: D, p: &[D; 4]) -> D {
    let (k_b, beta) = (p[1], p[3]);
    -(beta * 2.0 * u) + (beta * u).sinh() * 2.0 + k_b * u
}

fn sigma<D: Scalar>(xi: f64, v: &V<D>) -> D {
    let p = &v.p;
    let alpha = p[2];
    let (u, us, zs) = (v.y[0], v.ys[0], v.zs[0]);
    let c = fbar(p) + D::from(DELTA) / alpha;
    let e = (-(alpha * xi) * (u - us)).exp();
    g_beta(u, p) + c * xi - e * (g_beta(us, p) + c * xi - zs)
}

impl Reference<2, 1, 4> for Steel {
    fn f<D: Scalar>(&self, _mode: usize, v: &V<D>) -> [D; 2] {
        let t = v.t;
        let load = t * 0.5 * (t * (2.0 * core::f64::consts::PI)).sin();
        [v.y[1], -v.z[0] + load]
    }

    fn g<D: Scalar>(&self, mode: usize, v: &V<D>) -> [D; 1] {
        let xi = if mode == 0 { 1.0 } else { -1.0 };
        [v.z[0] - sigma(xi, v)]
    }

    fn guard<D: Scalar>(&self, _guard: usize, v: &V<D>) -> D {
        v.y[1]
    }

    fn integral_cost<D: Scalar>(&self, _mode: usize, v: &V<D>) -> Option<D> {
        Some(v.y[0].powi(2))
    }
}

type M = steel::Model;

/// `p = [32π², π², 205, 0]`, the paper's values.
const NOMINAL: [f64; 4] = [
    32.0 * core::f64::consts::PI * core::f64::consts::PI,
    core::f64::consts::PI * core::f64::consts::PI,
    205.0,
    0.0,
];

/// Random points around the paper's parameters (with `β ≠ 0` too, so that `sinh` is exercised),
/// displacements in the range the solution visits (`|u| < 0.2`) and `|u − u*| < 0.03`, so
/// that `E = exp(−αξ(u − u*))` stays within `e^{±9}` as it does along a solution (there
/// `ξ(u − u*) ≥ 0`, `E ≤ 1`).
fn points() -> Vec<TestPoint<2, 1, 4>> {
    let mut rng = Rng::new(52);
    let mut points: Vec<TestPoint<2, 1, 4>> = (0..32)
        .map(|k| {
            let u = rng.uniform(-0.2, 0.2);
            let y = [u, rng.uniform(-2.0, 2.0)];
            let z = [rng.uniform(-2.5, 2.5)];
            let p = if k % 4 == 0 {
                NOMINAL
            } else {
                [
                    rng.uniform(200.0, 400.0),
                    rng.uniform(5.0, 15.0),
                    rng.uniform(100.0, 300.0),
                    rng.uniform(0.0, 3.0),
                ]
            };
            let memory = Memory {
                y: [u + rng.uniform(-0.03, 0.03), rng.uniform(-2.0, 2.0)],
                z: [rng.uniform(-2.5, 2.5)],
            };
            let t = rng.uniform(0.0, 10.0);
            rng.point(t, y, z, p, memory)
        })
        .collect();
    // At a reversal itself (u = u*, z = z*), the first reversal of a reference solve
    // (DOP853 at rtol 1e-12).
    let (u, z) = (0.001_618_247_2, 0.226_654_392_6);
    points.push(rng.point(
        0.421_512_667_4,
        [u, 0.0],
        [z],
        NOMINAL,
        Memory {
            y: [u, 0.0],
            z: [z],
        },
    ));
    points
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("steel", &M::default(), &Steel, &points());
}

/// The explicit partials of σ (the closed form above differentiated by hand), checked on the kernel's `g_y`, `g_z*`, `g_y*`, `g_p`
/// (`g = z − σ`, so each is minus the partial of σ).
#[test]
fn sigma_partials_match_the_hand_derived_closed_forms() {
    let mut rng = Rng::new(7);
    for (mode, xi) in [(0, 1.0), (1, -1.0)] {
        for _ in 0..8 {
            let p = [
                rng.uniform(200.0, 400.0),
                rng.uniform(5.0, 15.0),
                rng.uniform(100.0, 300.0),
                rng.uniform(0.0, 3.0),
            ];
            let [k_a, k_b, alpha, beta] = p;
            let u: f64 = rng.uniform(-0.2, 0.2);
            let us = u + rng.uniform(-0.03, 0.03);
            let zs = rng.uniform(-2.5, 2.5);
            let memory = Memory {
                y: [us, 0.0],
                z: [zs],
            };
            let at = Point {
                t: 1.0,
                y: &[u, 0.5],
                z: &[0.0],
                p: &p,
                memory: &memory,
            };
            let g_beta = |u: f64| -2.0 * beta * u + 2.0 * (beta * u).sinh() + k_b * u;
            let g_beta_prime = |u: f64| k_b - 2.0 * beta + 2.0 * beta * (beta * u).cosh();
            let c = (k_a - k_b + DELTA) / (2.0 * alpha);
            let e = (-alpha * xi * (u - us)).exp();
            let r = g_beta(us) + xi * c - zs;
            let sigma_u = g_beta_prime(u) + alpha * xi * e * r;
            let sigma_us = -e * (g_beta_prime(us) + alpha * xi * r);
            let sigma_zs = e;
            let sigma_p = [
                xi * (1.0 - e) / (2.0 * alpha),
                u - e * us - xi * (1.0 - e) / (2.0 * alpha),
                -xi * (k_a - k_b + DELTA) / (2.0 * alpha * alpha) * (1.0 - e)
                    + xi * (u - us) * e * r,
                (-2.0 * u + 2.0 * u * (beta * u).cosh())
                    - e * (-2.0 * us + 2.0 * us * (beta * us).cosh()),
            ];
            let model = M::default();
            let mut jac = hysens::runtime::ModeJacobian::ZERO;
            model.jacobian(mode, &at, &mut jac);
            let mut mem = hysens::runtime::ModeJacobian::ZERO;
            model.memory_jacobian(mode, &at, &mut mem);
            let (mut fp, mut gp) = ([[0.0; 4]; 2], [[0.0; 4]; 1]);
            model.parameter_jacobian(mode, &at, &mut fp, &mut gp);
            let close = |a: f64, b: f64, what: &str| {
                assert!(
                    (a - b).abs() <= 1e-10 * a.abs().max(b.abs()) + 1e-12,
                    "mode {mode}, {what}: kernel {a:e}, closed form {b:e}"
                );
            };
            close(-jac.gy[0][0], sigma_u, "σ_u");
            close(jac.gy[0][1], 0.0, "σ_v");
            close(jac.gz[0][0], 1.0, "g_z");
            close(-mem.gy[0][0], sigma_us, "σ_u*");
            close(-mem.gz[0][0], sigma_zs, "σ_z*");
            for (j, name) in ["σ_ka", "σ_kb", "σ_alpha", "σ_beta"].iter().enumerate() {
                close(-gp[0][j], sigma_p[j], name);
            }
        }
    }
}

#[test]
fn tables() {
    assert_eq!((M::NY, M::NZ, M::NP), (2, 1, 4));
    assert_eq!(
        <M as HybridModel<2, 1, 4>>::MODES,
        &[
            ModeInfo {
                name: "loading",
                uses_memory: true,
                constant_jacobian: false,
                terminal: false,
                index2: false,
            },
            ModeInfo {
                name: "unloading",
                uses_memory: true,
                constant_jacobian: false,
                terminal: false,
                index2: false,
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<2, 1, 4>>::GUARDS,
        &[
            GuardInfo {
                name: "reversal_down",
                from: 0,
                to: 1,
                direction: Direction::Falling,
                has_reset: false,
                surface: None
            },
            GuardInfo {
                name: "reversal_up",
                from: 1,
                to: 0,
                direction: Direction::Rising,
                has_reset: false,
                surface: None
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<2, 1, 4>>::INITIAL_MODE,
        InitialMode::Fixed(0)
    );
    assert_eq!(<M as HybridModel<2, 1, 4>>::STATE_NAMES, ["y.u", "y.v"]);
    assert_eq!(<M as HybridModel<2, 1, 4>>::ALGEBRAIC_NAMES, ["z.z"]);
    assert_eq!(
        <M as HybridModel<2, 1, 4>>::PARAMETER_NAMES,
        ["p.k_a", "p.k_b", "p.alpha", "p.beta"]
    );
    assert_eq!(steel::X::NAMES, ["u", "v"]);
    assert_eq!(steel::Z::NAMES, ["z"]);
    assert_eq!(steel::P::NAMES, ["k_a", "k_b", "alpha", "beta"]);
    let x = steel::X::from_array([0.1, -0.2]);
    assert_eq!((x.u, x.v), (0.1, -0.2));
    assert_eq!(x.to_array(), [0.1, -0.2]);
    assert_eq!(steel::Z::from_array([0.3]).to_array(), [0.3]);
    assert_eq!(steel::P::from_array(NOMINAL).to_array(), NOMINAL);

    // The values of the internal constants at nominal p, by the reference formulas
    // (the same formulas as the model's helpers), read through the generated `P` conversions.
    let p = steel::P::from_array(NOMINAL);
    let (u0, fbar) = (steel_u0(&p), steel_fbar(&p));
    assert!((u0 - 0.126_280_850_819_67).abs() < 1e-13, "u0 = {u0}");
    assert!(
        (fbar - 0.746_238_381_545_781).abs() < 1e-13,
        "fbar = {fbar}"
    );
}

/// `u₀` at `p` by the reference formula.
fn steel_u0(p: &steel::P) -> f64 {
    u0(&p.to_array())
}

/// `f̄` at `p` by the reference formula.
fn steel_fbar(p: &steel::P) -> f64 {
    fbar(&p.to_array())
}
