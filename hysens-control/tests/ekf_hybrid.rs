//! The filter on a model it was not written for: the hybrid tank of `examples/tank_nmpc` (an
//! ODE, no algebraic variables, a switch at the weir's crest inside the samples). Noise-free
//! measurements of the true level from a start 5 cm off: the estimate converges to the truth
//! through the crossing, and the covariance stays symmetric positive definite.

#[path = "../../examples/tank_nmpc/model.rs"]
mod model;
use hysens_control::{ContinuousDiscreteEkf, ModeOf, Prediction};
use model::tank;
use nalgebra::DMatrix;

#[test]
fn the_filter_tracks_the_tank_through_the_crest() {
    let p = [0.15]; // filling fast: the level crosses the crest at about 1.3 s
    let truth = |t: f64| {
        tank::Model
            .solver()
            .tolerances(1e-12, 1e-14)
            .solve(
                0.0,
                t,
                &tank::X { level: 0.8 },
                &tank::Model::parameters(&tank::U { inflow: p[0] }),
            )
            .unwrap()
            .x
            .level
    };
    let mut ekf = ContinuousDiscreteEkf::new(
        ModeOf::new(&tank::Model, 0),
        &["level"],
        DMatrix::from_element(1, 1, 1e-6),
        DMatrix::from_element(1, 1, 1e-3),
        (0.0, [0.75], [], &p),
        DMatrix::from_element(1, 1, 0.01),
    )
    .unwrap();
    // Many nodes: an event inside a sample makes the noise integrand jump (module docs).
    ekf.prediction = Prediction {
        quadrature_intervals: 16,
        ..Prediction::default()
    };
    let mut crossed = false;
    for k in 0..10 {
        let t = 0.5 * k as f64;
        if k > 0 {
            ekf.predict(t, &p).expect("prediction");
        }
        let level = truth(t);
        crossed |= level > 1.0;
        ekf.update(&[level], &p).expect("update");
        let c = &ekf.covariance;
        assert!(c[(0, 0)] > 0.0 && c[(0, 0)].is_finite());
        println!(
            "t = {t}: truth {level:.6}, estimate {:.6}, σ {:.2e}",
            ekf.y[0],
            c[(0, 0)].sqrt()
        );
    }
    assert!(crossed, "the truth crossed the crest");
    // Measurement σ 1 mm: the estimate ends within 3σ of the filter's own uncertainty.
    let error = (ekf.y[0] - truth(4.5)).abs();
    assert!(
        error < 3.0 * ekf.covariance[(0, 0)].sqrt() + 1e-9,
        "{error}"
    );
}

#[test]
fn the_prediction_keeps_the_mode_it_ends_in_and_no_output_is_an_error() {
    let p = [0.15];
    let start = (0.0, [0.95], [], &p);
    let (r, sigma, p0) = (
        DMatrix::from_element(1, 1, 1e-6),
        DMatrix::from_element(1, 1, 1e-3),
        DMatrix::from_element(1, 1, 0.01),
    );
    let mut ekf = ContinuousDiscreteEkf::new(
        ModeOf::new(&tank::Model, 0),
        &["level"],
        r.clone(),
        sigma.clone(),
        start,
        p0.clone(),
    )
    .unwrap();
    ekf.predict(2.0, &p).unwrap();
    assert_eq!(tank::Model::mode_name(ekf.plant.mode), Some("spilling"));
    let none = ContinuousDiscreteEkf::new(
        ModeOf::new(&tank::Model, 0),
        &[],
        DMatrix::zeros(0, 0),
        sigma,
        start,
        p0,
    );
    assert!(none
        .unwrap_err()
        .to_string()
        .contains("at least one measured output"));
}
