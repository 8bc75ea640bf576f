//! The filter on a linear index-1 DAE, where every quantity has a closed form:
//! `x1' = −a x1 + z`, `x2' = −c x2`, `0 = z − b x2`, measured by `m = x1 + 2z`.
//! The transition matrix is `exp(A t)` with `A = [[−a, b], [0, −c]]`, the process-noise
//! integral follows from it, and the update is the textbook Kalman update with
//! `C = [1, 2b]` (the output reads `z`, so `C` must carry `∂z/∂x`).

use hysens_control::{ContinuousDiscreteEkf, ControlError, ModeOf, Prediction};
use nalgebra::{DMatrix, DVector};

#[path = "support/linear_dae.rs"]
mod linear_dae;
use linear_dae::linear;

const A: f64 = 0.7;
const B: f64 = 1.3;
const C: f64 = 0.2;
const P: [f64; 3] = [A, B, C];

/// `exp(A t)` in closed form (upper triangular, distinct eigenvalues).
fn transition(t: f64) -> DMatrix<f64> {
    let (ea, ec) = ((-A * t).exp(), (-C * t).exp());
    DMatrix::from_row_slice(2, 2, &[ea, B * (ec - ea) / (A - C), 0.0, ec])
}

fn sigma() -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[0.3, 0.0, 0.1, 0.2])
}

/// `Φ P Φᵀ + ∫₀ᵀ Φ(T − s) σσᵀ Φ(T − s)ᵀ ds`, the integral by composite Simpson on 20,000
/// sub-intervals of the closed-form `Φ` (error ~1e-17 relative: `h⁴ = 4e-18` for `T = 2`).
fn reference_covariance(p0: &DMatrix<f64>, horizon: f64) -> DMatrix<f64> {
    let n = 20_000;
    let h = horizon / n as f64;
    let noise = sigma() * sigma().transpose();
    let mut q = DMatrix::zeros(2, 2);
    for k in 0..=n {
        let w = match k {
            0 => 1.0,
            k if k == n => 1.0,
            k if k % 2 == 1 => 4.0,
            _ => 2.0,
        };
        let phi = transition(horizon - k as f64 * h);
        q += (w * h / 3.0) * &phi * &noise * phi.transpose();
    }
    let phi = transition(horizon);
    &phi * p0 * phi.transpose() + q
}

fn filter(p0: DMatrix<f64>) -> ContinuousDiscreteEkf<'static, linear::Model, 2, 1, 3> {
    let r = DMatrix::from_element(1, 1, 0.25);
    let start = (0.0, [1.0, -0.5], [0.0], &P);
    ContinuousDiscreteEkf::new(
        ModeOf::new(&linear::Model, 0),
        &["reading"],
        r,
        sigma(),
        start,
        p0,
    )
    .expect("a valid filter")
}

fn p0() -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[0.5, 0.1, 0.1, 0.3])
}

#[test]
fn prediction_matches_the_closed_form_and_simpson_converges_at_fourth_order() {
    let horizon = 2.0;
    let reference = reference_covariance(&p0(), horizon);
    let mut errors = Vec::new();
    for intervals in [2, 4, 8] {
        let mut ekf = filter(p0());
        // Tight tolerances, so that what is left is the quadrature's error.
        ekf.prediction = Prediction {
            tolerances: (1e-12, 1e-14),
            fixed_step: None,
            quadrature_intervals: intervals,
        };
        ekf.predict(horizon, &P).expect("prediction");
        let phi = transition(horizon);
        let x = &phi * DVector::from_row_slice(&[1.0, -0.5]);
        // ESDIRK34 (third order) at rtol 1e-12 is 1.2e-10 off the closed form here.
        assert!((ekf.y[0] - x[0]).abs() < 1e-9 && (ekf.y[1] - x[1]).abs() < 1e-9);
        assert!((ekf.z[0] - B * ekf.y[1]).abs() < 1e-12, "ẑ consistent");
        errors.push((&ekf.covariance - &reference).amax() / reference.amax());
    }
    println!("relative covariance error, 2/4/8 intervals: {errors:?}");
    // Fourth order: each halving divides the error by about 16 (at least 10 allows the
    // pre-asymptotic first halving).
    assert!(
        errors[0] / errors[1] > 10.0 && errors[1] / errors[2] > 10.0,
        "{errors:?}"
    );
    // Measured 2.6e-3, 2.1e-4, 1.4e-5 (a horizon of 1.4 time constants of the fast mode).
    assert!(errors[2] < 2e-5, "{errors:?}");
}

#[test]
fn update_is_the_kalman_update_with_the_output_read_through_the_algebraic_variable() {
    let mut ekf = filter(p0());
    let (y, z) = (ekf.y, ekf.z);
    let measurement = 0.4;
    let innovation = ekf.update(&[measurement], &P).expect("update");
    // By hand: C = [1, 2b], R_e = C P Cᵀ + R, K = P Cᵀ / R_e.
    let c = DMatrix::from_row_slice(1, 2, &[1.0, 2.0 * B]);
    let re = (&c * p0() * c.transpose())[(0, 0)] + 0.25;
    let k = p0() * c.transpose() / re;
    let e = measurement - (y[0] + 2.0 * z[0]);
    assert!((innovation.residual[0] - e).abs() < 1e-14);
    assert!((innovation.covariance[(0, 0)] - re).abs() < 1e-14);
    let expected_p = (DMatrix::identity(2, 2) - &k * &c) * p0();
    assert!(
        (&ekf.covariance - &expected_p).amax() < 1e-14,
        "Joseph form = (I − KC)P here"
    );
    for i in 0..2 {
        assert!((ekf.y[i] - (y[i] + k[(i, 0)] * e)).abs() < 1e-14);
    }
    assert!((ekf.z[0] - B * ekf.y[1]).abs() < 1e-14, "ẑ re-solved");
}

#[test]
fn a_singular_innovation_covariance_is_an_error_and_keeps_the_estimate() {
    let mut ekf = filter(DMatrix::zeros(2, 2));
    ekf.measurement_noise = DMatrix::zeros(1, 1);
    let before = (ekf.y, ekf.covariance.clone());
    let error = ekf.update(&[0.0], &P).unwrap_err();
    assert!(
        matches!(error, ControlError::SingularInnovationCovariance { .. }),
        "{error}"
    );
    assert_eq!((ekf.y, ekf.covariance.clone()), before);
    assert!(ekf.update(&[f64::NAN], &P).is_err());
    assert!(ekf.update(&[0.0, 1.0], &P).is_err());
}

#[test]
fn bad_arguments_are_errors() {
    let r = DMatrix::from_element(1, 1, 0.25);
    let start = (0.0, [1.0, -0.5], [0.0], &P);
    let plant = ModeOf::new(&linear::Model, 0);
    let unknown = ContinuousDiscreteEkf::new(plant, &["nope"], r.clone(), sigma(), start, p0());
    assert!(unknown
        .unwrap_err()
        .to_string()
        .contains("no output named `nope`"));
    let wrong =
        ContinuousDiscreteEkf::new(plant, &["reading"], r, sigma(), start, DMatrix::zeros(3, 3));
    assert!(wrong.unwrap_err().to_string().contains("P0"));
    let mut ekf = filter(p0());
    ekf.prediction.quadrature_intervals = 3;
    assert!(ekf.predict(1.0, &P).is_err());
    ekf.prediction.quadrature_intervals = 4;
    assert!(ekf.predict(-1.0, &P).is_err());
    ekf.prediction.fixed_step = Some(f64::NAN);
    let error = ekf.predict(1.0, &P).unwrap_err();
    assert!(error.to_string().contains("fixed step size"), "{error}");
}
