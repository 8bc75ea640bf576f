//! The multiple-shooting NLP and the SQP on the electrolyzer: the NLP's derivatives against
//! central differences, the SQP's convergence (Gauss–Newton and BFGS to the same optimum),
//! and its errors.

use hysens_control::{ControlError, Formulation, Hessian, Nmpc, NmpcSettings, OcpData, OcpWeights};
use nalgebra::DVector;

#[path = "support/derivatives.rs"]
mod derivatives;
use derivatives::largest_difference;

#[path = "../../examples/electrolyzer/model.rs"]
mod model;
#[path = "../../examples/tank_nmpc/model.rs"]
mod tank_model;
use model::{electrolyzer, DISTURBANCES};

fn settings(horizon: usize, hessian: Hessian) -> NmpcSettings {
    NmpcSettings {
        sample_time: 240.0,
        horizon,
        steps_per_interval: 5,
        quadrature_intervals: 4,
        weights: OcpWeights {
            q_z: 10.0,
            q_du: 0.1,
        },
        input_bounds: vec![(2.0, 10.0)],
        hessian,
        max_iterations: 30,
        tolerance: 1e-8,
        newton_tolerances: (1e-12, 1e-12),
        formulation: Formulation::Consistent,
    }
}

fn data(setpoint: &dyn Fn(f64) -> f64) -> OcpData<'_, 2, 2, 3> {
    let p =
        electrolyzer::Model::parameters(&DISTURBANCES, &electrolyzer::U { flow: 5.0 }).to_array();
    OcpData {
        t: 0.0,
        x_hat: [70.0, 45.0],
        z_hat: [1.9, 7000.0],
        p,
        u_previous: vec![5.0],
        setpoint,
    }
}

/// The electrolyzer's controller of the flow, tracking the temperature.
fn controller(settings: NmpcSettings) -> Nmpc<'static, electrolyzer::Model, 2, 2> {
    Nmpc::new(&electrolyzer::Model, &["flow"], "temperature", settings).expect("valid settings")
}

#[test]
fn nlp_derivatives_match_central_differences() {
    let controller = controller(settings(3, Hessian::GaussNewton));
    let setpoint = |_: f64| 65.0;
    let data = data(&setpoint);
    let nlp = &controller.nlp;
    let n = nlp.variables();
    // A point off the constraints and away from the bounds.
    let w = DVector::from_fn(n, |i, _| match i % 3 {
        0 => 70.0 + 0.5 * i as f64,
        1 => 45.0 - 0.2 * i as f64,
        _ => 4.0 + 0.3 * i as f64,
    });
    let guesses = [[1.9, 7000.0]; 3];
    // Step 1e-4 of variables of order 1–100: truncation ~1e-8 f''' relative, round-off
    // ~1e-12/1e-4; the fixed-step solves are smooth in w.
    let worst = largest_difference(
        |v| {
            nlp.evaluate::<2, 2, 3, 4, 5, 5, 7>(&data, v, &guesses)
                .unwrap()
        },
        &w,
        |v| 1e-4 * (1.0 + v.abs()),
    );
    println!("largest relative difference from central differences: {worst:.2e}");
    assert!(worst < 1e-6, "{worst}");
}

#[test]
fn gauss_newton_and_bfgs_reach_the_same_optimum() {
    let setpoint = |t: f64| if t < 1200.0 { 72.0 } else { 66.0 };
    let mut inputs = Vec::new();
    for hessian in [Hessian::GaussNewton, Hessian::Bfgs] {
        let mut controller = controller(settings(8, hessian));
        let u = controller.solve(&data(&setpoint)).expect("SQP converges");
        println!("{hessian:?}: u0 = {u:?}, {:?}", controller.report);
        assert!(controller.report.violation < 1e-6);
        assert!((2.0..=10.0).contains(&u[0]));
        inputs.push(u[0]);
    }
    // Both converge to the relative step 1e-8 of the same local optimum.
    assert!(
        (inputs[0] - inputs[1]).abs() < 1e-5 * inputs[0],
        "{inputs:?}"
    );
}

#[test]
fn bad_settings_and_a_short_iteration_limit_are_errors() {
    let model = &electrolyzer::Model;
    let mut bad = settings(3, Hessian::GaussNewton);
    bad.input_bounds = vec![(10.0, 2.0)];
    let error = Nmpc::new(model, &["flow"], "temperature", bad).unwrap_err();
    assert!(error.to_string().contains("empty or not finite"), "{error}");
    assert!(Nmpc::new(
        model,
        &["nope"],
        "temperature",
        settings(3, Hessian::GaussNewton)
    )
    .is_err());
    assert!(Nmpc::new(model, &["flow"], "nope", settings(3, Hessian::GaussNewton)).is_err());
    let mut odd = settings(3, Hessian::GaussNewton);
    odd.quadrature_intervals = 3;
    assert!(Nmpc::new(model, &["flow"], "temperature", odd).is_err());
    let mut short = settings(3, Hessian::GaussNewton);
    short.max_iterations = 1;
    let mut controller = Nmpc::new(model, &["flow"], "temperature", short).unwrap();
    let setpoint = |_: f64| 60.0;
    let error = controller.solve(&data(&setpoint)).unwrap_err();
    assert!(
        matches!(error, ControlError::SqpNotConverged { .. }),
        "{error}"
    );
    let mut wrong = data(&setpoint);
    wrong.u_previous = vec![];
    assert!(controller.solve(&wrong).is_err());
}

/// The relaxed formulation (Bock et al.): `w^y_j` decision variables, off the algebraic
/// manifold here (so the relaxation `r_j ≠ 0` and its derivatives are exercised).
fn relaxed(horizon: usize, hessian: Hessian) -> NmpcSettings {
    NmpcSettings {
        formulation: Formulation::Relaxed { decay: 1.0 },
        ..settings(horizon, hessian)
    }
}

#[test]
fn relaxed_nlp_derivatives_match_central_differences() {
    let controller = controller(relaxed(3, Hessian::GaussNewton));
    let setpoint = |_: f64| 65.0;
    let data = data(&setpoint);
    let nlp = &controller.nlp;
    let n = nlp.variables();
    // Blocks (T, T_in, U, I, flow), x_3 last: voltages and currents 1–3% off the manifold.
    let w = DVector::from_fn(n, |i, _| match i % 5 {
        0 => 70.0 + 0.5 * i as f64,
        1 => 45.0 - 0.2 * i as f64,
        2 => 1.95 - 0.001 * i as f64,
        3 => 7100.0 + 10.0 * i as f64,
        _ => 4.0 + 0.3 * i as f64,
    });
    let guesses = [[1.9, 7000.0]; 3];
    let point = nlp
        .evaluate::<2, 2, 3, 4, 5, 5, 7>(&data, &w, &guesses)
        .unwrap();
    assert!(
        point.constraints.rows(8, 6).amax() > 1e-3,
        "off the manifold"
    );
    // As in the consistent test; the current (~7000 A) gets the same relative step.
    let worst = largest_difference(
        |v| {
            nlp.evaluate::<2, 2, 3, 4, 5, 5, 7>(&data, v, &guesses)
                .unwrap()
        },
        &w,
        |v| 1e-4 * (1.0 + v.abs()),
    );
    println!("relaxed: largest relative difference from central differences: {worst:.2e}");
    assert!(worst < 1e-6, "{worst}");
}

#[test]
fn relaxed_and_consistent_formulations_reach_the_same_optimum() {
    let setpoint = |t: f64| if t < 1200.0 { 72.0 } else { 66.0 };
    let mut inputs = Vec::new();
    for settings in [
        settings(8, Hessian::GaussNewton),
        relaxed(8, Hessian::GaussNewton),
    ] {
        let mut controller = controller(settings.clone());
        let u = controller.solve(&data(&setpoint)).expect("SQP converges");
        println!(
            "{:?}: u0 = {u:?}, {:?}",
            settings.formulation, controller.report
        );
        // At the solution the consistency conditions hold (the relaxation vanishes).
        assert!(controller.report.violation < 1e-6);
        inputs.push(u[0]);
    }
    // The relaxed DAE is the DAE at a solution: the same optimum, to the SQP's tolerance.
    assert!(
        (inputs[0] - inputs[1]).abs() < 1e-5 * inputs[0],
        "{inputs:?}"
    );
}

#[test]
fn the_relaxed_formulation_refuses_a_model_with_guards_and_a_bad_decay() {
    let mut tank_settings = relaxed(3, Hessian::GaussNewton);
    tank_settings.input_bounds = vec![(0.0, 0.2)];
    let error = Nmpc::new(
        &tank_model::tank::Model,
        &["inflow"],
        "level",
        tank_settings,
    )
    .unwrap_err();
    assert!(error.to_string().contains("without guards"), "{error}");
    let mut bad = relaxed(3, Hessian::GaussNewton);
    bad.formulation = Formulation::Relaxed { decay: f64::NAN };
    assert!(Nmpc::new(&electrolyzer::Model, &["flow"], "temperature", bad).is_err());
}

#[test]
fn a_setpoint_that_is_not_finite_is_an_error() {
    let mut controller = controller(settings(3, Hessian::GaussNewton));
    let setpoint = |_: f64| f64::NAN;
    let error = controller.solve(&data(&setpoint)).unwrap_err();
    assert!(matches!(error, ControlError::NonFinite { .. }), "{error}");
}

/// A closed loop's warm-started solves with BFGS (N = 25, the plant the model itself, an
/// estimate 3 °C off in `T_in` fed back). (BFGS blocks started singular made clarabel fail at
/// the second sample of the `electrolyzer` example, `NumericalError`; this loop does not
/// reproduce that failure — the example, run by CI, is its check.)
#[test]
fn bfgs_converges_on_every_sample_of_a_closed_loop() {
    let setpoint = |t: f64| if t < 1200.0 { 75.0 } else { 60.0 };
    for formulation in [Formulation::Relaxed { decay: 1.0 }, Formulation::Consistent] {
        let settings = NmpcSettings {
            formulation,
            ..settings(25, Hessian::Bfgs)
        };
        let mut controller = controller(settings);
        let (mut x, mut flow) = ([70.0, 45.0], 5.0);
        for k in 0..4 {
            let mut sample = data(&setpoint);
            let estimate = [x[0] + 0.5, x[1] - 3.0]; // the filter's start: T_in 3 °C off
            (sample.t, sample.x_hat, sample.u_previous) = (240.0 * k as f64, estimate, vec![flow]);
            flow = controller.solve(&sample).expect("SQP converges")[0];
            assert!((2.0..=10.0).contains(&flow));
            let p = electrolyzer::Model::parameters(&DISTURBANCES, &electrolyzer::U { flow });
            let next = electrolyzer::Model
                .solver()
                .algebraic_guess(&electrolyzer::Z {
                    voltage: 1.9,
                    current: 7000.0,
                })
                .solve(
                    sample.t,
                    sample.t + 240.0,
                    &electrolyzer::X {
                        temp: x[0],
                        temp_in: x[1],
                    },
                    &p,
                )
                .unwrap();
            x = next.y;
        }
    }
}
