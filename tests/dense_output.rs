//! Dense output (`Solver::dense_output`, `Solution::at`, `Solution::left_limit_at`): the state,
//! the algebraic variables and their sensitivities at any time, from the stored steps.
//!
//! The reference is a solve *sampled* at the same times (which lands on each, so its steps
//! differ): both approximate the exact solution within the solve's global error, so they must
//! agree within a multiple of `rtol ‖v‖ + atol`. The bounds asserted are the ones the docs of
//! `hysens_runtime::dense_output` state; each case prints the measured ratios
//! (`cargo test --release -p hysens --test suite dense_output:: -- --nocapture`).
//! Checked on Serban & Recuero's Ex. 5.1 (an ODE with a switch), the bouncing ball (resets)
//! and the electromagnetic steel oscillator of their Ex. 5.2 (a DAE with memory: the
//! algebraic stress and its sensitivities), 100 random times each, at `rtol` 1e-6, 1e-8 and
//! 1e-10; and on stiff problems over steps far longer than their fast time scale (Robertson's
//! kinetics, Van der Pol at μ = 1000, Robertson dosed once) at `rtol` 1e-4, 1e-6 and 1e-8.
//! At every event the left and right limits are the event log's states, bit for bit.
#![deny(missing_docs)]

use crate::event_models;
use crate::models;

use event_models::{ball, steel};
use hysens::prelude::*;
use models::{ex51, robertson, vdp, CLASSIC_RATES, CLASSIC_Y0};

/// The bounds the docs of `hysens_runtime::dense_output` state: the dense output within
/// `bound (rtol ‖v‖ + atol)` of a sampled solve, `‖v‖` the largest magnitude of that component
/// over the samples (a component's error is relative to its size along the solve, not at a
/// zero crossing). Measured (printed): states and algebraic variables ≤ 5.6 (Ex. 5.1 at rtol
/// 1e-10), sensitivities ≤ 38 (Robertson at rtol 1e-6); before the stage-value extension, with a
/// cubic Hermite through `f` at the step ends, 1.3e3 and 233.
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

/// Solves `$model` from `$x0` with `$p` on `[0, $tf]` at each `rtol` (with `atol`), with dense
/// output and sampled at `$times`; asserts the state bound and `$sens_bound` for the
/// sensitivities, and returns the worst ratios.
macro_rules! compare_stiff {
    ($model:path, $x0:expr, $p:expr, $tf:expr, $times:expr, $atol:expr, $sens_bound:expr) => {{
        use $model as m;
        let mut largest = (0.0_f64, 0.0_f64);
        for rtol in [1e-4, 1e-6, 1e-8] {
            // The sensitivities in the error test, so that both solves resolve them (without
            // it the two solves' own sensitivities differ by far more than the interpolation).
            let mut options = HybridOptions::new(rtol, $atol);
            options.integrator.sensitivity_error_test = true;
            let solver = m::Model
                .solver()
                .options(options)
                .sensitivities_to(Params::All, InitialStates::None);
            let dense = solver
                .dense_output()
                .solve(0.0, $tf, &$x0, &$p)
                .expect("solves");
            let sampled = solver
                .samples(&$times)
                .solve(0.0, $tf, &$x0, &$p)
                .expect("solves");
            let (values, sens) = ratios(&dense, &sampled, rtol, $atol);
            println!(
                "{} rtol {rtol:e}: worst ratio states {values:.3}, sensitivities {sens:.3}",
                stringify!($model)
            );
            assert!(values < STATE_BOUND, "states: {values}");
            assert!(sens < $sens_bound, "sensitivities: {sens}");
            largest = (largest.0.max(values), largest.1.max(sens));
        }
        largest
    }};
}

/// Robertson's kinetics to `t = 1e5`, read at 40 log-spaced times: a stiff problem whose fast
/// intermediate `y₂` (≤ 3.7e-5) sits on a slow manifold while the steps grow to 10⁴ s. A
/// Hermite cubic through the slopes `f` at the step ends was off by 17 % of `y₂`'s size at
/// rtol 1e-4 (ratio 1.3e3 in this metric): `f` multiplies the step's distance from the manifold
/// by the stiffness. The stage-value extension keeps the error near the solve's own.
#[test]
fn robertson_stiff_component_between_long_steps() {
    let times: Vec<f64> = (0..40)
        .map(|k| 10f64.powf(-3.0 + 8.0 * (k as f64 + 0.5) / 40.0))
        .collect();
    compare_stiff!(
        robertson,
        CLASSIC_Y0,
        CLASSIC_RATES,
        1e5,
        times,
        1e-10,
        SENSITIVITY_BOUND
    );
}

/// Van der Pol at μ = 1000 over two relaxation cycles (stiff slow phases, fast jumps).
#[test]
fn van_der_pol_between_long_steps() {
    let times = random_times(100, 0.0, 750.0, 4);
    let x0 = vdp::X { y1: 2.0, y2: 0.0 };
    compare_stiff!(
        vdp,
        x0,
        vdp::P { mu: 1000.0 },
        750.0,
        times,
        1e-8,
        SENSITIVITY_BOUND
    );
}

/// Robertson's kinetics dosed once: when `A` has fallen to `y₁ = 0.8`, a fifth of the
/// initial amount is added. After the dose every grid point moves with the rate constants
/// (the dose time depends on them), so the fixed-time sensitivities inside a step carry the
/// grid-shift term `ẏ(θ) (∂t_n/∂p + θ ∂h/∂p)` for a stiff component.
#[hysens::hybrid_model]
mod dosed_robertson {
    /// The concentrations.
    #[states]
    pub struct X {
        /// Species `A`.
        pub y1: f64,
        /// Species `B`, the fast intermediate.
        pub y2: f64,
        /// Species `C`.
        pub y3: f64,
    }

    /// The rate constants.
    #[params]
    pub struct P {
        /// `A → B`.
        pub k1: f64,
        /// `2B → B + C`.
        pub k2: f64,
        /// `B + C → A + C`.
        pub k3: f64,
    }

    /// Robertson's rates.
    fn rates(x: &X, p: &P) -> X {
        X {
            y1: -p.k1 * x.y1 + p.k3 * x.y2 * x.y3,
            y2: p.k1 * x.y1 - p.k3 * x.y2 * x.y3 - p.k2 * x.y2.powi(2),
            y3: p.k2 * x.y2.powi(2),
        }
    }

    /// Before the dose.
    #[mode(initial)]
    fn before(x: &X, p: &P) -> X {
        rates(x, p)
    }

    /// After the dose.
    #[mode]
    fn after(x: &X, p: &P) -> X {
        rates(x, p)
    }

    /// `A` down to 0.8.
    #[guard(before -> after, falling)]
    fn low(x: &X) -> f64 {
        x.y1 - 0.8
    }

    /// The dose.
    #[reset(low)]
    fn dose(x: &X) -> X {
        X {
            y1: x.y1 + 0.2,
            y2: x.y2,
            y3: x.y3,
        }
    }
}

/// The dosed Robertson problem (above), read at 40 log-spaced times to `t = 1e5`.
#[test]
fn stiff_component_after_an_event() {
    let times: Vec<f64> = (0..40)
        .map(|k| 10f64.powf(-3.0 + 8.0 * (k as f64 + 0.5) / 40.0))
        .collect();
    let x0 = dosed_robertson::X {
        y1: 1.0,
        y2: 0.0,
        y3: 0.0,
    };
    let p = dosed_robertson::P {
        k1: 0.04,
        k2: 3e7,
        k3: 1e4,
    };
    let solution = dosed_robertson::Model
        .solver()
        .solve(0.0, 1e5, &x0, &p)
        .expect("solves");
    assert_eq!(solution.events.len(), 1, "one dose");
    println!("dose at t = {}", solution.events[0].t);
    // Measured 29, 38 and 45 at rtol 1e-4, 1e-6, 1e-8 (states 1.1, 3.8, 2.0). On the grid that
    // moves with `p` after the dose, a step's end converts to fixed time with the step's
    // derivative with respect to its length, not with `f`: with `f`, which carries a stiff
    // component's distance from its slow manifold times the stiffness, they were 148, 1349
    // and 55 (the docs of `hysens_runtime::dense_output`, "On a moving grid").
    compare_stiff!(dosed_robertson, x0, p, 1e5, times, 1e-10, SENSITIVITY_BOUND);
    // That derivative is computed aside: with sensitivities (in the error test or not), the
    // solve with dense output is the solve without it, bit for bit, counters included.
    for error_test in [false, true] {
        let mut options = HybridOptions::new(1e-6, 1e-10);
        options.integrator.sensitivity_error_test = error_test;
        let solver = dosed_robertson::Model
            .solver()
            .options(options)
            .sensitivities_to(Params::All, InitialStates::None);
        let dense = solver
            .dense_output()
            .solve(0.0, 1e5, &x0, &p)
            .expect("solves");
        let plain = solver.solve(0.0, 1e5, &x0, &p).expect("solves");
        assert_eq!(dense.y, plain.y);
        assert_eq!(dense.stats, plain.stats);
        for of in ["y1", "y2", "y3"] {
            for wrt in ["k1", "k2", "k3"] {
                assert_eq!(
                    dense.sensitivity(of, wrt).expect("known"),
                    plain.sensitivity(of, wrt).expect("known")
                );
            }
        }
    }
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
