//! Solving a `#[hybrid_model]` allocates nothing on the heap, with and without sensitivities:
//! the generated kernels and entry points, and the runtime under them, work in fixed-size
//! storage only. Counted with the runtime's thread-local counting allocator.
#![deny(missing_docs)]

#[path = "../hysens-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::count;

#[path = "support/models.rs"]
mod models;
use hysens::runtime::{EventRecord, HybridOptions, HybridOutputs, HybridSolution, Sample};
use models::{ex51, relay};

#[test]
fn generated_ode_model_solves_without_allocating() {
    let model = ex51::Model;
    let problem = ex51::Model::problem(0.0, 5.0, &ex51::X { x: 0.0 }, &ex51::P { p: 2.9 });
    let mut events = [EventRecord::ZERO; 8];
    // Plain, with sensitivities, and with the sensitivities in the error test.
    for (with_sensitivities, in_error_test) in [(false, false), (true, false), (true, true)] {
        let mut options = HybridOptions::new(1e-8, 1e-10);
        options.integrator.sensitivity_error_test = in_error_test;
        let mut solution = HybridSolution::ZERO;
        let (result, allocations) = count(|| {
            let mut outputs = HybridOutputs {
                samples: &mut [],
                events: Some(&mut events),
                steps: None,
            };
            if with_sensitivities {
                model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
            } else {
                model.solve(&problem, &options, &mut outputs, &mut solution)
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
    let options = HybridOptions::new(1e-7, 1e-9);
    let mut samples = [Sample::ZERO; 3];
    let mut events = [EventRecord::ZERO; 64];
    for with_sensitivities in [false, true] {
        let mut solution = HybridSolution::ZERO;
        let (result, allocations) = count(|| {
            let mut outputs = HybridOutputs {
                samples: &mut samples,
                events: Some(&mut events),
                steps: None,
            };
            if with_sensitivities {
                model.solve_with_sensitivities(&problem, &options, &mut outputs, &mut solution)
            } else {
                model.solve(&problem, &options, &mut outputs, &mut solution)
            }
        });
        assert_eq!(result, Ok(()));
        assert!(solution.n_events >= 1, "the relay switches");
        assert_eq!(solution.n_samples, 3);
        assert_eq!(allocations, 0, "sensitivities: {with_sensitivities}");
    }
}

/// The builder's caller-storage path allocates nothing either, with sensitivities to
/// parameters and initial states (the extended model of `p' = (p, y0)`).
#[test]
fn builder_solve_into_does_not_allocate() {
    use hysens::runtime::{InitialStates, Params, Solver};
    let model = relay::Model;
    let times = [1.0, 2.0, 5.0];
    let solver = Solver::new(&model)
        .tolerances(1e-7, 1e-9)
        .sensitivities_to(Params::Only(&["k"]), InitialStates::All)
        .samples(&times)
        .algebraic_guess(&[1.0]);
    let mut samples = [Sample::ZERO; 3];
    let mut events = [EventRecord::ZERO; 64];
    let mut solution = HybridSolution::ZERO;
    let (result, allocations) = count(|| {
        solver.solve_into(
            0.0,
            10.0,
            &[0.0, 0.0],
            &[2.0, 0.3],
            &mut HybridOutputs {
                samples: &mut samples,
                events: Some(&mut events),
                steps: None,
            },
            &mut solution,
        )
    });
    assert_eq!(result, Ok(()));
    assert!(solution.n_events >= 1, "the relay switches");
    assert_eq!(allocations, 0);
}

/// The owned path allocates its results only: the event and sample buffers, the columns and
/// directions, one vector per event (`dt`), two per sample (`dy`, `dz`), and the final
/// sensitivities — a count that does not grow with the number of steps.
#[test]
fn builder_solve_allocates_only_its_results() {
    use hysens::runtime::{InitialStates, Params, Solver};
    let model = relay::Model;
    let times = [1.0, 2.0, 5.0];
    let solver = Solver::new(&model)
        .tolerances(1e-7, 1e-9)
        .sensitivities_to(Params::All, InitialStates::Only(&["v"]))
        .samples(&times)
        .algebraic_guess(&[1.0]);
    for (tf, rtol) in [(10.0, 1e-7), (10.0, 1e-10)] {
        let solver = solver.tolerances(rtol, rtol * 1e-2);
        let (result, allocations) = count(|| solver.solve(0.0, tf, &[0.0, 0.0], &[2.0, 0.3]));
        let solution = result.expect("the relay solves");
        let results = solution.events.len() + 2 * solution.samples.len();
        assert!(
            allocations <= 10 + results,
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
    use hysens::runtime::{solve_adjoint, AdjointGradient, StepPlan, TapeStep, ESDIRK34};
    use models::robertson;
    let model = robertson::Model;
    let x0 = robertson::X {
        y1: 1.0,
        y2: 0.0,
        y3: 0.0,
    };
    let p = robertson::P {
        k1: 0.04,
        k2: 3e7,
        k3: 1e4,
    };
    let mut problem = robertson::Model::problem(0.0, 40.0, &x0, &p);
    let times = [0.0, 0.4, 4.0];
    problem.sample_times = &times;
    let options = HybridOptions::new(1e-6, 1e-10);
    let mut samples = [Sample::ZERO; 3];
    let mut tape = [TapeStep::ZERO; 512];
    let mut solution = HybridSolution::ZERO;
    let mut gradient = AdjointGradient::ZERO;
    let (result, allocations) = count(|| {
        solve_adjoint(
            &model,
            &ESDIRK34,
            &problem,
            &options,
            StepPlan::Adaptive,
            &mut tape,
            &mut HybridOutputs {
                samples: &mut samples,
                events: None,
                steps: None,
            },
            &mut solution,
            &mut gradient,
        )
    });
    assert_eq!(result, Ok(()));
    assert_eq!(gradient.stats.steps, solution.stats.steps);
    assert_eq!(allocations, 0);
}
