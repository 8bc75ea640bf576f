//! Error returns of the ESDIRK integrator (never a panic): non-finite inputs, the step limit,
//! commits of anything but the step just computed, a blow-up, constraints without a solution
//! or with a singular g_z, invalid arguments. Each checks the error's kind and context and,
//! where the integrator exists, that it keeps its last accepted state.
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use crate::runtime;
use crate::smooth_modes;

use hysens::runtime::smooth::{Esdirk, SmoothMode, StepLength, Trial};
use hysens::runtime::{ModeJacobian, Options, SolveError, ESDIRK34};
use runtime::*;
use smooth_modes::*;

/// y' = y², y(0) = 1: exact y = 1/(1 − t), which blows up at t = 1. Used to check that the
/// failure is reported as an error, not a panic or an infinite loop.
#[derive(Debug)]
struct Blowup;
impl SmoothMode<1, 0, 0> for Blowup {
    type Store = hysens::runtime::Inline;
    fn f(&self, _: f64, y: &[f64; 1], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = y[0] * y[0];
    }
    fn g(&self, _: f64, _: &[f64; 1], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<1, 0>,
    ) {
        j.fy[0][0] = 2.0 * y[0];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 1],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}

/// Constraint without a real root (g = z² + 1) or with singular g_z (g = y − 1).
#[derive(Debug)]
struct BadConstraint {
    singular: bool,
}
impl SmoothMode<1, 1, 0> for BadConstraint {
    type Store = hysens::runtime::Inline;
    fn f(&self, _: f64, _: &[f64; 1], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = z[0];
    }
    fn g(&self, _: f64, y: &[f64; 1], z: &[f64; 1], _: &[f64; 0], o: &mut [f64; 1]) {
        o[0] = if self.singular {
            y[0] - 1.0
        } else {
            z[0] * z[0] + 1.0
        };
    }
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        z: &[f64; 1],
        _: &[f64; 0],
        j: &mut ModeJacobian<1, 1>,
    ) {
        j.fz[0][0] = 1.0;
        if self.singular {
            j.gy[0][0] = 1.0;
        } else {
            j.gz[0][0] = 2.0 * z[0];
        }
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 1],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 1],
        _: &mut [[f64; 0]; 1],
    ) {
    }
}

#[test]
fn nan_initial_value_is_an_error() {
    let e = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        3,
        [],
        0.0,
        [f64::NAN, 1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap_err();
    assert_eq!(
        e,
        SolveError::NonFiniteValue {
            t: 0.0,
            mode: 3,
            what: "initial y"
        }
    );
    let e = Esdirk::<_, 4, 1, 0, 2, 1>::new(
        &Scalar,
        &ESDIRK34,
        0,
        [f64::INFINITY, 0.0],
        0.0,
        [1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        SolveError::NonFiniteValue {
            what: "parameters",
            ..
        }
    ));
}

#[test]
fn too_many_steps_keeps_last_state() {
    let mut opts = Options::new(1e-10, 1e-10);
    opts.max_steps = 5;
    let mut it =
        Esdirk::<_, 4, 3, 0, 0, 3>::new(&Linear, &ESDIRK34, 1, [], 0.0, [1.0, 1.0, 2.0], [], opts)
            .unwrap();
    let e = it.integrate_to(100.0, no_obs).unwrap_err();
    assert!(
        matches!(
            e,
            SolveError::TooManySteps {
                mode: 1,
                max_steps: 5,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(it.t() > 0.0 && it.t() < 100.0 && it.t() == e.time());
    assert!(it.stats().steps <= 5);
    // The state is the last accepted one and can be continued.
    assert!(it.y().iter().all(|v| v.is_finite()));
}

/// A commit accepts only the step just computed, to its size and end time (up to round-off):
/// anything else is an error that leaves the integrator as it was.
#[test]
fn commit_accepts_only_the_step_just_computed() {
    let mut it = Esdirk::<_, 4, 3, 0, 0, 3>::new(
        &Linear,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0, 1.0, 2.0],
        [],
        Options::new(1e-8, 1e-8),
    )
    .unwrap();
    let rejected = |r: Result<(), SolveError>| {
        matches!(
            r,
            Err(SolveError::InvalidArgument {
                what: "step to accept (not the step just computed, or t_end ≠ t + h)",
                ..
            })
        )
    };
    let y0 = *it.y();
    assert!(rejected(it.commit_fixed(
        0.1,
        0.1,
        StepLength::Fixed,
        &mut no_obs
    )));
    it.evaluate_fixed(0.1).unwrap();
    assert!(rejected(it.commit_fixed(
        0.2,
        0.2,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert!(rejected(it.commit_fixed(
        0.1,
        0.1 + 1e-9,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert!(rejected(it.commit_fixed(
        0.1,
        f64::NAN,
        StepLength::Fixed,
        &mut no_obs
    )));
    assert_eq!(
        (it.t(), *it.y()),
        (0.0, y0),
        "unchanged by the rejected commits"
    );
    it.commit_fixed(0.1, 0.1, StepLength::Fixed, &mut no_obs)
        .unwrap();
    assert_eq!(it.t(), 0.1);
    assert!(
        rejected(it.commit_fixed(0.1, 0.2, StepLength::Fixed, &mut no_obs)),
        "taken once"
    );
    let trial = it.try_step(1.0).unwrap();
    let forged = Trial {
        h: trial.h * 0.5,
        ..trial
    };
    assert!(rejected(it.commit(&forged, &mut no_obs)));
    it.commit(&trial, &mut no_obs).unwrap();
    assert_eq!(it.t(), trial.t_end);
}

#[test]
fn blowup_is_an_error_not_a_panic() {
    let mut it = Esdirk::<_, 4, 1, 0, 0, 1>::new(
        &Blowup,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap();
    let e = it.integrate_to(2.0, no_obs).unwrap_err();
    println!("blow-up: {e} after {:?}", it.stats());
    assert!(
        matches!(
            e,
            SolveError::StepSizeTooSmall { .. }
                | SolveError::NewtonFailure { .. }
                | SolveError::NonFiniteValue { .. }
        ),
        "{e:?}"
    );
    // Stopped at the numerical blow-up time, which differs from the exact t = 1 by the global
    // error of the blow-up time (measured 2.6e-5 at rtol = 1e-6); 1e-2 is a loose bracket.
    assert!((it.t() - 1.0).abs() < 1e-2, "{}", it.t());
}

#[test]
fn inconsistent_and_singular_constraints() {
    let opts = Options::new(1e-6, 1e-6);
    // A constraint no `z` satisfies (`z² + 1 = 0`) is an inconsistent start; one whose `g_z` is
    // singular at the start is too, with the column (issue #19).
    for (singular, expected_column) in [(false, None), (true, Some(0))] {
        let e = Esdirk::<_, 4, 1, 1, 0, 2>::new(
            &BadConstraint { singular },
            &ESDIRK34,
            0,
            [],
            0.0,
            [1.0],
            [0.3],
            opts,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                SolveError::InconsistentInitialValues {
                    singular_column,
                    ..
                } if singular_column == expected_column
            ),
            "singular = {singular}: {e:?}"
        );
    }
}

#[test]
fn invalid_arguments() {
    let mut it = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        0,
        [],
        1.0,
        [1.0, 1.0],
        [],
        Options::new(1e-6, 1e-6),
    )
    .unwrap();
    assert!(matches!(
        it.integrate_to(0.5, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    assert!(matches!(
        it.step_fixed(-1.0, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    assert!(matches!(
        it.integrate_to(f64::NAN, no_obs),
        Err(SolveError::InvalidArgument { .. })
    ));
    let e = Esdirk::<_, 4, 2, 0, 0, 2>::new(
        &Smooth,
        &ESDIRK34,
        0,
        [],
        0.0,
        [1.0, 1.0],
        [],
        Options::new(1e-6, 0.0),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        SolveError::InvalidArgument {
            what: "atol (must be finite and > 0)",
            ..
        }
    ));
}
