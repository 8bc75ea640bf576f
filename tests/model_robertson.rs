//! Robertson's stiff chemical kinetics (3 states, 3 rate constants, one mode) as a
//! `#[hybrid_model]`, with a sampled least-squares cost on `y1` and a named output: every
//! emitted kernel against num-dual, and the generated tables.
#![deny(missing_docs)]

use crate::support;

use hysens::hybrid_model;
use hysens::runtime::{HybridModel, InitialMode, Memory, ModeInfo, Point};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// Robertson's reaction network: `A → B` (k1), `2B → B + C` (k2), `B + C → A + C` (k3).
#[hybrid_model]
pub mod robertson {
    /// Concentrations.
    #[states]
    pub struct X {
        /// Species A.
        pub y1: f64,
        /// Species B.
        pub y2: f64,
        /// Species C.
        pub y3: f64,
    }

    /// Rate constants.
    #[params]
    pub struct P {
        /// `A → B`.
        pub k1: f64,
        /// `2B → B + C`.
        pub k2: f64,
        /// `B + C → A + C`.
        pub k3: f64,
    }

    #[mode(initial)]
    fn kinetics(x: &X, p: &P) -> X {
        X {
            y1: -p.k1 * x.y1 + p.k3 * x.y2 * x.y3,
            y2: p.k1 * x.y1 - p.k3 * x.y2 * x.y3 - p.k2 * x.y2.powi(2),
            y3: p.k2 * x.y2.powi(2),
        }
    }

    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        0.5 * (x.y1 - d).powi(2)
    }

    #[output]
    fn total_mass(x: &X) -> f64 {
        x.y1 + x.y2 + x.y3
    }
}

/// The model again, in plain Rust over a number type.
struct Robertson;

impl Reference<3, 0, 3> for Robertson {
    fn f<D: Scalar>(&self, _mode: usize, v: &Vars<D, 3, 0, 3>) -> [D; 3] {
        let [y1, y2, y3] = v.y;
        let [k1, k2, k3] = v.p;
        [
            -(k1 * y1) + k3 * y2 * y3,
            k1 * y1 - k3 * y2 * y3 - k2 * y2.powi(2),
            k2 * y2.powi(2),
        ]
    }

    fn sampled_cost<D: Scalar>(&self, v: &Vars<D, 3, 0, 3>, d: D) -> Option<D> {
        let r = v.y[0] - d;
        Some(r * r * 0.5)
    }
}

type M = robertson::Model;

/// Points around the classic setting `k = (0.04, 3e7, 1e4)`, with concentrations in the range
/// the solution visits (`y2` stays small).
fn points() -> Vec<TestPoint<3, 0, 3>> {
    let mut rng = Rng::new(3);
    (0..24)
        .map(|_| {
            let y = [
                rng.uniform(0.0, 1.0),
                rng.uniform(0.0, 4e-5),
                rng.uniform(0.0, 1.0),
            ];
            let p = [
                rng.uniform(0.02, 0.08),
                rng.uniform(1e7, 5e7),
                rng.uniform(5e3, 2e4),
            ];
            let memory = Memory {
                y: rng.array(0.0, 1.0),
                z: [],
            };
            let t = rng.uniform(0.0, 1e5);
            rng.point(t, y, [], p, memory)
        })
        .collect()
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("robertson", &M::default(), &Robertson, &points());
}

#[test]
fn tables_and_outputs() {
    assert_eq!((M::NY, M::NZ, M::NP), (3, 0, 3));
    assert_eq!(
        <M as HybridModel<3, 0, 3>>::MODES,
        &[ModeInfo {
            name: "kinetics",
            uses_memory: false,
            constant_jacobian: false,
            terminal: false,
            index2: false,
        }]
    );
    assert!(<M as HybridModel<3, 0, 3>>::GUARDS.is_empty());
    const { assert!(!<M as HybridModel<3, 0, 3>>::HAS_INTEGRAL_COST) };
    assert_eq!(
        <M as HybridModel<3, 0, 3>>::INITIAL_MODE,
        InitialMode::Fixed(0)
    );
    assert_eq!(
        <M as HybridModel<3, 0, 3>>::STATE_NAMES,
        ["y.y1", "y.y2", "y.y3"]
    );
    assert_eq!(
        <M as HybridModel<3, 0, 3>>::PARAMETER_NAMES,
        ["p.k1", "p.k2", "p.k3"]
    );
    assert_eq!(robertson::X::NAMES, ["y1", "y2", "y3"]);
    assert_eq!(robertson::P::NAMES, ["k1", "k2", "k3"]);
    let x = robertson::X::from_array([1.0, 2e-5, 3.0]);
    assert_eq!((x.y1, x.y2, x.y3), (1.0, 2e-5, 3.0));
    assert_eq!(x.to_array(), [1.0, 2e-5, 3.0]);
    let p = robertson::P::from_array([0.04, 3e7, 1e4]);
    assert_eq!((p.k1, p.k2, p.k3), (0.04, 3e7, 1e4));
    assert_eq!(p.to_array(), [0.04, 3e7, 1e4]);

    assert_eq!(M::OUTPUT_NAMES, &["total_mass"]);
    let at = Point {
        t: 0.0,
        y: &[0.5, 1e-5, 0.25],
        z: &[],
        p: &[0.04, 3e7, 1e4],
        memory: &Memory::ZERO,
    };
    assert_eq!(M::output(0, &at), 0.5 + 1e-5 + 0.25);
    assert_eq!(M::output(1, &at), 0.0);
    // Mass is conserved: the rows of f sum to zero.
    let (mut f, mut g) = ([0.0; 3], [0.0; 0]);
    M::default().residual(0, &at, &mut f, &mut g);
    assert!((f[0] + f[1] + f[2]).abs() < 1e-15);
}

#[test]
fn jacobian_sparsity_is_known_at_compile_time() {
    // ∂y3'/∂y1 and ∂y3'/∂y3 are structurally zero (y3' = k2 y2²); every other entry is not.
    let expected: &[(usize, usize)] = &[(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 1)];
    assert_eq!(robertson::Model::JACOBIAN_NONZEROS, [expected]);
}
