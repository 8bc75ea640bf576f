//! Solving allocates nothing on the heap, with and without sensitivities: a
//! `#[hybrid_model]`'s generated kernels and entry points, and the runtime under them, work in
//! fixed-size storage only. So does the runtime's core `solve` given stack storage for its
//! samples, events and steps (Serban & Recuero's Example 5.1 with all three cost kinds,
//! adaptive and then replaying its step log, and the bouncing ball). Counted per thread by
//! `support/counting_alloc.rs`.
#![deny(missing_docs)]

use crate::corpus;
use crate::counting_alloc::count;
use crate::event_models;
use crate::language_models;
use crate::models;
use crate::runtime;
use hysens::runtime::{
    CostErrorTest, DensePoint, EventRecord, HybridOptions, HybridOutputs, HybridSolution, Sample,
    SolveError,
};
use models::{ex51, relay};

/// The allocations of one solve into caller storage: `solve` writes into `samples`, `events`
/// (without a step log), a dense output and a solution of its own. Returns the solve's result, the
/// allocations counted while it ran, and the solution.
fn count_solve<const NY: usize, const NZ: usize, const NP: usize>(
    samples: &mut [Sample<NY, NZ, NP>],
    events: Option<&mut [EventRecord<NY, NP>]>,
    solve: impl FnOnce(
        &mut HybridOutputs<'_, NY, NZ, NP>,
        &mut HybridSolution<NY, NZ, NP>,
    ) -> Result<(), SolveError>,
) -> (Result<(), SolveError>, usize, HybridSolution<NY, NZ, NP>) {
    let mut solution = HybridSolution::ZERO;
    // Every counted solve keeps a dense output too (its storage allocated before counting).
    let mut points = vec![DensePoint::ZERO; 20_000];
    let (result, allocations) = count(|| {
        let mut outputs = HybridOutputs {
            samples,
            events,
            steps: None,
            dense: Some(&mut points),
        };
        solve(&mut outputs, &mut solution)
    });
    (result, allocations, solution)
}

#[test]
fn generated_ode_model_solves_without_allocating() {
    let model = ex51::Model;
    let problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let mut events = [EventRecord::ZERO; 8];
    // Plain, with sensitivities, and with the sensitivities in the error test.
    for (with_sensitivities, in_error_test) in [(false, false), (true, false), (true, true)] {
        let mut options = HybridOptions::new(1e-8, 1e-10);
        options.integrator.sensitivity_error_test = in_error_test;
        let (result, allocations, solution) =
            count_solve(&mut [], Some(&mut events), |outputs, solution| {
                if with_sensitivities {
                    model.solve_with_sensitivities(&problem, &options, outputs, solution)
                } else {
                    model.solve(&problem, &options, outputs, solution)
                }
            });
        assert_eq!(result, Ok(()));
        assert_eq!(solution.n_events, 3, "Example 5.1 switches three times");
        // The closed form (mpmath): G = 20.029074653359594; the solver's global error
        // at rtol 1e-8 is below 1e-6 relative (the runtime's accuracy tests say how much).
        assert!((solution.cost - 20.029074653359594).abs() < 1e-6 * 20.03);
        assert_eq!(
            allocations, 0,
            "sensitivities: {with_sensitivities}, in the error test: {in_error_test}"
        );
    }
}

#[test]
fn generated_dae_model_with_memory_solves_without_allocating() {
    let model = relay::Model;
    let x0 = relay::X { q: 0.0, v: 0.0 };
    let z0 = relay::Z { f: 1.0 };
    let params = relay::P { k: 2.0, c: 0.3 };
    let mut problem = relay::Model::problem(0.0, 10.0, &x0, &params);
    problem.z0 = z0.to_array();
    let times = [1.0, 2.0, 5.0];
    problem.sample_times = &times;
    let mut samples = [Sample::ZERO; 3];
    let mut events = [EventRecord::ZERO; 64];
    // Plain and with sensitivities, with the integral cost in the error test
    // (`Options::cost_error_test`: by default, and with its own tolerances) and without it.
    let cost_tests = [
        CostErrorTest::StateTolerances,
        CostErrorTest::Tolerances {
            rtol: 1e-7,
            atol: 1e-9,
        },
        CostErrorTest::Off,
    ];
    for (with_sensitivities, cost_test) in [false, true]
        .into_iter()
        .flat_map(|s| cost_tests.map(|c| (s, c)))
    {
        let mut options = HybridOptions::new(1e-7, 1e-9);
        options.integrator.cost_error_test = cost_test;
        let (result, allocations, solution) =
            count_solve(&mut samples, Some(&mut events), |outputs, solution| {
                if with_sensitivities {
                    model.solve_with_sensitivities(&problem, &options, outputs, solution)
                } else {
                    model.solve(&problem, &options, outputs, solution)
                }
            });
        assert_eq!(result, Ok(()));
        assert!(solution.n_events >= 1, "the relay switches");
        assert_eq!(solution.n_samples, 3);
        assert_eq!(
            allocations, 0,
            "sensitivities: {with_sensitivities}, cost in the error test: {cost_test:?}"
        );
    }
}

/// The builder on the relay at rtol 1e-7, sampled at `t = 1, 2, 5`, from the algebraic guess
/// `f = 1`, with sensitivities to `$params` and `$states`.
macro_rules! relay_builder {
    ($params:expr, $states:expr) => {
        hysens::runtime::Solver::new(&relay::Model)
            .tolerances(1e-7, 1e-9)
            .sensitivities_to($params, $states)
            .samples(&[1.0, 2.0, 5.0])
            .algebraic_guess(&relay::Z { f: 1.0 })
    };
}

/// The builder's caller-storage path allocates nothing either, with sensitivities to
/// parameters and initial states (the extended model of `p' = (p, y0)`).
#[test]
fn builder_solve_into_does_not_allocate() {
    use hysens::runtime::{InitialStates, Params};
    let solver = relay_builder!(Params::Only(&["k"]), InitialStates::All);
    let mut samples = [Sample::ZERO; 3];
    let mut events = [EventRecord::ZERO; 64];
    let (result, allocations, solution) =
        count_solve(&mut samples, Some(&mut events), |outputs, solution| {
            solver.solve_into(
                0.0,
                10.0,
                &relay::X { q: 0.0, v: 0.0 },
                &relay::P { k: 2.0, c: 0.3 },
                outputs,
                solution,
            )
        });
    assert_eq!(result, Ok(()));
    assert!(solution.n_events >= 1, "the relay switches");
    assert_eq!(allocations, 0);
}

/// The owned path allocates its results only: the event and sample buffers, the columns and
/// directions, one vector per event (`dt`), two per sample (`dy`, `dz`), the final
/// sensitivities and the named costs — a count that does not grow with the number of steps.
#[test]
fn builder_solve_allocates_only_its_results() {
    use hysens::runtime::{InitialStates, Params};
    let solver = relay_builder!(Params::All, InitialStates::Only(&["v"]));
    for (tf, rtol) in [(10.0, 1e-7), (10.0, 1e-10)] {
        let solver = solver.tolerances(rtol, rtol * 1e-2);
        let (result, allocations) = count(|| {
            solver.solve(
                0.0,
                tf,
                &relay::X { q: 0.0, v: 0.0 },
                &relay::P { k: 2.0, c: 0.3 },
            )
        });
        let solution = result.expect("the relay solves");
        let results = solution.events.len() + 2 * solution.samples.len();
        // The named costs' values and gradients, one vector (when the model has costs).
        let named_costs = usize::from(!solution.costs().is_empty());
        assert!(
            allocations <= 10 + named_costs + results,
            "{allocations} allocations for {results} owned vectors ({} steps)",
            solution.stats.steps
        );
    }
}

/// The discrete adjoint allocates nothing: the forward solve records its tape in caller
/// storage and the backward pass works in fixed-size arrays (Robertson, a stiff ODE with
/// samples, one at `t0`).
#[test]
fn adjoint_solve_does_not_allocate() {
    use hysens::runtime::{
        solve_adjoint, AdjointGradient, AdjointTape, HybridRun, TapeStep, ESDIRK34,
    };
    use models::robertson;
    use models::{CLASSIC_RATES, CLASSIC_Y0};
    let model = robertson::Model;
    let mut problem = robertson::Model::problem(0.0, 40.0, &CLASSIC_Y0, &CLASSIC_RATES);
    let times = [0.0, 0.4, 4.0];
    problem.sample_times = &times;
    let options = HybridOptions::new(1e-6, 1e-10);
    let mut samples = [Sample::ZERO; 3];
    let mut tape = [TapeStep::ZERO; 512];
    let mut gradient = AdjointGradient::ZERO;
    let (result, allocations, solution) = count_solve(&mut samples, None, |outputs, solution| {
        solve_adjoint(
            &HybridRun::new(&model, &ESDIRK34, &problem, &options),
            AdjointTape::full(&mut tape),
            outputs,
            solution,
            &mut gradient,
        )
    });
    assert_eq!(result, Ok(()));
    assert_eq!(gradient.stats.steps, solution.stats.steps);
    assert_eq!(allocations, 0);
}

/// The discrete adjoint across events allocates nothing either: Ex. 5.1 (three switches, an
/// integral cost, a nonzero `dG/dp` and `dG/dy0`) and the relay DAE (switches with a reset
/// and memory captures, an integral cost, samples), for every tableau.
#[test]
fn adjoint_solve_with_events_does_not_allocate() {
    use hysens::runtime::{
        solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, Checkpoint, HybridProblem,
        HybridRun, ModelSizes, Tableau, TapeStep, ESDIRK23, ESDIRK34, ESDIRK436L2SA,
    };
    /// One adjoint solve, counted, with a full tape and again with a window of 5 steps and
    /// checkpoints (the recomputation from checkpoints allocates nothing either, and gives the
    /// same gradient bit for bit); returns the events, `dG/dp` and `dG/dy0`.
    fn counted<
        M,
        const S: usize,
        const NY: usize,
        const NZ: usize,
        const NP: usize,
        const N: usize,
        const NS: usize,
    >(
        model: &M,
        tableau: &Tableau<S>,
        problem: &HybridProblem<'_, NY, NZ, NP>,
    ) -> (usize, [f64; NP], [f64; NY])
    where
        M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
    {
        let options = HybridOptions::new(1e-8, 1e-10);
        let mut samples = [Sample::ZERO; 4];
        let mut events = [EventRecord::ZERO; 64];
        // Caller storage, allocated before the count (on the heap: too large for the stack).
        #[allow(clippy::useless_vec)] // megabytes: too large for the test thread's stack
        let (mut tape, mut checkpoints) =
            (vec![TapeStep::ZERO; 20_000], vec![Checkpoint::ZERO; 2_000]);
        let mut window = [TapeStep::ZERO; 5];
        let mut n_events = 0;
        let mut full = AdjointGradient::ZERO;
        let mut checkpointed = AdjointGradient::ZERO;
        for (window, checkpoints, gradient) in [
            (&mut tape[..], &mut [][..], &mut full),
            (&mut window[..], &mut checkpoints[..], &mut checkpointed),
        ] {
            let samples = &mut samples[..problem.sample_times.len()];
            let (result, allocations, solution) =
                count_solve(samples, Some(&mut events), |outputs, solution| {
                    solve_adjoint(
                        &HybridRun::new(model, tableau, problem, &options),
                        AdjointTape::checkpointed(window, checkpoints),
                        outputs,
                        solution,
                        gradient,
                    )
                });
            assert_eq!(result, Ok(()), "{}", tableau.name);
            assert_eq!(gradient.stats.events, solution.n_events, "{}", tableau.name);
            assert_eq!(allocations, 0, "{}", tableau.name);
            n_events = solution.n_events;
        }
        assert!(checkpointed.stats.recomputed_steps > 0);
        assert_eq!((checkpointed.p, checkpointed.y0), (full.p, full.y0));
        (n_events, full.p, full.y0)
    }
    let ex51 = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let mut relay = models::relay_problem();
    let times = [0.0, 2.0, 5.0, 9.0];
    relay.sample_times = &times;
    for (events, p, y0) in [
        counted(&ex51::Model, &ESDIRK23, &ex51),
        counted(&ex51::Model, &ESDIRK34, &ex51),
        counted(&ex51::Model, &ESDIRK436L2SA, &ex51),
    ] {
        assert_eq!(events, 3, "Example 5.1 switches three times");
        // dG/dp = −2.3119531 in closed form (Serban & Recuero 2019, §5.1).
        assert!((p[0] + 2.3119531).abs() < 1e-4, "dG/dp = {}", p[0]);
        assert!(y0[0].abs() > 1e-3, "dG/dx0 = {}", y0[0]);
    }
    for (events, p, y0) in [
        counted(&relay::Model, &ESDIRK23, &relay),
        counted(&relay::Model, &ESDIRK34, &relay),
        counted(&relay::Model, &ESDIRK436L2SA, &relay),
    ] {
        assert!(events >= 1, "the relay switches");
        assert!(p.iter().chain(&y0).all(|g| g.is_finite()));
        assert!(p.iter().any(|g| g.abs() > 1e-6), "dG/dp = {p:?}");
    }
}

/// The event paths of issue #19 allocate nothing either: events at a mode's entry (steps of
/// length zero, with and without sensitivities), the first step's decision for a guard on its
/// zero with a vanishing rate, a loop without progress ending in an error, steps cut for a
/// guard that varies too fast (the models of the event corpus, `tests/event_semantics/`).
#[test]
fn event_semantics_paths_do_not_allocate() {
    use hysens::runtime::{InitialStates, Params, Solver};
    let mut events = [EventRecord::ZERO; 64];
    // A ball at rest on the floor (decided on the first step: stuck) and one with
    // restitution 0 (an event at the entry after its impact: stuck), with sensitivities.
    for (h, e) in [(0.0, 1.0), (1.0, 0.0)] {
        let solver = Solver::new(&event_models::ball::Model)
            .sensitivities_to(Params::All, InitialStates::All);
        let (result, allocations, _) =
            count_solve(&mut [], Some(&mut events), |outputs, solution| {
                solver.solve_into(
                    0.0,
                    2.0,
                    &event_models::ball::X { h, v: 0.0 },
                    &event_models::ball::P { g: 9.81, e },
                    outputs,
                    solution,
                )
            });
        assert!(
            matches!(result, Err(SolveError::StuckAtGuard { .. })),
            "{result:?}"
        );
        assert_eq!(allocations, 0, "ball from h = {h}, e = {e}");
    }
    // A chain of modes through one level: an event at b's entry, with sensitivities.
    let mut chain_events = [EventRecord::ZERO; 8];
    let solver =
        Solver::new(&corpus::chain::Model).sensitivities_to(Params::All, InitialStates::All);
    let (result, allocations, solution) =
        count_solve(&mut [], Some(&mut chain_events), |outputs, solution| {
            solver.solve_into(
                0.0,
                3.0,
                &corpus::chain::X { x: 0.0 },
                &corpus::chain::P {
                    va: 1.0,
                    vb: 1.0,
                    vc: 3.0,
                    level: 1.0,
                    d: 0.0,
                },
                outputs,
                solution,
            )
        });
    assert_eq!(result, Ok(()));
    assert_eq!(solution.n_events, 2, "a → b → c at t = 1");
    assert_eq!(allocations, 0, "chain");
    // A guard oscillating faster than the flow: steps cut.
    let mut wave_events = [EventRecord::ZERO; 8];
    let problem = corpus::wave::Model::problem(
        0.0,
        3.0,
        &corpus::wave::X { x: 0.0, n: 0.0 },
        &corpus::wave::P::from_array([2.0 * std::f64::consts::PI, 0.99]),
    );
    let options = HybridOptions::new(1e-6, 1e-8);
    let (result, allocations, solution) =
        count_solve(&mut [], Some(&mut wave_events), |outputs, solution| {
            corpus::wave::Model.solve(&problem, &options, outputs, solution)
        });
    assert_eq!(result, Ok(()));
    assert_eq!(solution.n_events, 6);
    assert!(solution.stats.guard_step_cuts > 0, "steps were cut");
    assert_eq!(allocations, 0, "wave");
}

#[test]
fn ex51_solve_with_sensitivities_does_not_allocate() {
    use event_models::ex51_costs;
    use hysens::runtime::{solve, HybridProblem, HybridRun, LoggedStep, StepPlan, ESDIRK436L2SA};
    let model = ex51_costs::Model;
    let times = [0.1, 0.25, 0.5, 1.0, 2.0];
    let data = [0.4, 1.0, 1.8, 2.7, 4.5];
    let problem = HybridProblem {
        t0: 0.0,
        tf: 5.0,
        y0: [0.0],
        z0: [],
        p: [2.9],
        sensitivities: Some([[0.0]]),
        sample_times: &times,
        sample_data: &data,
    };
    let opts = HybridOptions::new(1e-8, 1e-10);
    let mut samples = [Sample::<1, 0, 1>::ZERO; 5];
    let mut events = [EventRecord::<1, 1>::ZERO; 8];
    let mut steps = [LoggedStep::ZERO; 2048];
    let mut sol = HybridSolution::ZERO;
    let (r, n) = count(|| {
        let mut out = HybridOutputs {
            samples: &mut samples,
            events: Some(&mut events),
            steps: Some(&mut steps),
            dense: None,
        };
        solve(
            &HybridRun::new(&model, &ESDIRK436L2SA, &problem, &opts),
            &mut out,
            &mut sol,
        )
    });
    assert_eq!(r, Ok(()));
    assert_eq!(sol.n_events, 3);
    assert_eq!(sol.n_samples, 5);
    // Replaying the step log allocates nothing either.
    let logged = sol.n_logged_steps;
    let plan = steps;
    let (r2, n2) = count(|| {
        let mut out = HybridOutputs {
            samples: &mut samples,
            events: None,
            steps: None,
            dense: None,
        };
        solve(
            &HybridRun::new(&model, &ESDIRK436L2SA, &problem, &opts)
                .with_plan(StepPlan::Replay(&plan[..logged])),
            &mut out,
            &mut sol,
        )
    });
    assert_eq!(r2, Ok(()));
    assert_eq!((n, n2), (0, 0), "heap allocations during the solves");
}

#[test]
fn ball_solve_with_sensitivities_does_not_allocate() {
    use hysens::runtime::{solve, HybridRun, ESDIRK34};
    use models::ball;
    use runtime::ball_problem;
    let p = [5.0, -0.1, 10.0, 0.8];
    let problem = ball_problem(p, 4.5);
    let opts = HybridOptions::new(1e-8, 1e-10);
    let mut events = [EventRecord::<2, 4>::ZERO; 8];
    let (r, n, sol) = count_solve(&mut [], Some(&mut events), |outputs, solution| {
        solve(
            &HybridRun::new(&ball::Model, &ESDIRK34, &problem, &opts),
            outputs,
            solution,
        )
    });
    assert_eq!(r, Ok(()));
    assert_eq!(sol.n_events, 3);
    assert_eq!(n, 0, "heap allocations during the solve");
    // The counter works: an allocation inside `count` is seen.
    let (_, m) = count(|| std::hint::black_box(Box::new(1u64)));
    assert!(m >= 1);
}

/// The model language's newer features allocate nothing either: a terminal guard ending the
/// solve, an initial state mapped from the parameters (`#[initial_state]`), both through the
/// forward sensitivities and the adjoint (the projectile example's launch model).
#[test]
fn terminal_guards_and_initial_states_do_not_allocate() {
    use hysens::runtime::{AdjointGradient, AdjointTape, TapeStep};
    use language_models::launch;
    let start = launch::X {
        x: 0.0,
        y: 1.5,
        vx: 0.0,
        vy: 0.0,
    };
    let p = launch::P {
        g: 9.81,
        speed: 12.0,
        angle: 0.6,
    };
    let problem = launch::Model::problem(0.0, 100.0, &start, &p);
    let options = HybridOptions::new(1e-8, 1e-10);
    let mut events = [EventRecord::ZERO; 4];
    let mut tape = [TapeStep::ZERO; 256];
    let mut gradient = AdjointGradient::ZERO;
    let (result, forward_allocations, forward) =
        count_solve(&mut [], Some(&mut events), |outputs, solution| {
            launch::Model.solve_with_sensitivities(&problem, &options, outputs, solution)
        });
    assert_eq!(result, Ok(()));
    let (result, adjoint_allocations, _) = count_solve(&mut [], None, |outputs, solution| {
        let tape = AdjointTape::full(&mut tape);
        launch::Model.solve_adjoint(&problem, &options, tape, outputs, solution, &mut gradient)
    });
    assert_eq!(result, Ok(()));
    assert_eq!(
        (forward.n_events, forward.t),
        (1, events[0].t),
        "the landing ends the solve"
    );
    assert!((gradient.p[2] - forward.cost_gradient[2]).abs() < 1e-10 * gradient.p[2].abs());
    assert_eq!((forward_allocations, adjoint_allocations), (0, 0));
}

/// Each named cost from one forward pass (`solve_costs`) and the adjoint of one of them
/// (`HybridRun::with_objective`) allocate nothing either: the two-speed model's two integral
/// costs, the second limited to one mode.
#[test]
fn named_costs_and_the_adjoint_of_one_do_not_allocate() {
    use hysens::runtime::{solve_adjoint, solve_costs, AdjointGradient, AdjointTape, CostValue};
    use hysens::runtime::{HybridRun, Objective, TapeStep, ESDIRK436L2SA};
    use language_models::two_speeds;
    let p = two_speeds::P {
        va: 1.5,
        vc: 0.7,
        level: 1.0,
    };
    let mut problem = two_speeds::Model::problem(0.0, 2.0, &two_speeds::X { x: 0.2 }, &p);
    problem.sensitivities = Some([[0.0; 3]; 1]);
    let options = HybridOptions::new(1e-8, 1e-10);
    let run = HybridRun::new(&two_speeds::Model, &ESDIRK436L2SA, &problem, &options);
    let mut tape = vec![TapeStep::ZERO; 4096];
    let mut costs = [CostValue::ZERO; 2];
    let (mut solution, mut gradient) = (HybridSolution::ZERO, AdjointGradient::ZERO);
    let (result, allocations) = count(|| {
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        solve_costs(&run, &mut outputs, &mut solution, &mut costs)?;
        let one = run.with_objective(Objective::Cost(1));
        let full = AdjointTape::full(&mut tape);
        solve_adjoint(&one, full, &mut outputs, &mut solution, &mut gradient)
    });
    assert_eq!(result, Ok(()));
    assert_eq!(allocations, 0);
    assert!(costs[1].value > 0.0 && gradient.p.iter().all(|g| g.is_finite()));
}
