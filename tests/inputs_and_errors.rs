//! Inputs that cannot be confused and errors that say what is wrong (issue #19, "No silent
//! wrong answers at events"), one test per case of the issue:
//!
//! - the initial state and the parameters are the model's own types (swapping them does not
//!   compile: `tests/ui/swapped_initial_state_and_parameters.rs`), and a model with inputs
//!   takes its parameters and inputs together (`Model::parameters(&p, &u)`);
//! - a sampled cost without data is an error, not a cost against data 0;
//! - a non-finite input is named as the input it is (the initial state, not the parameters the
//!   builder appends it to for initial-state sensitivities), and an invalid time span says
//!   which of `t0`, `tf` is wrong;
//! - an algebraic equation without a solution at `t0` is an inconsistent start, not a singular
//!   matrix;
//! - a start exactly on a switching surface whose both modes are marked `initial_if` has no
//!   initial mode, and the error says what to do;
//! - errors name modes, guards and surfaces; "too many events" says Zeno only when the events
//!   accumulate in time, and otherwise names the cap; `gradient()` fails as `solve()` does.
#![deny(missing_docs)]

use hysens::prelude::*;

// A bouncing ball with a sampled cost (least squares on the height): the
// `parameter_estimation` example's model.
use crate::estimation_model::ball;

/// `y' = −y` with `0 = z² + y + 1`: no real `z` for `y > −1`.
#[hybrid_model]
pub mod no_root {
    /// The state.
    #[states]
    pub struct X {
        /// The differential state.
        pub y: f64,
    }
    /// The algebraic variable.
    #[algebraic]
    pub struct Z {
        /// The algebraic variable.
        pub z: f64,
    }
    /// The only mode.
    #[mode(initial)]
    fn decay(x: &X, z: &Z) -> (X, [f64; 1]) {
        (X { y: -x.y }, [z.z * z.z + x.y + 1.0])
    }
}

/// A stiffening spring whose force solves `0 = w + k x + 0.1 w³`: from the guess `w = 0` a full
/// Newton step lands at `w = −k x`, far beyond the root when `|k x|` is large.
#[hybrid_model]
pub mod stiffening_spring {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
        /// Velocity.
        pub v: f64,
    }
    /// The force.
    #[algebraic]
    pub struct Z {
        /// The force.
        pub w: f64,
    }
    /// The stiffness.
    #[params]
    pub struct P {
        /// The stiffness.
        pub k: f64,
    }
    /// The only mode.
    #[mode(initial)]
    fn held(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { x: x.v, v: z.w }, [z.w + p.k * x.x + 0.1 * z.w.powi(3)])
    }
}

/// Declares the wall `x = c` that both fields point at (`below` moves `x` up at 1, `above` down
/// at 0.5) as the model `$name`, with `below`'s mode attribute `#[mode($below_rule)]` (`above`
/// is always `initial_if(wall, positive)`): the models of a start exactly on a surface, which
/// differ only in that rule.
macro_rules! wall_between_two_attracting_fields {
    ($doc:tt $name:ident, below: $($below_rule:tt)*) => {
        #[doc = $doc]
        #[hybrid_model]
        pub mod $name {
            /// The states.
            #[states]
            pub struct X {
                /// Across the wall.
                pub x: f64,
                /// Along it.
                pub y: f64,
            }
            /// The wall's position.
            #[params]
            pub struct P {
                /// The wall.
                pub c: f64,
            }
            /// Below the wall, towards it.
            #[mode($($below_rule)*)]
            fn below() -> X {
                X { x: 1.0, y: 1.0 }
            }
            /// Above the wall, towards it.
            #[mode(initial_if(wall, positive))]
            fn above() -> X {
                X { x: -0.5, y: 1.0 }
            }
            /// The wall.
            #[switching_surface(below, above)]
            fn wall(x: &X, p: &P) -> f64 {
                x.x - p.c
            }
        }
    };
}

wall_between_two_attracting_fields!(
    "The wall with both sides chosen by `initial_if`."
    both_sides, below: initial_if(wall, negative)
);

wall_between_two_attracting_fields!(
    "The same wall, with `below` the fallback (the first mode unless the rule of `above` holds): what the error of [`both_sides`] advises."
    one_side, below: initial
);

/// A forced decay with parameters and inputs: `x' = −k x + f`.
#[hybrid_model]
pub mod forced {
    /// The state.
    #[states]
    pub struct X {
        /// The state.
        pub x: f64,
    }
    /// The rate.
    #[params]
    pub struct P {
        /// The rate.
        pub k: f64,
    }
    /// The forcing, held constant.
    #[inputs]
    pub struct U {
        /// The forcing.
        pub f: f64,
    }
    /// The only mode.
    #[mode(initial)]
    fn decay(x: &X, p: &P, u: &U) -> X {
        X {
            x: -p.k * x.x + u.f,
        }
    }
}

/// Asserts that `message` starts with `prefix`.
fn assert_starts_with(message: &str, prefix: &str) {
    assert!(
        message.starts_with(prefix),
        "{message:?} does not start with {prefix:?}"
    );
}

/// A grazing event of `guard` at `t` in `mode`, to be described by a model.
fn grazing(t: f64, mode: usize, guard: usize) -> SolveError {
    SolveError::GrazingEvent { t, mode, guard }
}

const G: f64 = 9.81;
const X0: ball::X = ball::X { h: 1.0, v: 0.0 };
const P: ball::P = ball::P { g: G, e: 0.8 };

#[test]
fn a_model_with_inputs_takes_parameters_and_inputs_together() {
    let (p, u) = (forced::P { k: 2.0 }, forced::U { f: 3.0 });
    let both = forced::Model::parameters(&p, &u);
    assert_eq!(both.to_array(), [2.0, 3.0], "parameters, then inputs");
    let solution = forced::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 1.0, &forced::X { x: 0.0 }, &both)
        .expect("the decay solves");
    // x(t) = f/k (1 − e^{−kt}); ∂x/∂f = (1 − e^{−kt})/k.
    let decay = 1.0 - (-2.0f64).exp();
    assert!((solution.x.x - 1.5 * decay).abs() < 1e-8);
    assert!((solution.sensitivity("x", "f").unwrap() - decay / 2.0).abs() < 1e-8);
    // The no-heap path reads the same vector.
    let problem = forced::Model::problem(0.0, 1.0, &forced::X { x: 0.0 }, &p, &u);
    assert_eq!(problem.p, [2.0, 3.0]);
}

#[test]
fn a_sampled_cost_without_data_is_an_error() {
    let times = [0.2, 0.4];
    let solver = ball::Model.solver().samples(&times);
    let is_missing_data = |error: &SolveError| matches!(error, SolveError::InvalidArgument { what, .. } if what.contains("Solver::data"));
    let failure = solver.solve(0.0, 1.0, &X0, &P).expect_err("no data");
    assert!(is_missing_data(&failure.error), "{failure}");
    assert_eq!(failure.partial.t, 0.0, "nothing was computed");
    let failure = solver.gradient(0.0, 1.0, &X0, &P).expect_err("no data");
    assert!(is_missing_data(&failure.error), "{failure}");
    // The no-heap core path checks the same.
    let problem = hysens::runtime::HybridProblem {
        sample_times: &times,
        ..ball::Model::problem(0.0, 1.0, &X0, &P)
    };
    let mut samples = [hysens::runtime::Sample::ZERO; 2];
    let mut outputs = hysens::runtime::HybridOutputs {
        samples: &mut samples,
        events: None,
        steps: None,
        dense: None,
    };
    let mut solution = hysens::runtime::HybridSolution::ZERO;
    let options = HybridOptions::new(1e-6, 1e-8);
    let core = ball::Model.solve(&problem, &options, &mut outputs, &mut solution);
    assert!(is_missing_data(&core.unwrap_err()));
    // With data it solves, and the cost reads them: ½ Σ (h(t_k) − d_k)² at h(t) = 1 − g t²/2.
    let data = [0.5, 0.5];
    let solution = solver
        .data(&data)
        .solve(0.0, 1.0, &X0, &P)
        .expect("the ball solves");
    let cost: f64 = times
        .iter()
        .zip(data)
        .map(|(t, d)| 0.5 * (1.0 - G * t * t / 2.0 - d).powi(2))
        .sum();
    assert!((solution.cost - cost).abs() < 1e-9);
}

#[test]
fn a_non_finite_initial_state_is_named_as_such_with_initial_state_sensitivities() {
    let nan_x0 = ball::X {
        h: f64::NAN,
        v: 0.0,
    };
    let nan_p = ball::P {
        g: f64::NAN,
        e: 0.8,
    };
    // What a `NonFiniteValue` error names (`None` for another error).
    let non_finite = |error: &SolveError| match *error {
        SolveError::NonFiniteValue { what, .. } => Some(what),
        _ => None,
    };
    for states in [InitialStates::None, InitialStates::All] {
        let solver = ball::Model.solver().sensitivities_to(Params::All, states);
        let failure = solver
            .solve(0.0, 1.0, &nan_x0, &P)
            .expect_err("a NaN height");
        let named = non_finite(&failure.error);
        assert_eq!(named, Some("the initial state"), "{states:?}: {failure}");
        assert!(failure.to_string().contains("the initial state"));
        let failure = solver
            .solve(0.0, 1.0, &X0, &nan_p)
            .expect_err("a NaN gravity");
        let named = non_finite(&failure.error);
        assert_eq!(named, Some("the parameters"), "{states:?}: {failure}");
    }
    let failure = ball::Model
        .solver()
        .gradient(0.0, 1.0, &nan_x0, &P)
        .expect_err("a NaN height");
    assert!(
        failure.to_string().contains("the initial state"),
        "{failure}"
    );
}

#[test]
fn an_invalid_time_span_says_which_time_is_wrong() {
    let solver = ball::Model.solver();
    let message = |t0: f64, tf: f64| {
        let failure = solver.solve(t0, tf, &X0, &P).expect_err("an invalid span");
        assert!(
            matches!(failure.error, SolveError::InvalidTimeSpan { t0: a, tf: b }
                if a.to_bits() == t0.to_bits() && b.to_bits() == tf.to_bits()),
            "{failure}"
        );
        let gradient = solver
            .gradient(t0, tf, &X0, &P)
            .expect_err("an invalid span");
        assert_eq!(gradient.to_string(), failure.to_string());
        failure.to_string()
    };
    assert_eq!(
        message(2.0, 1.0),
        "invalid time span: tf = 1.0 is before t0 = 2.0"
    );
    assert_eq!(
        message(f64::NAN, 1.0),
        "invalid time span: t0 = NaN is not finite"
    );
    assert_eq!(
        message(0.0, f64::INFINITY),
        "invalid time span: tf = inf is not finite"
    );
}

#[test]
fn an_algebraic_equation_without_a_solution_at_t0_is_an_inconsistent_start() {
    let solver = no_root::Model.solver();
    // From the guess z = 0, Newton's matrix g_z = 2z is singular at once.
    let failure = solver
        .solve(0.0, 1.0, &no_root::X { y: 1.0 }, &NoParams)
        .expect_err("0 = z² + 2 has no real root");
    assert!(
        matches!(
            failure.error,
            SolveError::InconsistentInitialValues {
                t: 0.0,
                mode: 0,
                singular_column: Some(0),
                ..
            }
        ),
        "{failure}"
    );
    let message = failure.to_string();
    assert_starts_with(
        &message,
        "inconsistent initial values at t = 0.0 in mode `decay`",
    );
    assert!(message.contains("Solver::algebraic_guess"), "{message}");
    // From another guess Newton wanders without converging: inconsistent too.
    let failure = solver
        .algebraic_guess(&no_root::Z { z: 1.0 })
        .solve(0.0, 1.0, &no_root::X { y: 1.0 }, &NoParams)
        .expect_err("no real root");
    assert!(
        matches!(failure.error, SolveError::InconsistentInitialValues { .. }),
        "{failure}"
    );
    // Where the equation has a root (y = −2: z = ±1) the same guess finds it.
    let solution = solver
        .algebraic_guess(&no_root::Z { z: 0.5 })
        .solve(0.0, 0.1, &no_root::X { y: -2.0 }, &NoParams)
        .expect("z² = 1 − … has roots");
    let z = solution.z[0];
    assert!((z * z + solution.y[0] + 1.0).abs() < 1e-6, "{:?}", solution);
}

/// A consistent force far from the guess: Newton's method on `0 = w + k x + 0.1 w³` from
/// `w = 0` with `|k x|` from 8 to 8e12. Its full steps overshoot to `w = −k x` and then shrink by
/// a third per iteration (k = 4e6 at x = −2 ran out of its 30 iterations, an inconsistent start);
/// the line search of the consistent initialization (`hysens_runtime::newton`) reaches the root
/// in a few. The force after one short step (1e-9) is checked against the cubic's real root at
/// the position there, found by bisection, to `1e-3 rtol` relative (the integrator keeps
/// `g = 0` far below the tolerance: measured at most 1.7e-16).
#[test]
fn a_consistent_force_far_from_the_guess_is_found() {
    let root = |kx: f64| {
        // g is increasing in w, negative at −|kx| − 1 and positive at |kx| + 1 when kx ≠ 0.
        let g = |w: f64| w + kx + 0.1 * w * w * w;
        let (mut lo, mut hi) = (-kx.abs() - 1.0, kx.abs() + 1.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if g(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    for rtol in [1e-6, 1e-12] {
        for k in [4.0, 4e3, 4e6, 4e9, 4e12] {
            for x in [-2.0, 2.0] {
                let solution = stiffening_spring::Model
                    .solver()
                    .tolerances(rtol, 1e-2 * rtol)
                    .solve(
                        0.0,
                        1e-9,
                        &stiffening_spring::X { x, v: 0.0 },
                        &stiffening_spring::P { k },
                    )
                    .unwrap_or_else(|f| panic!("k = {k:e}, x = {x}, rtol {rtol:e}: {f}"));
                let (w, expected) = (solution.z[0], root(k * solution.y[0]));
                println!(
                    "k = {k:e}, x = {x}, rtol {rtol:e}: w = {w:.6e}, off the root by {:.1e}, \
                     {} Jacobians, {} g",
                    (w - expected).abs() / expected.abs(),
                    solution.stats.jacobian_evals,
                    solution.stats.g_evals
                );
                assert!(
                    (w - expected).abs() <= 1e-3 * rtol * expected.abs(),
                    "k = {k:e}, x = {x}, rtol {rtol:e}: w = {w:e}, root {expected:e}"
                );
            }
        }
    }
}

#[test]
fn a_start_on_a_surface_with_both_sides_initial_if_has_no_initial_mode_and_says_what_to_do() {
    let on = both_sides::X { x: 1.0, y: 0.0 };
    let p = both_sides::P { c: 1.0 };
    // Both fields point at the wall: each side's rule asks its own field to move `g` into its
    // side, and neither does, so no rule holds and there is no fallback.
    let failure = both_sides::Model
        .solver()
        .solve(0.0, 1.0, &on, &p)
        .expect_err("no side holds");
    assert_eq!(failure.error, SolveError::NoInitialMode { t: 0.0 });
    let message = failure.to_string();
    assert!(message.contains("no `initial_if` rule holds"), "{message}");
    assert!(message.contains("`#[mode(initial)]`"), "{message}");
    // Off the wall, each side's rule holds on its side.
    for (x, mode) in [(0.5, "below"), (1.5, "above")] {
        let solution = both_sides::Model
            .solver()
            .solve(0.0, 0.01, &both_sides::X { x, y: 0.0 }, &p)
            .expect("off the wall");
        assert_eq!((solution.mode, solution.events.len()), (mode, 0));
    }
    // What the error advises: one side the fallback. The start then slides from t0.
    let solution = one_side::Model
        .solver()
        .solve(
            0.0,
            1.0,
            &one_side::X { x: 1.0, y: 0.0 },
            &one_side::P { c: 1.0 },
        )
        .expect("slides");
    assert_eq!(solution.events[0].t, 0.0);
    assert_eq!(solution.mode, "wall_sliding");
}

#[test]
fn errors_name_modes_guards_and_surfaces() {
    // The model's own tables name what the plain `Display` numbers.
    // (Each message goes on with what a grazing event is, after the names.)
    assert_starts_with(
        &grazing(1.5, 0, 0).to_string(),
        "grazing event of guard 0 at t = 1.5 in mode 0: ",
    );
    assert_starts_with(
        &ball::Model::describe(&grazing(1.5, 0, 0)).to_string(),
        "grazing event of guard `impact` at t = 1.5 in mode `flight`: ",
    );
    // A guard a switching surface generates is named with its surface.
    let surface_guard = one_side::Model::guard_name(0).expect("a guard");
    assert_eq!(surface_guard, "wall_from_below");
    assert_starts_with(
        &one_side::Model::describe(&grazing(0.5, 0, 0)).to_string(),
        "grazing event of guard `wall_from_below` of the switching surface `wall` at t = 0.5 in mode `below`: ",
    );
    let repulsive = one_side::Model::describe(&SolveError::RepulsiveSurface {
        t: 0.5,
        mode: 2,
        guard: 3,
    })
    .to_string();
    assert_eq!(
        repulsive,
        "repulsive switching surface `wall`: both fields point away from it at t = 0.5 in mode `wall_sliding`"
    );
    // An index past the tables is printed as a number, never a panic.
    assert_starts_with(
        &ball::Model::describe(&grazing(0.0, 7, 9)).to_string(),
        "grazing event of guard 9 at t = 0.0 in mode 7: ",
    );
}

#[test]
fn too_many_events_names_the_cap_or_zeno() {
    // An elastic ball bounces every 2√(2/g) ≈ 0.9 s: 11 events by t = 10, none close together.
    let elastic = ball::P { g: G, e: 1.0 };
    let failure = ball::Model
        .solver()
        .max_events(5)
        .solve(0.0, 10.0, &X0, &elastic)
        .expect_err("more than 5 events");
    assert!(
        matches!(
            failure.error,
            SolveError::TooManyEvents {
                count: 5,
                zeno: false,
                ..
            }
        ),
        "{failure}"
    );
    let message = failure.to_string();
    assert!(message.contains("the cap of 5 events"), "{message}");
    assert!(message.contains("`Solver::max_events`"), "{message}");
    assert!(!message.contains("Zeno"), "{message}");
    assert_eq!(failure.partial.events.len(), 5);
    // A ball with e = 0.8 comes to rest at t* ≈ 4.06 s after infinitely many bounces: the
    // events accumulate in time, which is Zeno behaviour. (By default the solve ends before,
    // when the impact speeds fall below what the tolerances resolve — a grazing event; without
    // that test the accumulation is what stops it.)
    let mut options = hysens::runtime::HybridOptions::new(1e-6, 1e-8);
    options.grazing_tol = 0.0;
    let failure = ball::Model
        .solver()
        .options(options)
        .solve(0.0, 10.0, &X0, &P)
        .expect_err("Zeno");
    assert!(
        matches!(failure.error, SolveError::TooManyEvents { zeno: true, .. }),
        "{failure}"
    );
    let message = failure.to_string();
    assert_starts_with(&message, "events accumulate in time (Zeno behaviour?)");
    assert!(message.ends_with("in mode `flight`"), "{message}");
}

#[test]
fn gradient_fails_as_solve_does() {
    let solver = ball::Model.solver().max_events(5);
    let elastic = ball::P { g: G, e: 1.0 };
    let solved = solver.solve(0.0, 10.0, &X0, &elastic).expect_err("the cap");
    let failure = solver
        .gradient(0.0, 10.0, &X0, &elastic)
        .expect_err("the cap");
    // The same error, mode name and message, and the forward solution up to the failure.
    assert_eq!(failure.error, solved.error);
    assert_eq!(failure.mode, "flight");
    assert_eq!(failure.to_string(), solved.to_string());
    assert_eq!(failure.partial.events, solved.partial.events);
    assert_eq!(failure.partial.t, solved.partial.t);
    assert_eq!(failure.partial.y, solved.partial.y);
    // The generated entry point too.
    let generated = ball::Model
        .gradient(0.0, f64::NAN, &X0, &P)
        .expect_err("a NaN final time");
    assert_eq!(
        generated.to_string(),
        "invalid time span: tf = NaN is not finite"
    );
}
