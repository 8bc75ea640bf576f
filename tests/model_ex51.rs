//! The simple hybrid ODE of Serban & Recuero 2019, Example 5.1 (Eq. 39), as the quickstart
//! writes it (`examples/quickstart/model.rs`): every emitted kernel against num-dual, and the
//! generated tables.
//!
//! `x' = 4 − x` in mode A while `h = x³ − 5x² + 7x − p ≤ 0`, `x' = 10 − 2x` in mode B otherwise;
//! the switch A → B fires when `h` rises through zero, B → A when it falls; `x` is continuous;
//! the cost is `∫ x dt`. `x(0) = 0`, so `h(0) = −p < 0` and the solve starts in A.
#![deny(missing_docs)]

use crate::support;

use crate::models::ex51;
use hysens::runtime::{Direction, GuardInfo, HybridModel, InitialMode, Memory, ModeInfo};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// The model again, in plain Rust over a number type.
struct Ex51;

fn cubic<D: Scalar>(v: &Vars<D, 1, 0, 1>) -> D {
    let x = v.y[0];
    x.powi(3) - x.powi(2) * 5.0 + x * 7.0 - v.p[0]
}

impl Reference<1, 0, 1> for Ex51 {
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, 1, 0, 1>) -> [D; 1] {
        let x = v.y[0];
        match mode {
            0 => [-x + 4.0],
            _ => [-(x * 2.0) + 10.0],
        }
    }

    fn guard<D: Scalar>(&self, _guard: usize, v: &Vars<D, 1, 0, 1>) -> D {
        cubic(v)
    }

    fn integral_cost<D: Scalar>(&self, _mode: usize, v: &Vars<D, 1, 0, 1>) -> Option<D> {
        Some(v.y[0])
    }
}

type M = ex51::Model;

/// The switching points `r1, r2, r3` at the nominal `p = 2.9`: the three real roots of
/// `x³ − 5x² + 7x = 2.9` (rounded to `f64`).
const ROOTS: [f64; 3] = [
    0.787_406_872_744_586,
    1.238_247_029_080_623,
    2.974_346_098_174_791,
];

fn points() -> Vec<TestPoint<1, 0, 1>> {
    let mut rng = Rng::new(51);
    let mut points: Vec<TestPoint<1, 0, 1>> = (0..24)
        .map(|_| {
            let y = [rng.uniform(-1.0, 6.0)];
            let memory = Memory {
                y: [rng.uniform(-1.0, 6.0)],
                z: [],
            };
            let t = rng.uniform(0.0, 5.0);
            let p = [rng.uniform(1.5, 3.5)];
            rng.point(t, y, [], p, memory)
        })
        .collect();
    // The switching points r1, r2, r3 at the nominal p = 2.9.
    for r in ROOTS {
        points.push(rng.point(1.0, [r], [], [2.9], Memory { y: [0.0], z: [] }));
    }
    points
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("ex51", &M::default(), &Ex51, &points());
}

#[test]
fn guard_partials_at_the_papers_switching_points() {
    // h_x = 3x² − 10x + 7 at the switching points (to 15 digits) and h_p = −1.
    let expected = [
        0.985_960_022_290_366,
        -0.782_703_175_725_263,
        3.796_743_153_434_90,
    ];
    for (r, hx) in ROOTS.into_iter().zip(expected) {
        let at = hysens::runtime::Point {
            t: 1.0,
            y: &[r],
            z: &[],
            p: &[2.9],
            memory: &Memory { y: [0.0], z: [] },
        };
        let mut partials = hysens::runtime::ScalarPartials::ZERO;
        M::default().guard_partials(0, &at, &mut partials);
        assert!(
            (partials.y[0] - hx).abs() < 1e-13,
            "{} vs {hx}",
            partials.y[0]
        );
        assert_eq!(partials.p[0], -1.0);
        assert!(M::default().guard(0, &at).abs() < 1e-14);
    }
}

#[test]
fn tables() {
    assert_eq!((M::NY, M::NZ, M::NP), (1, 0, 1));
    const { assert!(<M as HybridModel<1, 0, 1>>::HAS_INTEGRAL_COST) };
    assert_eq!(
        <M as HybridModel<1, 0, 1>>::MODES,
        &[
            ModeInfo {
                name: "a",
                uses_memory: false,
                constant_jacobian: true,
                terminal: false,
                index2: false,
            },
            ModeInfo {
                name: "b",
                uses_memory: false,
                constant_jacobian: true,
                terminal: false,
                index2: false,
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<1, 0, 1>>::GUARDS,
        &[
            GuardInfo {
                name: "to_b",
                from: 0,
                to: 1,
                direction: Direction::Rising,
                has_reset: false,
                surface: None
            },
            GuardInfo {
                name: "to_a",
                from: 1,
                to: 0,
                direction: Direction::Falling,
                has_reset: false,
                surface: None
            }
        ]
    );
    assert_eq!(
        <M as HybridModel<1, 0, 1>>::INITIAL_MODE,
        InitialMode::ByGuardSigns {
            rules: &[(0, false, 0), (1, true, 1)],
            fallback: None
        }
    );
    assert_eq!(<M as HybridModel<1, 0, 1>>::STATE_NAMES, ["y.x"]);
    assert_eq!(<M as HybridModel<1, 0, 1>>::ALGEBRAIC_NAMES, [""; 0]);
    assert_eq!(<M as HybridModel<1, 0, 1>>::PARAMETER_NAMES, ["p.p"]);
    assert_eq!(ex51::X::NAMES, ["x"]);
    assert_eq!(ex51::P::NAMES, ["p"]);
    let x = ex51::X::from_array([0.25]);
    assert_eq!(x.x, 0.25);
    assert_eq!(x.to_array(), [0.25]);
    assert_eq!(ex51::P::from_array([2.9]).to_array(), [2.9]);
    assert!(M::OUTPUT_NAMES.is_empty());
}

/// The generated entry points agree: `solve_adjoint` (tape in caller storage) gives the same
/// cost and, to round-off, the same `dG/dp` as `solve_with_sensitivities` — both are
/// derivatives of the same discrete solution, the adjoint the transposed chain — and its
/// `dG/dx0` equals the forward sensitivity with a unit seed.
#[test]
fn generated_adjoint_entry_point_matches_the_forward_one() {
    use hysens::runtime::{
        AdjointGradient, AdjointTape, HybridOptions, HybridOutputs, HybridSolution, TapeStep,
    };
    let model = ex51::Model;
    let mut problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let options = HybridOptions::new(1e-8, 1e-10);
    let outputs = || HybridOutputs {
        samples: &mut [],
        events: None,
        steps: None,
        dense: None,
    };
    let mut forward = HybridSolution::ZERO;
    model
        .solve_with_sensitivities(&problem, &options, &mut outputs(), &mut forward)
        .expect("Example 5.1 solves");
    let mut tape = vec![TapeStep::ZERO; forward.stats.steps];
    let (mut plain, mut gradient) = (HybridSolution::ZERO, AdjointGradient::ZERO);
    model
        .solve_adjoint(
            &problem,
            &options,
            AdjointTape::full(&mut tape),
            &mut outputs(),
            &mut plain,
            &mut gradient,
        )
        .expect("the same solve with a tape");
    assert_eq!(plain.cost, forward.cost);
    let (a, f) = (gradient.p[0], forward.cost_gradient[0]);
    assert!((a - f).abs() <= 1e-12 * f.abs(), "dG/dp: {a} vs {f}");
    // dG/dx0 by the forward sensitivities: a unit seed ∂x0/∂p = 1 adds dG/dx0 to dG/dp.
    problem.sensitivities = Some([[1.0]]);
    let mut seeded = HybridSolution::ZERO;
    model
        .solve_with_sensitivities(&problem, &options, &mut outputs(), &mut seeded)
        .expect("Example 5.1 solves");
    let dg_dx0 = seeded.cost_gradient[0] - forward.cost_gradient[0];
    assert!(
        (gradient.y0[0] - dg_dx0).abs() <= 1e-10 * dg_dx0.abs().max(1.0),
        "dG/dx0: {} vs {dg_dx0}",
        gradient.y0[0]
    );
    // A tape one step too short is an error that names its capacity and the capacity
    // needed, not a truncation.
    let n = forward.stats.steps;
    let mut short = vec![TapeStep::ZERO; n - 1];
    let result = model.solve_adjoint(
        &problem,
        &options,
        AdjointTape::full(&mut short),
        &mut outputs(),
        &mut plain,
        &mut gradient,
    );
    assert!(
        matches!(result, Err(hysens::runtime::SolveError::TapeFull { storage: "steps", capacity, needed, .. }) if capacity == n - 1 && needed == n),
        "{result:?}"
    );
    // The generated `gradient` (the builder's defaults) is the builder's.
    let generated = model.gradient(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let builder = model
        .solver()
        .gradient(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let (generated, builder) = (generated.expect("solves"), builder.expect("solves"));
    assert_eq!(
        (generated.cost, generated.params),
        (builder.cost, builder.params)
    );
}
