//! One solve of each benchmark problem, plain and with forward sensitivities, through the
//! models `#[hybrid_model]` generates (the settings):
//!
//! - P1 Serban & Recuero Ex. 5.1, p = 2.9, [0, 5], rtol 1e-8, atol 1e-10, dG/dp;
//! - P2 bouncing ball z0 = 5, v0 = −0.1, g = 10, γ = 0.8, T = 1.9, rtol 1e-8, atol 1e-10,
//!   sensitivities to all four (the initial states are parameters, seeded with unit columns);
//! - P3 Robertson (0.04, 3e7, 1e4) on [0, 1e5], rtol 1e-6, atol 1e-10, FSA to the k's;
//! - P4 Van der Pol μ = 1000, y0 = (2, 0), T = 500, rtol 1e-6, atol 1e-8, FSA to μ.
//!
//! Run with `cargo bench --bench solve`. Comparisons with other libraries live in
//! `bench/peers` (outside the workspace).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use hysens::hybrid_model;
use hysens::runtime::{HybridOptions, HybridOutputs, HybridProblem, HybridSolution};

/// P1: Serban & Recuero Example 5.1.
#[hybrid_model]
pub mod ex51 {
    /// The state.
    #[states]
    pub struct X {
        /// `x`.
        pub x: f64,
    }
    /// The parameter.
    #[params]
    pub struct P {
        /// The threshold `p`.
        pub p: f64,
    }
    /// The switching function.
    fn h(x: &X, p: &P) -> f64 {
        x.x.powi(3) - 5.0 * x.x.powi(2) + 7.0 * x.x - p.p
    }
    #[mode(initial)]
    fn a(x: &X) -> X {
        X { x: 4.0 - x.x }
    }
    #[mode]
    fn b(x: &X) -> X {
        X {
            x: 10.0 - 2.0 * x.x,
        }
    }
    #[guard(a -> b, rising)]
    fn to_b(x: &X, p: &P) -> f64 {
        h(x, p)
    }
    #[guard(b -> a, falling)]
    fn to_a(x: &X, p: &P) -> f64 {
        h(x, p)
    }
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x
    }
}

/// P2: the bouncing ball, with its initial state among the parameters.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub z: f64,
        /// Velocity.
        pub v: f64,
    }
    /// Initial state, gravity, restitution.
    #[params]
    pub struct P {
        /// Initial height.
        pub z0: f64,
        /// Initial velocity.
        pub v0: f64,
        /// Gravity.
        pub g: f64,
        /// Restitution.
        pub gamma: f64,
    }
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { z: x.v, v: -p.g }
    }
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.z
    }
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            z: x.z,
            v: -p.gamma * x.v,
        }
    }
}

/// P3: Robertson's kinetics.
#[hybrid_model]
pub mod robertson {
    /// Concentrations.
    #[states]
    pub struct X {
        /// Species 1.
        pub y1: f64,
        /// Species 2.
        pub y2: f64,
        /// Species 3.
        pub y3: f64,
    }
    /// Rate constants.
    #[params]
    pub struct P {
        /// k1.
        pub k1: f64,
        /// k2.
        pub k2: f64,
        /// k3.
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
}

/// P4: the Van der Pol oscillator.
#[hybrid_model]
pub mod vdp {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub y1: f64,
        /// Velocity.
        pub y2: f64,
    }
    /// Stiffness.
    #[params]
    pub struct P {
        /// μ.
        pub mu: f64,
    }
    #[mode(initial)]
    fn oscillate(x: &X, p: &P) -> X {
        X {
            y1: x.y2,
            y2: p.mu * (1.0 - x.y1.powi(2)) * x.y2 - x.y1,
        }
    }
}

/// Registers `plain` and `fsa` benchmarks of one problem.
macro_rules! bench_problem {
    ($c:expr, $name:literal, $model:expr, $problem:expr, $options:expr) => {{
        let (model, problem, options) = ($model, $problem, $options);
        let mut group = $c.benchmark_group($name);
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(3));
        group.bench_function("plain", |b| {
            b.iter(|| {
                let mut solution = HybridSolution::ZERO;
                let mut outputs = HybridOutputs {
                    samples: &mut [],
                    events: None,
                    steps: None,
                };
                model
                    .solve(black_box(&problem), &options, &mut outputs, &mut solution)
                    .expect("the benchmark problem solves");
                solution.y
            })
        });
        group.bench_function("fsa", |b| {
            b.iter(|| {
                let mut solution = HybridSolution::ZERO;
                let mut outputs = HybridOutputs {
                    samples: &mut [],
                    events: None,
                    steps: None,
                };
                model
                    .solve_with_sensitivities(
                        black_box(&problem),
                        &options,
                        &mut outputs,
                        &mut solution,
                    )
                    .expect("the benchmark problem solves");
                (solution.sy, solution.cost_gradient)
            })
        });
        group.finish();
    }};
}

fn solves(c: &mut Criterion) {
    let p1 = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    bench_problem!(
        c,
        "P1_ex51",
        ex51::Model,
        p1,
        HybridOptions::new(1e-8, 1e-10)
    );

    let ball_params = ball::P {
        z0: 5.0,
        v0: -0.1,
        g: 10.0,
        gamma: 0.8,
    };
    let p2 = HybridProblem {
        sensitivities: Some([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]),
        ..ball::Model::problem(0.0, 1.9, &ball::X { z: 5.0, v: -0.1 }, &ball_params)
    };
    bench_problem!(
        c,
        "P2_ball",
        ball::Model,
        p2,
        HybridOptions::new(1e-8, 1e-10)
    );

    let y0 = robertson::X {
        y1: 1.0,
        y2: 0.0,
        y3: 0.0,
    };
    let k = robertson::P {
        k1: 0.04,
        k2: 3e7,
        k3: 1e4,
    };
    let p3 = robertson::Model::problem(0.0, 1e5, &y0, &k);
    bench_problem!(
        c,
        "P3_robertson_1e5",
        robertson::Model,
        p3,
        HybridOptions::new(1e-6, 1e-10)
    );

    let p4 = vdp::Model::problem(
        0.0,
        500.0,
        &vdp::X { y1: 2.0, y2: 0.0 },
        &vdp::P { mu: 1000.0 },
    );
    bench_problem!(
        c,
        "P4_vanderpol_500",
        vdp::Model,
        p4,
        HybridOptions::new(1e-6, 1e-8)
    );
}

criterion_group!(benches, solves);
criterion_main!(benches);
