//! Dense output (`Solver::dense_output`, `Solution::at`, `Solution::left_limit_at`): the state,
//! the algebraic variables and their sensitivities at any time, from the stored steps.
//!
//! The reference is a solve *sampled* at the same times (which lands on each, so its steps
//! differ): both approximate the exact solution within the solve's global error, so they must
//! agree within a multiple of `rtol ‖v‖ + atol`. The bounds asserted are the ones the docs of
//! `hysens_runtime::dense_output` state; each case prints the measured ratios
//! (`cargo test --release --test dense_output -- --nocapture`).
//! Checked on Serban & Recuero's Ex. 5.1 (an ODE with a switch), the bouncing ball (resets)
//! and the electromagnetic steel oscillator of their Ex. 5.2 (a DAE with memory: the
//! algebraic stress and its sensitivities need `ż` and `ẇ`), 100 random times each, at
//! `rtol` 1e-6, 1e-8 and 1e-10. At every event the left and right limits are the event log's
//! states, bit for bit.
#![deny(missing_docs)]

#[path = "support/event_models.rs"]
mod event_models;
#[path = "support/models.rs"]
mod models;

use event_models::{ball, steel};
use hysens::prelude::*;
use models::ex51;

/// The bounds the docs of `hysens_runtime::dense_output` state: the dense output within
/// `bound (rtol ‖v‖ + atol)` of a sampled solve, `‖v‖` the largest magnitude of that component
/// over the samples (a component's error is relative to its size along the solve, not at a
/// zero crossing). Measured (printed): states and algebraic variables ≤ 7, sensitivities ≤ 233
/// (the steel's stress sensitivities at rtol 1e-10); the bounds leave a factor 2–3.
const STATE_BOUND: f64 = 20.0;
/// See [`STATE_BOUND`].
const SENSITIVITY_BOUND: f64 = 500.0;

/// `n` times in `(t0, tf)`, uniform, from a fixed linear congruential sequence.
fn random_times(n: usize, t0: f64, tf: f64, seed: u64) -> Vec<f64> {
    let mut state = seed;
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            t0 + (tf - t0) * u
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

/// The largest ratio `|a − b| / (rtol scale + atol)` over the pairs `(a, b, scale)`.
fn worst(pairs: impl Iterator<Item = (f64, f64, f64)>, rtol: f64, atol: f64) -> f64 {
    pairs
        .map(|(a, b, scale)| (a - b).abs() / (rtol * scale + atol))
        .fold(0.0, f64::max)
}

/// The error ratios (states and algebraic variables; sensitivities) of `dense` read at the
/// sample times of `sampled`.
fn ratios<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    dense: &Solution<X, NY, NZ, NP>,
    sampled: &Solution<X, NY, NZ, NP>,
    rtol: f64,
    atol: f64,
) -> (f64, f64) {
    let read: Vec<SampleState<X, NY, NZ>> = sampled
        .samples
        .iter()
        .map(|s| dense.at(s.t).expect("within the solve"))
        .collect();
    let values =
        |s: &SampleState<X, NY, NZ>| -> Vec<f64> { s.y.iter().chain(&s.z).copied().collect() };
    let sensitivities = |s: &SampleState<X, NY, NZ>| -> Vec<f64> {
        let dy = s.dy.iter().flat_map(|c| c.iter().copied());
        dy.chain(s.dz.iter().flat_map(|c| c.iter().copied()))
            .collect()
    };
    let compare = |of: &dyn Fn(&SampleState<X, NY, NZ>) -> Vec<f64>| {
        let reference: Vec<Vec<f64>> = sampled.samples.iter().map(of).collect();
        // Each component's scale: its largest magnitude over the samples.
        let scale: Vec<f64> = (0..reference[0].len())
            .map(|i| reference.iter().map(|r| r[i].abs()).fold(0.0, f64::max))
            .collect();
        let pairs = read.iter().zip(&reference).flat_map(|(a, b)| {
            let a = of(a);
            (0..a.len())
                .map(|i| (a[i], b[i], scale[i]))
                .collect::<Vec<_>>()
        });
        worst(pairs, rtol, atol)
    };
    (compare(&values), compare(&sensitivities))
}

/// At every event of `dense`, the left limit is the event's `y_before` and the right limit its
/// `y_after`, bit for bit; the solve with dense output is the solve without it, bit for bit.
fn limits_are_the_event_log<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    dense: &Solution<X, NY, NZ, NP>,
    plain: &Solution<X, NY, NZ, NP>,
) {
    assert_eq!(dense.y, plain.y, "dense output does not change the steps");
    assert_eq!(dense.events, plain.events);
    for event in &dense.events {
        let before = dense
            .left_limit_at(event.t)
            .expect("an event time is in the solve");
        let after = dense.at(event.t).expect("an event time is in the solve");
        assert_eq!(before.y, event.y_before, "left limit at {}", event.t);
        assert_eq!(after.y, event.y_after, "right limit at {}", event.t);
        assert_eq!((before.mode, after.mode), (event.from, event.to));
    }
}

/// Solves `$model` from `$x0` with `$p` on `[0, $tf]` at each tolerance, with dense output and
/// sampled at 100 random times; asserts the bound and the limits; returns the worst ratios.
macro_rules! compare {
    ($model:path, $x0:expr, $p:expr, $tf:expr, $seed:expr) => {{
        use $model as m;
        let times = random_times(100, 0.0, $tf, $seed);
        let mut largest = (0.0_f64, 0.0_f64);
        for (rtol, atol) in [(1e-6, 1e-8), (1e-8, 1e-10), (1e-10, 1e-12)] {
            let solver = m::Model
                .solver()
                .tolerances(rtol, atol)
                .sensitivities_to(Params::All, InitialStates::All);
            let plain = solver.solve(0.0, $tf, &$x0, &$p).expect("solves");
            let dense = solver
                .dense_output()
                .solve(0.0, $tf, &$x0, &$p)
                .expect("solves");
            let sampled = solver
                .samples(&times)
                .solve(0.0, $tf, &$x0, &$p)
                .expect("solves");
            assert!(!dense.events.is_empty(), "the case has events");
            limits_are_the_event_log(&dense, &plain);
            let (values, sens) = ratios(&dense, &sampled, rtol, atol);
            let ends = worst(
                dense
                    .y
                    .iter()
                    .zip(&sampled.y)
                    .map(|(&a, &b)| (a, b, a.abs().max(b.abs()))),
                rtol,
                atol,
            );
            println!("  final states of the two solves: ratio {ends:.3}");
            println!(
                "{} rtol {rtol:e}: worst ratio states {values:.3}, sensitivities {sens:.3}",
                stringify!($model)
            );
            assert!(values < STATE_BOUND, "states: {values}");
            assert!(sens < SENSITIVITY_BOUND, "sensitivities: {sens}");
            largest = (largest.0.max(values), largest.1.max(sens));
        }
        largest
    }};
}

/// Serban & Recuero 2019, Ex. 5.1 (the quickstart's model): one switch.
#[test]
fn ex51_at_random_times() {
    compare!(ex51, ex51::X { x: 0.0 }, ex51::P { p: 2.9 }, 5.0, 1);
}

/// The bouncing ball: resets of the velocity at every impact.
#[test]
fn ball_at_random_times() {
    let p = ball::P { g: 9.81, e: 0.8 };
    compare!(ball, ball::X { h: 1.0, v: 0.0 }, p, 2.0, 2);
}

/// Serban & Recuero 2019, Ex. 5.2: the EM steel oscillator, a DAE with memory.
#[test]
fn steel_at_random_times() {
    let pi2 = core::f64::consts::PI.powi(2);
    let p = steel::P {
        k_a: 32.0 * pi2,
        k_b: pi2,
        alpha: 205.0,
        beta: 0.0,
    };
    compare!(steel, steel::X { u: 0.0, v: 0.0 }, p, 10.0, 3);
}

/// Reading a solve without dense output, or outside the solve, is an error that says so.
#[test]
fn no_value_where_there_is_none() {
    let (x0, p) = (ex51::X { x: 0.0 }, ex51::P { p: 2.9 });
    let solver = ex51::Model.solver();
    let plain = solver.solve(0.0, 5.0, &x0, &p).expect("solves");
    let error = plain.at(1.0).expect_err("not recorded");
    assert!(error.to_string().contains("not requested"), "{error}");
    let dense = solver
        .dense_output()
        .solve(0.0, 5.0, &x0, &p)
        .expect("solves");
    for t in [-0.1, 5.0 + 1e-9, f64::NAN] {
        let error = dense.at(t).expect_err("outside");
        assert!(error.to_string().contains("outside the solve"), "{error}");
    }
    let end = dense.at(5.0).expect("the final time");
    assert_eq!(end.y, dense.y);
    let start = dense.left_limit_at(0.0).expect("the initial time");
    assert_eq!(start.y, [0.0]);
}

/// The no-heap path: the points go into caller storage and `dense_output` reads them, the same
/// values as the owned solution's; storage too small for them is `StorageFull`, not a panic.
#[test]
fn no_heap_points_read_like_the_owned_solution() {
    use hysens::runtime::{dense_output, DensePoint, EventRecord, HybridOptions, HybridOutputs};
    use hysens::runtime::{HybridSolution, Limit, SolveError};
    let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 9.81, e: 0.8 });
    let problem = ball::Model::problem(0.0, 2.0, &x0, &p);
    let options = HybridOptions::new(1e-8, 1e-10);
    let mut points = [DensePoint::ZERO; 400];
    let mut events = [EventRecord::ZERO; 16];
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: Some(&mut events),
        steps: None,
        dense: Some(&mut points),
    };
    let mut summary = HybridSolution::ZERO;
    ball::Model
        .solve_with_sensitivities(&problem, &options, &mut outputs, &mut summary)
        .expect("solves");
    let stored = &points[..summary.n_dense_points];
    let owned = ball::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::None)
        .dense_output()
        .solve(0.0, 2.0, &x0, &p)
        .expect("solves");
    for t in random_times(20, 0.0, 2.0, 4) {
        let read = dense_output(stored, t, Limit::Right).expect("inside");
        let state = owned.at(t).expect("inside");
        assert_eq!(read.y, state.y, "at {t}");
        assert_eq!(read.sy.map(|row| row[1]), state.dy[1], "∂y/∂e at {t}");
    }
    let mut few = [DensePoint::ZERO; 3];
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: None,
        steps: None,
        dense: Some(&mut few),
    };
    let full = ball::Model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut summary);
    assert!(
        matches!(full, Err(SolveError::StorageFull { capacity: 3, .. })),
        "{full:?}"
    );
    assert_eq!(summary.n_dense_points, 3);
}
