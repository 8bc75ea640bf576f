//! The time of one NMPC solve against the sample time: the electrolyzer's OCP of the
//! `electrolyzer` example (N = 25, five ESDIRK34 steps per interval, damped BFGS), consistent
//! and relaxed formulations, from a cold start (the first sample) and warm-started (a later
//! sample, the previous solution shifted),
//! and the tank's OCP across the weir's switch (`tank_nmpc`).
//!
//! Run with `cargo bench -p hysens-control --bench nmpc`.

use criterion::{criterion_group, criterion_main, Criterion};
use hysens::prelude::*;
use hysens_control::{Formulation, Hessian, Nmpc, NmpcSettings, OcpData, OcpWeights};
use std::hint::black_box;

#[path = "../../examples/electrolyzer/model.rs"]
mod electrolyzer_model;
#[path = "../../examples/tank_nmpc/model.rs"]
mod tank_model;
use electrolyzer_model::{electrolyzer, DISTURBANCES};
use tank_model::tank;

fn electrolyzer_settings() -> NmpcSettings {
    NmpcSettings {
        sample_time: 240.0,
        horizon: 25,
        steps_per_interval: 5,
        quadrature_intervals: 4,
        weights: OcpWeights {
            q_z: 10.0,
            q_du: 0.1,
        },
        input_bounds: vec![(2.0, 10.0)],
        hessian: Hessian::Bfgs,
        max_iterations: 30,
        tolerance: 1e-6,
        newton_tolerances: (1e-10, 1e-10),
        formulation: Formulation::Consistent,
    }
}

fn nmpc(c: &mut Criterion) {
    let setpoint = |t: f64| if t < 2400.0 { 75.0 } else { 60.0 };
    let p =
        electrolyzer::Model::parameters(&DISTURBANCES, &electrolyzer::U { flow: 5.0 }).to_array();
    let data = |x_hat: [f64; 2]| OcpData {
        t: 0.0,
        x_hat,
        z_hat: [1.9, 7000.0],
        p,
        u_previous: vec![5.0],
        setpoint: &setpoint,
    };
    c.bench_function("electrolyzer OCP, cold start (N = 25, BFGS)", |b| {
        b.iter(|| {
            let mut controller = Nmpc::new(
                &electrolyzer::Model,
                &["flow"],
                "temperature",
                electrolyzer_settings(),
            )
            .unwrap();
            black_box(controller.solve(&data([70.0, 45.0])).unwrap())
        })
    });
    let mut warm = Nmpc::new(
        &electrolyzer::Model,
        &["flow"],
        "temperature",
        electrolyzer_settings(),
    )
    .unwrap();
    warm.solve(&data([70.0, 45.0])).unwrap();
    c.bench_function("electrolyzer OCP, warm start (N = 25, BFGS)", |b| {
        b.iter(|| black_box(warm.solve(&data([70.2, 45.1])).unwrap()))
    });
    let relaxed_settings = NmpcSettings {
        formulation: Formulation::Relaxed { decay: 1.0 },
        ..electrolyzer_settings()
    };
    c.bench_function(
        "electrolyzer OCP, relaxed DAE, cold start (N = 25, BFGS)",
        |b| {
            b.iter(|| {
                let mut controller = Nmpc::new(
                    &electrolyzer::Model,
                    &["flow"],
                    "temperature",
                    relaxed_settings.clone(),
                )
                .unwrap();
                black_box(controller.solve(&data([70.0, 45.0])).unwrap())
            })
        },
    );
    let mut warm_relaxed = Nmpc::new(
        &electrolyzer::Model,
        &["flow"],
        "temperature",
        relaxed_settings.clone(),
    )
    .unwrap();
    warm_relaxed.solve(&data([70.0, 45.0])).unwrap();
    c.bench_function(
        "electrolyzer OCP, relaxed DAE, warm start (N = 25, BFGS)",
        |b| b.iter(|| black_box(warm_relaxed.solve(&data([70.2, 45.1])).unwrap())),
    );

    // One shooting interval (T_s = 240 s, five fixed ESDIRK34 steps) as the NLP needs it: the
    // map's Jacobian with respect to x_j and u_j (3 columns) by forward sensitivities in one
    // solve, against one row of it by the adjoint (a terminal cost `T(t_{j+1})`). The NLP
    // needs NY = 2 rows of `F_j` and 5 rows of the tracking residuals: 7 adjoint passes
    // against one forward solve with 3 columns.
    let x0 = electrolyzer::X {
        temp: 70.0,
        temp_in: 45.0,
    };
    let params = electrolyzer::Model::parameters(&DISTURBANCES, &electrolyzer::U { flow: 5.0 });
    let interval = electrolyzer::Model
        .solver()
        .tableau(&hysens::runtime::ESDIRK34)
        .tolerances(1e-10, 1e-10)
        .fixed_step(48.0)
        .algebraic_guess(&electrolyzer::Z {
            voltage: 1.9,
            current: 7000.0,
        });
    c.bench_function(
        "electrolyzer interval: F, ∂F/∂x, ∂F/∂u by forward sensitivities",
        |b| {
            b.iter(|| {
                black_box(
                    interval
                        .sensitivities_to(Params::Only(&["flow"]), InitialStates::All)
                        .solve(0.0, 240.0, &x0, &params)
                        .unwrap(),
                )
            })
        },
    );
    c.bench_function(
        "electrolyzer interval: one row of ∂F by the adjoint",
        |b| b.iter(|| black_box(interval.gradient(0.0, 240.0, &x0, &params).unwrap())),
    );
    c.bench_function("electrolyzer interval: F alone", |b| {
        b.iter(|| black_box(interval.solve(0.0, 240.0, &x0, &params).unwrap()))
    });

    let tank_setpoint = |_: f64| 1.02;
    let tank_settings = NmpcSettings {
        sample_time: 2.0,
        horizon: 20,
        weights: OcpWeights {
            q_z: 100.0,
            q_du: 1.0,
        },
        input_bounds: vec![(0.0, 0.2)],
        hessian: Hessian::GaussNewton,
        tolerance: 1e-7,
        ..electrolyzer_settings()
    };
    let tank_data = OcpData {
        t: 0.0,
        x_hat: [0.95],
        z_hat: [],
        p: [0.05],
        u_previous: vec![0.05],
        setpoint: &tank_setpoint,
    };
    c.bench_function(
        "tank OCP across the crest, cold start (N = 20, Gauss-Newton)",
        |b| {
            b.iter(|| {
                let mut controller =
                    Nmpc::new(&tank::Model, &["inflow"], "level", tank_settings.clone()).unwrap();
                black_box(controller.solve(&tank_data).unwrap())
            })
        },
    );
}

criterion_group!(benches, nmpc);
criterion_main!(benches);
