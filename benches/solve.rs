//! One solve of each benchmark problem, plain and with forward sensitivities, through the
//! models `#[hybrid_model]` generates (the settings):
//!
//! - P1 Serban & Recuero Ex. 5.1, p = 2.9, [0, 5], rtol 1e-8, atol 1e-10, dG/dp;
//! - P2 bouncing ball z0 = 5, v0 = −0.1, g = 10, γ = 0.8, T = 1.9, rtol 1e-8, atol 1e-10,
//!   sensitivities to all four (the initial states are parameters, seeded with unit columns);
//! - P3 Robertson (0.04, 3e7, 1e4) on [0, 1e5] and [0, 4e10], rtol 1e-6, atol 1e-10, FSA to
//!   the k's;
//! - P4 Van der Pol μ = 1000, y0 = (2, 0), T = 500 and T = 2000, rtol 1e-6, atol 1e-8, FSA to μ.
//!
//! Run with `cargo bench --bench solve`. Comparisons with other libraries live in
//! `bench/peers` (outside the workspace).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use hysens::runtime::{HybridOptions, HybridOutputs, HybridProblem, HybridSolution, SolveError};

#[path = "../tests/support/models.rs"]
mod models;
use models::{ball, ex51, robertson, vdp};
use models::{CLASSIC_RATES, CLASSIC_Y0};

/// One solve by `solve` (a model's plain or sensitivity entry point) into fresh storage that
/// keeps no samples, events or steps, and what `read` takes from the solution (returned, so
/// that the solve is not optimised away).
fn solve_summary_only<const NY: usize, const NZ: usize, const NP: usize, R>(
    solve: impl FnOnce(
        &mut HybridOutputs<'_, NY, NZ, NP>,
        &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError>,
    read: impl FnOnce(&HybridSolution<NY, NZ, NP>) -> R,
) -> R {
    let mut solution = HybridSolution::ZERO;
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: None,
        steps: None,
        dense: None,
    };
    solve(&mut outputs, &mut solution).expect("the benchmark problem solves");
    read(&solution)
}

/// Registers `plain` and `fsa` benchmarks of one problem.
macro_rules! bench_problem {
    ($c:expr, $name:expr, $model:expr, $problem:expr, $options:expr) => {{
        let (model, problem, options) = ($model, $problem, $options);
        let mut group = $c.benchmark_group($name);
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(3));
        group.bench_function("plain", |b| {
            b.iter(|| {
                solve_summary_only(
                    |outputs, solution| {
                        model.solve(black_box(&problem), &options, outputs, solution)
                    },
                    |solution| solution.y,
                )
            })
        });
        group.bench_function("fsa", |b| {
            b.iter(|| {
                solve_summary_only(
                    |outputs, solution| {
                        model.solve_with_sensitivities(
                            black_box(&problem),
                            &options,
                            outputs,
                            solution,
                        )
                    },
                    |solution| (solution.sy, solution.cost_gradient),
                )
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

    for (name, tf) in [("P3_robertson_1e5", 1e5), ("P3_robertson_4e10", 4e10)] {
        let p3 = robertson::Model::problem(0.0, tf, &CLASSIC_Y0, &CLASSIC_RATES);
        bench_problem!(
            c,
            name,
            robertson::Model,
            p3,
            HybridOptions::new(1e-6, 1e-10)
        );
    }

    let x0 = vdp::X { y1: 2.0, y2: 0.0 };
    for (name, tf) in [("P4_vanderpol_500", 500.0), ("P4_vanderpol_2000", 2000.0)] {
        let p4 = vdp::Model::problem(0.0, tf, &x0, &vdp::P { mu: 1000.0 });
        bench_problem!(c, name, vdp::Model, p4, HybridOptions::new(1e-6, 1e-8));
    }
}

criterion_group!(benches, solves);
criterion_main!(benches);
