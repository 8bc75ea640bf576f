//! The builder on the bouncing ball: sensitivities with respect to initial states and
//! parameters chosen per solve by name, against the closed form.
//!
//! Free flight `h' = v, v' = −g` from `(h0, v0)`; the impact at `t1 = (v0 + w)/g` with
//! `w = √(v0² + 2 g h0)` reverses the velocity to `e w`; after it, `h(T) = e w (T − t1) −
//! g (T − t1)²/2` and `v(T) = e w − g (T − t1)`. The derivatives of this closed form are taken
//! with num-dual, one direction at a time. The integrator is exact on quadratic flight (every
//! tableau has order ≥ 2, and the problem is linear with polynomial solution), so the discrete
//! solution, its event time and its exact discrete sensitivities equal the closed form to
//! round-off: the tolerance 1e-12 is a round-off bound, not a truncation bound.

use hysens::hybrid_model;
use hysens::runtime::{InitialStates, Params, Solver, Wrt};
use num_dual::{Dual64, DualNum};

/// A ball bouncing on the floor.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height above the floor.
        pub h: f64,
        /// Upward velocity.
        pub v: f64,
    }

    /// Gravity and restitution.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
        /// Coefficient of restitution.
        pub e: f64,
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    /// The height falls through zero.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
        x.h
    }

    /// The velocity reverses and shrinks.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }
}

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
fn closed_form_derivative(k: usize) -> [f64; 2] {
    let seed = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
    let [h, v] = closed_form(seed(0, H0), seed(1, V0), seed(2, G), seed(3, E), T);
    [h.eps, v.eps]
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
        .solve(0.0, T, &[H0, V0], &[G, E])
        .expect("the ball solves");
    let subset = Solver::new(&ball::Model)
        .tolerances(1e-10, 1e-12)
        .sensitivities_to(Params::Only(&["e"]), InitialStates::Only(&["v"]))
        .solve(0.0, T, &[H0, V0], &[G, E])
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
    // Directions not chosen are not there.
    assert_eq!(subset.sensitivity("h", "g"), None);
    assert_eq!(subset.sensitivity("h", Wrt::InitialState("h")), None);
    // Names not in the model are not there either.
    assert_eq!(full.sensitivity("height", "g"), None);
    assert_eq!(full.sensitivity("h", "gravity"), None);
}

/// Without initial states the solve carries only the parameter columns (the core's own path);
/// with them, the parameters are columns of the extended model. Both are the exact derivative
/// of the same steps (the step sizes depend on the states only), so they agree to round-off.
#[test]
fn parameter_columns_agree_with_and_without_initial_states() {
    let params_only = Solver::new(&ball::Model)
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 2.0, &[H0, V0], &[G, E])
        .expect("the ball solves");
    let with_states = Solver::new(&ball::Model)
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 2.0, &[H0, V0], &[G, E])
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
        .solve(0.0, 100.0, &[1.0, 0.0], &[G, 1.0])
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
            &[1.0, 0.0],
            &[G, 1.0],
            &mut HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: None,
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
        .solve(0.0, T, &[H0, V0], &[G, E])
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
        .solve(0.0, 100.0, &[H0, V0], &[G, E])
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
