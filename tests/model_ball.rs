//! The bouncing ball as a `#[hybrid_model]`: every emitted kernel against num-dual, and the
//! generated tables.
//!
//! One mode (flight under gravity `g`), one guard (impact: the height falls through zero) whose
//! reset reverses the velocity with restitution `e`, and two terminal costs (the final height and
//! the final mechanical energy per unit mass), which the macro sums into one `φ`.
#![deny(missing_docs)]

mod support;

use hysens::hybrid_model;
use hysens::runtime::{Direction, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

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

/// The model again, in plain Rust over a number type.
struct Ball;

impl Reference<2, 0, 2> for Ball {
    fn f<D: Scalar>(&self, _mode: usize, v: &Vars<D, 2, 0, 2>) -> [D; 2] {
        [v.y[1], -v.p[0]]
    }

    fn guard<D: Scalar>(&self, _guard: usize, v: &Vars<D, 2, 0, 2>) -> D {
        v.y[0]
    }

    fn reset<D: Scalar>(&self, _guard: usize, v: &Vars<D, 2, 0, 2>) -> Option<[D; 2]> {
        Some([v.y[0], -(v.p[1] * v.y[1])])
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 2>) -> Option<D> {
        let [h, vel] = v.y;
        Some(h + (vel.powi(2) * 0.5 + v.p[0] * h))
    }
}

type M = ball::Model;

fn points() -> Vec<TestPoint<2, 0, 2>> {
    let mut rng = Rng::new(2);
    (0..24)
        .map(|_| {
            let y = [rng.uniform(-0.5, 10.0), rng.uniform(-15.0, 15.0)];
            let p = [rng.uniform(1.0, 20.0), rng.uniform(0.0, 1.0)];
            let memory = Memory {
                y: rng.array(-1.0, 1.0),
                z: [],
            };
            let t = rng.uniform(0.0, 10.0);
            rng.point(t, y, [], p, memory)
        })
        .collect()
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("ball", &M::default(), &Ball, &points());
}

#[test]
fn compiles() {
    assert_eq!(ball::Model::NY, 2);
    assert_eq!(<ball::Model as HybridModel<2, 0, 2>>::GUARDS.len(), 1);
}

#[test]
fn tables() {
    assert_eq!((M::NY, M::NZ, M::NP), (2, 0, 2));
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::MODES,
        &[ModeInfo {
            name: "flight",
            uses_memory: false,
            constant_jacobian: true,
        }]
    );
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::GUARDS,
        &[GuardInfo {
            name: "impact",
            from: 0,
            to: 0,
            direction: Direction::Falling,
            has_reset: true
        }]
    );
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::INITIAL_MODE,
        InitialMode::Fixed(0)
    );
    assert_eq!(<M as HybridModel<2, 0, 2>>::STATE_NAMES, ["y.h", "y.v"]);
    assert_eq!(<M as HybridModel<2, 0, 2>>::PARAMETER_NAMES, ["p.g", "p.e"]);
    assert_eq!(ball::X::NAMES, ["h", "v"]);
    assert_eq!(ball::P::NAMES, ["g", "e"]);
    let x = ball::X::from_array([1.5, -2.0]);
    assert_eq!((x.h, x.v), (1.5, -2.0));
    assert_eq!(x.to_array(), [1.5, -2.0]);
    let p = ball::P::from_array([9.81, 0.8]);
    assert_eq!((p.g, p.e), (9.81, 0.8));
    assert_eq!(p.to_array(), [9.81, 0.8]);
}
