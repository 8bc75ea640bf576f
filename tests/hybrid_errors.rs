//! Error returns of the hybrid solve: a NaN parameter is reported before any work, and full
//! event or sample storage ends the solve with `StorageFull`, keeping what was computed
//! (checked against the exact switch times of Serban & Recuero 2019, Example 5.1).
#![allow(clippy::needless_range_loop)]
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits

use crate::models;
use crate::runtime;

use hysens::runtime::{HybridOptions, SolveError, StepPlan, ESDIRK34};
use models::ex51;
use runtime::*;

/// A NaN parameter is reported before any work, with its context.
#[test]
fn nan_parameter_is_an_error() {
    let r = run(
        &ex51::Model,
        &ESDIRK34,
        &ex51_problem(f64::NAN),
        &HybridOptions::new(1e-8, 1e-10),
        StepPlan::Adaptive,
        4,
        0,
    );
    assert_eq!(
        r.result,
        Err(SolveError::NonFiniteValue {
            t: 0.0,
            mode: 0,
            what: "the parameters"
        })
    );
    assert_eq!(r.sol.t, 0.0);
}

/// Full event or sample storage ends the solve with StorageFull and keeps what was computed.
#[test]
fn storage_full_is_an_error() {
    let m = ex51::Model;
    let opts = HybridOptions::new(1e-8, 1e-10);
    let r = run(
        &m,
        &ESDIRK34,
        &ex51_problem(2.9),
        &opts,
        StepPlan::Adaptive,
        2,
        0,
    );
    println!("events full: {:?}", r.result);
    assert!(matches!(
        r.result,
        Err(SolveError::StorageFull {
            capacity: 2,
            mode: 0,
            ..
        })
    ));
    assert_eq!(r.events.len(), 2);
    assert!((r.events[1].t - EX51_T[1]).abs() < 1e-6);
    // The solve stopped at the third event, with the state there.
    assert!((r.sol.t - EX51_T[2]).abs() < 1e-6);
    let times = [0.1, 0.25, 0.5, 1.0, 2.0];
    let mut problem = ex51_problem(2.9);
    problem.sample_times = &times;
    let r = run(&m, &ESDIRK34, &problem, &opts, StepPlan::Adaptive, 8, 3);
    println!("samples full: {:?}", r.result);
    assert!(matches!(
        r.result,
        Err(SolveError::StorageFull { capacity: 3, .. })
    ));
    assert_eq!(r.samples.len(), 3);
    assert_eq!(r.sol.t, 1.0);
}
