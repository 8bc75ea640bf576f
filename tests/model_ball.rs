//! The bouncing ball as a `#[hybrid_model]`: every emitted kernel against num-dual, the
//! generated tables, and solves through the builder (`Model::solver()`) against the closed
//! form, with sensitivities to the initial states and the parameters chosen by name.
//!
//! One mode (flight under gravity `g`), one guard (impact: the height falls through zero) whose
//! reset reverses the velocity with restitution `e`, and two terminal costs (the final height and
//! the final mechanical energy per unit mass), which the macro sums into one `φ`.
#![deny(missing_docs)]

use crate::event_models;
use crate::support;

use event_models::ball;
use hysens::runtime::{
    Direction, GuardInfo, HybridModel, InitialMode, InitialStates, LookupError, Memory, ModeInfo,
    Params, Solver, Wrt,
};
use num_dual::{Dual64, DualNum};
use support::{check_model, Reference, Rng, Scalar, TestPoint, Vars};

/// The model again, in plain Rust over a number type.
struct Ball;

impl Reference<2, 0, 2> for Ball {
    fn f<D: Scalar>(&self, _mode: usize, v: &Vars<D, 2, 0, 2>) -> [D; 2] {
        [v.y[1], -v.p[0]]
    }

    fn guard<D: Scalar>(&self, _guard: usize, v: &Vars<D, 2, 0, 2>) -> D {
        v.y[0]
    }

    fn reset<D: Scalar>(&self, _guard: usize, v: &Vars<D, 2, 0, 2>) -> Option<[D; 2]> {
        Some([v.y[0], -(v.p[1] * v.y[1])])
    }

    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, 2, 0, 2>) -> Option<D> {
        let [h, vel] = v.y;
        Some(h + (vel.powi(2) * 0.5 + v.p[0] * h))
    }
}

type M = ball::Model;

fn points() -> Vec<TestPoint<2, 0, 2>> {
    let mut rng = Rng::new(2);
    (0..24)
        .map(|_| {
            let y = [rng.uniform(-0.5, 10.0), rng.uniform(-15.0, 15.0)];
            let p = [rng.uniform(1.0, 20.0), rng.uniform(0.0, 1.0)];
            let memory = Memory {
                y: rng.array(-1.0, 1.0),
                z: [],
            };
            let t = rng.uniform(0.0, 10.0);
            rng.point(t, y, [], p, memory)
        })
        .collect()
}

#[test]
fn every_kernel_matches_num_dual() {
    check_model("ball", &M::default(), &Ball, &points());
}

#[test]
fn compiles() {
    assert_eq!(ball::Model::NY, 2);
    assert_eq!(<ball::Model as HybridModel<2, 0, 2>>::GUARDS.len(), 1);
}

#[test]
fn tables() {
    assert_eq!((M::NY, M::NZ, M::NP), (2, 0, 2));
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::MODES,
        &[ModeInfo {
            name: "flight",
            uses_memory: false,
            constant_jacobian: true,
            terminal: false,
            index2: false,
        }]
    );
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::GUARDS,
        &[GuardInfo {
            name: "impact",
            from: 0,
            to: 0,
            direction: Direction::Falling,
            has_reset: true,
            surface: None
        }]
    );
    assert_eq!(
        <M as HybridModel<2, 0, 2>>::INITIAL_MODE,
        InitialMode::Fixed(0)
    );
    assert_eq!(<M as HybridModel<2, 0, 2>>::STATE_NAMES, ["y.h", "y.v"]);
    assert_eq!(<M as HybridModel<2, 0, 2>>::PARAMETER_NAMES, ["p.g", "p.e"]);
    assert_eq!(ball::X::NAMES, ["h", "v"]);
    assert_eq!(ball::P::NAMES, ["g", "e"]);
    let x = ball::X::from_array([1.5, -2.0]);
    assert_eq!((x.h, x.v), (1.5, -2.0));
    assert_eq!(x.to_array(), [1.5, -2.0]);
    let p = ball::P::from_array([9.81, 0.8]);
    assert_eq!((p.g, p.e), (9.81, 0.8));
    assert_eq!(p.to_array(), [9.81, 0.8]);
}

// ---------------------------------------------------------------------------------------------
// Solving through the builder: sensitivities with respect to initial states and parameters,
// chosen per solve by name, against the closed form.
//
// Free flight `h' = v, v' = −g` from `(h0, v0)`; the impact at `t1 = (v0 + w)/g` with
// `w = √(v0² + 2 g h0)` reverses the velocity to `e w`; after it, `h(T) = e w (T − t1) −
// g (T − t1)²/2` and `v(T) = e w − g (T − t1)`. The derivatives of this closed form are taken
// with num-dual, one direction at a time. The integrator is exact on quadratic flight (every
// tableau has order ≥ 2, and the problem is linear with polynomial solution), so the discrete
// solution, its event time and its exact discrete sensitivities equal the closed form to
// round-off: the tolerance 1e-12 is a round-off bound, not a truncation bound.
// ---------------------------------------------------------------------------------------------

/// `(h(T), v(T))` after one bounce, with derivatives along the seeds of the arguments.
fn closed_form(h0: Dual64, v0: Dual64, g: Dual64, e: Dual64, t: f64) -> [Dual64; 2] {
    let w = (v0 * v0 + g * h0 * 2.0).sqrt();
    let t1 = (v0 + w) / g;
    let after = -t1 + t;
    [e * w * after - g * after * after * 0.5, e * w - g * after]
}

const H0: f64 = 1.0;
const V0: f64 = 0.5;
const G: f64 = 9.81;
const E: f64 = 0.8;
const T: f64 = 0.9;

/// `∂(h, v)(T)/∂θ` of the closed form, `θ` the `k`-th of `(h0, v0, g, e)`.
/// `∂(h, v, φ)(T)/∂θ` of the closed form, `θ` the `k`-th of `(h0, v0, g, e)`, with the
/// model's terminal cost `φ = h + v²/2 + g h`.
fn closed_form_derivative(k: usize) -> [f64; 3] {
    let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
    let g = seed(2, G);
    let [h, v] = closed_form(seed(0, H0), seed(1, V0), g, seed(3, E), T);
    let cost = h + v * v * 0.5 + g * h;
    [h.eps, v.eps, cost.eps]
}

#[test]
fn all_parameters_and_initial_states_against_the_closed_form() {
    let solution = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    let exact = closed_form(H0.into(), V0.into(), G.into(), E.into(), T).map(|d| d.re);
    assert!((solution.x.h - exact[0]).abs() < 1e-12, "{:?}", solution.y);
    assert!((solution.x.v - exact[1]).abs() < 1e-12, "{:?}", solution.y);
    assert_eq!(solution.events.len(), 1);
    assert_eq!(
        (
            solution.events[0].guard,
            solution.events[0].from,
            solution.events[0].to
        ),
        ("impact", "flight", "flight")
    );
    let directions = [
        Wrt::InitialState("h"),
        Wrt::InitialState("v"),
        Wrt::Param("g"),
        Wrt::Param("e"),
    ];
    let mut worst = 0.0f64;
    for (k, wrt) in directions.into_iter().enumerate() {
        let exact = closed_form_derivative(k);
        for (i, of) in ["h", "v"].into_iter().enumerate() {
            let computed = solution.sensitivity(of, wrt).expect("a chosen direction");
            assert!(
                (computed - exact[i]).abs() < 1e-12,
                "∂{of}/∂{wrt:?}: {computed} vs {}",
                exact[i]
            );
            worst = worst.max((computed - exact[i]).abs());
        }
        let gradient = solution.cost_gradient(wrt).expect("a chosen direction");
        assert!(
            (gradient - exact[2]).abs() < 1e-12 * exact[2].abs().max(1.0),
            "dφ/d{wrt:?}: {gradient} vs {}",
            exact[2]
        );
    }
    // The typed column: ∂x(T)/∂h0 as the model's struct.
    let column = solution.state_sensitivity(Wrt::InitialState("h")).unwrap();
    assert_eq!(
        [column.h, column.v],
        [
            solution.sensitivity("h", Wrt::InitialState("h")).unwrap(),
            solution.sensitivity("v", Wrt::InitialState("h")).unwrap()
        ]
    );
    println!("largest error of ∂(h, v)(T)/∂(h0, v0, g, e): {worst:.1e}");
}

#[test]
fn a_subset_of_directions_gives_the_same_columns() {
    let full = Solver::new(&ball::Model)
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    let subset = Solver::new(&ball::Model)
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::Only(&["e"]), InitialStates::Only(&["v"]))
        .solve(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    use hysens::runtime::Variable;
    assert_eq!(
        subset.directions(),
        [Variable::Param(1), Variable::InitialState(1)]
    );
    for wrt in [Wrt::Param("e"), Wrt::InitialState("v")] {
        for of in ["h", "v"] {
            assert_eq!(subset.sensitivity(of, wrt), full.sensitivity(of, wrt));
        }
        assert_eq!(
            subset.event_time_sensitivity(0, wrt),
            full.event_time_sensitivity(0, wrt)
        );
    }
    // A direction not chosen is an error that says how to choose it.
    let not_chosen = subset.sensitivity("h", "g").unwrap_err();
    assert_eq!(
        not_chosen,
        LookupError::NotChosen {
            wrt: "parameter `g`".into()
        }
    );
    assert!(
        not_chosen.to_string().contains("sensitivities_to"),
        "{not_chosen}"
    );
    let initial = subset.sensitivity("h", Wrt::InitialState("h"));
    assert!(
        matches!(initial, Err(LookupError::NotChosen { .. })),
        "{initial:?}"
    );
    // A name not in the model is an error listing the model's names: a typo is never a
    // silent `None`.
    let unknown = full.sensitivity("height", "g").unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown state or algebraic variable `height`; the model's: h, v"
    );
    let unknown = full.sensitivity("h", "gravity").unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown parameter `gravity`; the model's: g, e"
    );
    let past_the_end = full
        .event_time_sensitivity(full.events.len(), "g")
        .unwrap_err();
    assert!(matches!(
        past_the_end,
        LookupError::OutOfRange { what: "event", .. }
    ));
}

/// Without initial states the solve carries only the parameter columns (the core's own path);
/// with them, the parameters are columns of the extended model. Both are the exact derivative
/// of the same steps (the step sizes depend on the states only), so they agree to round-off.
#[test]
fn parameter_columns_agree_with_and_without_initial_states() {
    let params_only = Solver::new(&ball::Model)
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 2.0, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    let with_states = Solver::new(&ball::Model)
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 2.0, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    assert_eq!(params_only.stats.steps, with_states.stats.steps);
    assert_eq!(params_only.events.len(), with_states.events.len());
    for wrt in ["g", "e"] {
        for of in ["h", "v"] {
            let (a, b) = (
                params_only.sensitivity(of, wrt).unwrap(),
                with_states.sensitivity(of, wrt).unwrap(),
            );
            assert!(
                (a - b).abs() <= 1e-13 * a.abs().max(1.0),
                "∂{of}/∂{wrt}: {a} vs {b}"
            );
        }
    }
}

/// More events than the owned solve first makes room for (64): an elastic ball bounces every
/// `2√(2 h0/g)` ≈ 0.9 s, so 111 times in 100 s. The solve is run again with more room and
/// reports every event; a caller-storage solve with room for all gives the same log.
#[test]
fn many_events_are_all_reported() {
    let solver = Solver::new(&ball::Model).tolerances(1e-8, 1e-10);
    let solution = solver
        .solve(
            0.0,
            100.0,
            &ball::X { h: 1.0, v: 0.0 },
            &ball::P { g: G, e: 1.0 },
        )
        .expect("the ball solves");
    let period = 2.0 * (2.0 / G).sqrt();
    assert_eq!(solution.events.len(), (100.0 / period + 0.5) as usize);
    assert!(solution.events.len() > 64);
    use hysens::runtime::{EventRecord, HybridOutputs, HybridSolution};
    let mut events = vec![EventRecord::ZERO; 200];
    let mut core = HybridSolution::ZERO;
    solver
        .solve_into(
            0.0,
            100.0,
            &ball::X { h: 1.0, v: 0.0 },
            &ball::P { g: G, e: 1.0 },
            &mut HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: None,
                dense: None,
            },
            &mut core,
        )
        .expect("the ball solves");
    assert_eq!(core.n_events, solution.events.len());
    for (owned, raw) in solution.events.iter().zip(&events) {
        assert_eq!(owned.t, raw.t);
    }
    assert_eq!(core.y, solution.y);
}

#[test]
fn samples_and_failures_keep_what_was_computed() {
    let times = [0.25, 0.5, 0.75];
    let solution = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::Only(&["g"]), InitialStates::None)
        .samples(&times)
        .solve(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    assert_eq!(solution.samples.len(), 3);
    // Before the impact: h(t) = h0 + v0 t − g t²/2, ∂h/∂g = −t²/2.
    let first = &solution.samples[0];
    assert_eq!((first.t, first.mode), (0.25, "flight"));
    assert!((first.x.h - (H0 + V0 * 0.25 - G * 0.25 * 0.25 / 2.0)).abs() < 1e-13);
    let dh_dg = solution.sample_sensitivity(0, "h", "g").unwrap();
    assert!((dh_dg + 0.25 * 0.25 / 2.0).abs() < 1e-13);

    // An unknown name is an error before anything is computed.
    let unknown = Solver::new(&ball::Model)
        .sensitivities_to(Params::Only(&["gravity"]), InitialStates::None)
        .solve(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect_err("an unknown parameter");
    assert!(matches!(
        unknown.error,
        hysens::runtime::SolveError::InvalidArgument { .. }
    ));
    assert_eq!(unknown.partial.t, 0.0);

    // A failure mid-way keeps the last accepted state, the events and samples before it: the
    // bounces of this ball accumulate at t* = t1 + 2 e w/(g (1 − e)) ≈ 4.14 s (Zeno), which
    // the solver reports as an error instead of looping.
    let w = (V0 * V0 + 2.0 * G * H0).sqrt();
    let zeno = (V0 + w) / G + 2.0 * E * w / (G * (1.0 - E));
    let failed = Solver::new(&ball::Model)
        .tolerances(1e-10, 1e-12)
        .samples(&times)
        .solve(
            0.0,
            100.0,
            &ball::X { h: H0, v: V0 },
            &ball::P { g: G, e: E },
        )
        .expect_err("Zeno behaviour");
    assert!(
        failed.partial.t > 0.0 && failed.partial.t <= zeno,
        "{failed}"
    );
    assert!(failed.partial.y.iter().all(|y| y.is_finite()));
    assert!(failed.partial.events.len() > 10);
    assert_eq!(failed.partial.samples.len(), 3);
    println!("{failed}");
}

/// The builder's adjoint gradient equals the forward sensitivities' gradient of the same solve
/// (both are derivatives of the same discrete solution; the adjoint transposes the chain) for
/// every parameter and initial state, here over 67 bounces of an elastic ball — more steps than
/// the owned tape first makes room for (256), so the tape grows and the solve is computed again.
#[test]
fn adjoint_gradient_equals_the_forward_one() {
    let (x0, p) = (ball::X { h: H0, v: V0 }, ball::P { g: G, e: 1.0 });
    let solver = ball::Model.solver().tolerances(1e-10, 1e-12);
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 60.0, &x0, &p)
        .expect("the ball solves");
    let adjoint = solver
        .gradient(0.0, 60.0, &x0, &p)
        .expect("the ball solves");
    assert!(
        forward.events.len() >= 60,
        "{} bounces",
        forward.events.len()
    );
    assert!(adjoint.stats.steps > 256, "{} steps", adjoint.stats.steps);
    assert_eq!(adjoint.stats.steps, forward.stats.steps);
    assert_eq!(adjoint.cost, forward.cost);
    for wrt in [
        Wrt::Param("g"),
        Wrt::Param("e"),
        Wrt::InitialState("h"),
        Wrt::InitialState("v"),
    ] {
        let (a, f) = (
            adjoint.wrt(wrt).unwrap(),
            forward.cost_gradient(wrt).unwrap(),
        );
        // Round-off of the two summation orders over the steps and jumps.
        assert!(
            (a - f).abs() <= 1e-10 * f.abs().max(1e-3),
            "dφ/d{wrt:?}: {a} vs {f}"
        );
    }
    let unknown = adjoint.wrt("gravity").unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown parameter `gravity`; the model's: g, e"
    );
    let unknown = adjoint.wrt(Wrt::InitialState("x")).unwrap_err();
    assert_eq!(unknown.to_string(), "unknown state `x`; the model's: h, v");
}

/// The builder's adjoint trajectory `λ(t) = dφ/d(h, v)(t)` against the closed form started at
/// each of its points: after the bounce (and at its right limit), free flight over `τ = T − t`,
/// `∂φ/∂h = 1 + g` and `∂φ/∂v = (1 + g) τ + v(T)`; before it, num-dual on `closed_form` from
/// `(h(t), v(t))` over `T − t`. Exact to round-off, as the discrete solution is (see above).
#[test]
fn adjoint_trajectory_against_the_closed_form() {
    let gradient = ball::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .gradient(0.0, T, &ball::X { h: H0, v: V0 }, &ball::P { g: G, e: E })
        .expect("the ball solves");
    let w = (V0 * V0 + 2.0 * G * H0).sqrt();
    let t1 = (V0 + w) / G;
    let points = &gradient.adjoint;
    assert!(points.len() > 4, "{} points", points.len());
    assert_eq!((points[0].t, points[0].segment), (0.0, 0));
    assert_eq!(points[0].y, gradient.initial_states, "λ(t0) = dφ/dy0");
    let last = points.last().expect("points");
    assert_eq!((last.t, last.segment), (T, 1));
    assert!(points.windows(2).all(|p| p[0].t <= p[1].t), "in time order");
    let mut worst = 0.0f64;
    for point in points {
        let t = point.t;
        let exact = if point.segment == 1 {
            assert!(t >= t1 - 1e-12, "t = {t} after the bounce at {t1}");
            let tau = T - t;
            let v_t = E * w - G * (t - t1);
            [1.0 + G, (1.0 + G) * tau + (v_t - G * tau)]
        } else {
            assert!(t < t1, "t = {t} before the bounce at {t1}");
            let (h, v) = (H0 + V0 * t - G * t * t / 2.0, V0 - G * t);
            let phi = |k: usize| {
                let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
                let [h, v] = closed_form(seed(0, h), seed(1, v), G.into(), E.into(), T - t);
                (h + v * v * 0.5 + h * G).eps
            };
            [phi(0), phi(1)]
        };
        for i in 0..2 {
            let error = (point.y[i] - exact[i]).abs();
            assert!(
                error < 1e-11 * exact[i].abs().max(1.0),
                "λ at t = {t}: {:?} vs {exact:?}",
                point.y
            );
            worst = worst.max(error);
        }
    }
    println!(
        "adjoint trajectory: {} points, largest error {worst:.1e}",
        points.len()
    );
}

/// A sample time at the impact: dropped from 1 m with g = 8, the ball lands at exactly
/// `√(2/8) = 0.5`, and the discrete event falls a few ulps before the sample at 0.5 (at rtol
/// 1e-6 and 1e-8; after it at 1e-4). The step
/// that lands on the sample is then a few ulps long; it used to be taken as an adaptive step,
/// whose tiny size the controller carried on (`StepSizeTooSmall` at t = 0.5 for rtol 1e-6).
/// Now it is a fixed landing step: every tolerance solves, and the sample right after the
/// impact matches the closed form with its sensitivities, as does the adjoint gradient.
#[test]
fn an_event_within_round_off_of_a_sample_time() {
    let (x0, p) = (ball::X { h: 1.0, v: 0.0 }, ball::P { g: 8.0, e: 0.6 });
    let times = [0.45, 0.5];
    for rtol in [1e-4, 1e-6, 1e-8, 1e-10] {
        let solver = ball::Model
            .solver()
            .tolerances(rtol, rtol * 1e-2)
            .samples(&times);
        let solution = solver
            .sensitivities_to(Params::All, InitialStates::All)
            .solve(0.0, 0.7, &x0, &p)
            .unwrap_or_else(|f| panic!("rtol {rtol}: {}", f.error));
        assert_eq!(solution.events.len(), 1, "rtol {rtol}");
        let sample = &solution.samples[1];
        assert_eq!(sample.t, 0.5);
        let directions = [
            Wrt::InitialState("h"),
            Wrt::InitialState("v"),
            Wrt::Param("g"),
            Wrt::Param("e"),
        ];
        for (k, wrt) in directions.into_iter().enumerate() {
            let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
            let (h0, v0, g) = (seed(0, 1.0), seed(1, 0.0), seed(2, 8.0));
            // The discrete impact falls within round-off of 0.5, on either side: the sample is
            // on the branch of the closed form that the discrete solution is on.
            let exact = if solution.events[0].t <= 0.5 {
                closed_form(h0, v0, g, seed(3, 0.6), 0.5)
            } else {
                [h0 + v0 * 0.5 - g * 0.125, v0 - g * 0.5]
            };
            let value = [sample.x.h, sample.x.v];
            for (i, of) in ["h", "v"].into_iter().enumerate() {
                let computed = solution
                    .sample_sensitivity(1, of, wrt)
                    .expect("a direction");
                assert!(
                    (value[i] - exact[i].re).abs() < 1e-12,
                    "rtol {rtol}: {of}(0.5)"
                );
                assert!(
                    (computed - exact[i].eps).abs() < 1e-11,
                    "rtol {rtol}: ∂{of}(0.5)/∂{wrt:?} = {computed} vs {}",
                    exact[i].eps
                );
            }
        }
        let adjoint = solver.gradient(0.0, 0.7, &x0, &p).expect("the same solve");
        for wrt in directions {
            let (a, f) = (
                adjoint.wrt(wrt).unwrap(),
                solution.cost_gradient(wrt).unwrap(),
            );
            assert!(
                (a - f).abs() <= 1e-10 * f.abs().max(1.0),
                "rtol {rtol}: dφ/d{wrt:?}: adjoint {a} vs forward {f}"
            );
        }
    }
}
