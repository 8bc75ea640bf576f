//! A two-mode semi-explicit index-1 DAE as a `#[hybrid_model]`: every emitted kernel against
//! num-dual, and the generated tables.
//!
//! The model is made up to reach every path of the macro that the paper's examples do not:
//! two algebraic variables with a full, nonsingular `g_z` that differs between the modes; an
//! input (appended to `p`); a guard on an algebraic variable; a guard that reads the memory; a
//! reset that reads `z` and `t`; a guard without a reset (continuity); an algebraic equation
//! that reads `z*`; helper functions with value and struct parameters; a choice of the first
//! mode by a guard sign with a fallback; two integral costs (summed by the macro), one reading
//! `z`, one the memory; a terminal cost reading `z` and `t`; a sampled cost reading `z`.
//!
//! Mode `low`:  `a' = b`, `b' = −k a − c b + w`,
//!              `0 = w − f0 sin t − s a`, `0 = s − tanh(a b) − w/10`
//!              (`g_z = [[1, −a], [−1/10, 1]]`, nonsingular for `|a| < 10`).
//! Mode `high`: `a' = b`, `b' = −k a − c b³ + w s`,
//!              `0 = eʷ − 1 − f0 b`, `0 = s (1 + a²) − cosh w − s*`
//!              (`g_z = [[eʷ, 0], [−sinh w, 1 + a²]]`, always nonsingular).
//! Guards: `up` (low → high) when `s − thr` rises through zero, with the reset
//! `b⁺ = −e b⁻ + w sin(t)/10`; `down` (high → low) when `a − a* + w` falls through zero.
#![deny(missing_docs)]

use crate::event_models;
use crate::support;

use event_models::two_mode;
use hysens::runtime::{Direction, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// The model again, in plain Rust over a number type. `p = [k, c, thr, e, f0]`.
struct TwoMode;

type V<D> = Vars<D, 2, 2, 5>;

impl Reference<2, 2, 5> for TwoMode {
    fn f<D: Scalar>(&self, mode: usize, v: &V<D>) -> [D; 2] {
        let [a, b] = v.y;
        let [w, s] = v.z;
        let [k, c, ..] = v.p;
        match mode {
            0 => [b, -(k * a) - c * b + w],
            _ => [b, -(k * a) - c * b.powi(3) + w * s],
        }
    }

    fn g<D: Scalar>(&self, mode: usize, v: &V<D>) -> [D; 2] {
        let [a, b] = v.y;
        let [w, s] = v.z;
        let f0 = v.p[4];
        match mode {
            0 => [w - f0 * v.t.sin() - s * a, s - (a * b).tanh() - w * 0.1],
            _ => [
                w.exp() - 1.0 - f0 * b,
                s * (a.powi(2) + 1.0) - w.cosh() - v.zs[1],
            ],
        }
    }

    fn guard<D: Scalar>(&self, guard: usize, v: &V<D>) -> D {
        match guard {
            0 => v.z[1] - v.p[2],
            _ => v.y[0] - v.ys[0] + v.z[0],
        }
    }

    fn reset<D: Scalar>(&self, guard: usize, v: &V<D>) -> Option<[D; 2]> {
        (guard == 0).then(|| [v.y[0], -(v.p[3] * v.y[1]) + v.z[0] * 0.1 * v.t.sin()])
    }

    fn integral_cost<D: Scalar>(&self, _mode: usize, v: &V<D>) -> Option<D> {
        let effort = v.y[0].powi(2) + v.z[0].powi(2) * 0.5;
        let drift = (v.y[0] - v.ys[0]).powi(2);
        Some(effort + drift)
    }

    fn terminal_cost<D: Scalar>(&self, v: &V<D>) -> Option<D> {
        Some(v.p[0] * v.y[1].powi(2) + v.z[1] * (v.t * 0.5).cos())
    }

    fn sampled_cost<D: Scalar>(&self, v: &V<D>, d: D) -> Option<D> {
        Some((v.z[1] - d).powi(2))
    }
}

type M = two_mode::Model;

fn points() -> Vec<TestPoint<2, 2, 5>> {
    let mut rng = Rng::new(22);
    (0..24)
        .map(|_| {
            let y = rng.array(-2.0, 2.0);
            let z = [rng.uniform(-1.5, 1.5), rng.uniform(-2.0, 2.0)];
            let p = [
                rng.uniform(0.5, 5.0),
                rng.uniform(0.0, 2.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(0.1, 1.0),
                rng.uniform(-3.0, 3.0),
            ];
            let memory = Memory {
                y: rng.array(-2.0, 2.0),
                z: rng.array(-2.0, 2.0),
            };
            let t = rng.uniform(0.0, 10.0);
            rng.point(t, y, z, p, memory)
        })
        .collect()
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("two_mode", &M::default(), &TwoMode, &points());
}

#[test]
fn tables() {
    assert_eq!((M::NY, M::NZ, M::NP), (2, 2, 5));
    assert_eq!(
        <M as HybridModel<2, 2, 5>>::MODES,
        &[
            ModeInfo {
                name: "low",
                uses_memory: false,
                constant_jacobian: false,
                terminal: false,
                index2: false,
            },
            ModeInfo {
                name: "high",
                uses_memory: true,
                constant_jacobian: false,
                terminal: false,
                index2: false,
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<2, 2, 5>>::GUARDS,
        &[
            GuardInfo {
                name: "up",
                from: 0,
                to: 1,
                direction: Direction::Rising,
                has_reset: true,
                surface: None
            },
            GuardInfo {
                name: "down",
                from: 1,
                to: 0,
                direction: Direction::Falling,
                has_reset: false,
                surface: None
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<2, 2, 5>>::INITIAL_MODE,
        InitialMode::ByGuardSigns {
            rules: &[(0, true, 1)],
            fallback: Some(0)
        }
    );
    assert_eq!(<M as HybridModel<2, 2, 5>>::STATE_NAMES, ["y.a", "y.b"]);
    assert_eq!(<M as HybridModel<2, 2, 5>>::ALGEBRAIC_NAMES, ["z.w", "z.s"]);
    assert_eq!(
        <M as HybridModel<2, 2, 5>>::PARAMETER_NAMES,
        ["p.k", "p.c", "p.thr", "p.e", "u.f0"]
    );
    assert_eq!(two_mode::X::NAMES, ["a", "b"]);
    assert_eq!(two_mode::Z::NAMES, ["w", "s"]);
    assert_eq!(two_mode::P::NAMES, ["k", "c", "thr", "e"]);
    assert_eq!(two_mode::U::NAMES, ["f0"]);
    let x = two_mode::X::from_array([1.0, 2.0]);
    assert_eq!((x.a, x.b), (1.0, 2.0));
    assert_eq!(x.to_array(), [1.0, 2.0]);
    let z = two_mode::Z::from_array([3.0, 4.0]);
    assert_eq!((z.w, z.s), (3.0, 4.0));
    assert_eq!(z.to_array(), [3.0, 4.0]);
    let p = two_mode::P::from_array([5.0, 6.0, 7.0, 8.0]);
    assert_eq!((p.k, p.c, p.thr, p.e), (5.0, 6.0, 7.0, 8.0));
    assert_eq!(p.to_array(), [5.0, 6.0, 7.0, 8.0]);
    let u = two_mode::U::from_array([9.0]);
    assert_eq!(u.f0, 9.0);
    assert_eq!(u.to_array(), [9.0]);
}
