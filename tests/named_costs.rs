//! Several named costs: each `#[cost]` function is a cost of its own, named by the function.
//! One forward-sensitivity solve reports each cost's value and gradient
//! (`Solution::named_cost`, `named_cost_gradient`); the builder's `objective(name)` makes one
//! cost the objective of `solve` and `gradient`; `cost_gradients` gives the adjoint gradient of
//! each with one forward pass shared and one backward pass per cost. Their sum is the default
//! objective.
//!
//! Checked against closed forms differentiated with num-dual, FSA against the adjoint, and the
//! shared forward pass against one solve per cost. The flows are constant and the integrands
//! constant or polynomial of degree ≤ 2 in `t`, integrated exactly by the ESDIRK4(3) tableau;
//! the event times are located to round-off; so the only errors are the round-off of the
//! solves, and 1e-10 relative holds with margin at rtol 1e-10 (the tolerance of `mode_costs`,
//! whose two-speed model is the first one here).
#![deny(missing_docs)]

use crate::closed_form;
use crate::language_models as models;

use closed_form::{assert_close, derivatives, directions, forward_and_adjoint, value};
use hysens::runtime::{
    cost_index, AdjointGradient, AdjointTape, CostGradients, CostKind, Fields, HybridModel,
    HybridOutputs, HybridRun, HybridSolution, InitialStates, LookupError, Objective, Params,
    Solution, TapeStep, Wrt,
};
use models::two_speeds;
use num_dual::{Dual64, DualNum};

/// A relay on a wall with a cost of each kind: `x' = up` below the wall `x = 0`, `x' = −down`
/// above it; from below it slides on the wall until a terminal guard stops it at `t_stop`.
/// Two integral costs, each limited to one side (so each is combined with its own Filippov
/// weight in the sliding mode), a sampled cost and two terminal costs.
#[hysens::hybrid_model]
pub mod wall {
    /// The position.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }

    /// The two speeds and the stopping time.
    #[params]
    pub struct P {
        /// Speed below the wall.
        pub up: f64,
        /// Speed above it.
        pub down: f64,
        /// When the solve stops.
        pub t_stop: f64,
    }

    /// Below the wall.
    #[mode(initial_if(wall, negative))]
    fn below(p: &P) -> X {
        X { x: p.up }
    }

    /// Above the wall.
    #[mode(initial)]
    fn above(p: &P) -> X {
        X { x: -p.down }
    }

    /// The wall `x = 0`.
    #[switching_surface(below, above)]
    fn wall(x: &X) -> f64 {
        x.x
    }

    /// The stop (watched while sliding too).
    #[guard(below -> stop, either)]
    fn time_is_up(p: &P, t: f64) -> f64 {
        t - p.t_stop
    }

    /// Time spent above the wall.
    #[cost(integral, modes(above))]
    fn time_above() -> f64 {
        1.0
    }

    /// Twice the time spent below it.
    #[cost(integral, modes(below))]
    fn time_below() -> f64 {
        2.0
    }

    /// The squared misfit of the position at the sample times.
    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        (x.x - d) * (x.x - d)
    }

    /// At the stop.
    #[cost(terminal)]
    fn at_the_stop(x: &X, t: f64) -> f64 {
        t * t + x.x
    }

    /// A second terminal cost: when the solve stopped, weighted.
    #[cost(terminal)]
    fn stop_time(t: f64) -> f64 {
        3.0 * t
    }
}

/// The two-speed model's costs, by num-dual over `(va, vc, level, x0)` to `t_end`:
/// `position = ∫ x dt` and `squared_after = ∫_{t1}^{T} x² dt` with `t1 = (level − x0)/va`.
fn two_speeds_costs(v: &[Dual64], t_end: f64) -> [Dual64; 2] {
    let [va, vc, level, x0] = [v[0], v[1], v[2], v[3]];
    let t1 = (level - x0) / va;
    let x_end = level + vc * (-t1 + t_end);
    let position =
        (level * level - x0 * x0) / (va * 2.0) + (x_end * x_end - level * level) / (vc * 2.0);
    let squared_after = (x_end.powi(3) - level.powi(3)) / (vc * 3.0);
    [position, squared_after]
}

/// The wall model's costs, by num-dual over `(up, down, t_stop, x0)` with the data `d` at the
/// sample times `[0.1, 2.0]`: the wall is reached at `t1 = −x0/up` (after the first sample), the
/// sliding mode spends the share `α = up/(up + down)` of its time above, `x = 0` on it.
fn wall_costs(v: &[Dual64], d: [f64; 2]) -> [Dual64; 5] {
    let [up, down, t_stop, x0] = [v[0], v[1], v[2], v[3]];
    let t1 = -x0 / up;
    let alpha = up / (up + down);
    let time_above = alpha * (t_stop - t1);
    let time_below = (t1 + (-alpha + 1.0) * (t_stop - t1)) * 2.0;
    let first = x0 + up * 0.1 - d[0];
    let misfit = first * first + d[1] * d[1];
    [
        time_above,
        time_below,
        misfit,
        t_stop * t_stop,
        t_stop * 3.0,
    ]
}

/// Each named cost of `solution` (FSA) and of `adjoint` (one shared forward pass), value and
/// gradient in every direction of `names`, against `closed_form` at `values` to `tol`
/// relative, and FSA against the adjoint to 1e-10; the named costs sum to the default
/// objective `solution.cost` (and its gradient) to round-off. Returns the largest relative
/// difference from the closed form and between FSA and adjoint (`|a − b|/max(1, |b|)`).
fn check_named_costs<
    X: Fields<NY>,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const K: usize,
>(
    (solution, adjoint): (&Solution<X, NY, NZ, NP>, &CostGradients<NY, NP>),
    (costs, names): (&[&str; K], &[Wrt<'_>]),
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> [Dual64; K] + Copy,
    tol: f64,
) -> (f64, f64) {
    let exact = value(values, closed_form);
    let slopes = derivatives(values, closed_form);
    let (mut largest_fsa_adjoint, mut largest_error): (f64, f64) = (0.0, 0.0);
    let relative = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
    for (k, &cost) in costs.iter().enumerate() {
        let fsa = solution.named_cost(cost).expect("a cost of the model");
        let by_adjoint = adjoint.of(cost).expect("a cost of the model");
        assert_close(&format!("{cost} (FSA)"), fsa, exact[k], tol);
        assert_close(&format!("{cost} (adjoint)"), by_adjoint.cost, exact[k], tol);
        largest_error = largest_error.max(relative(fsa, exact[k]));
        largest_error = largest_error.max(relative(by_adjoint.cost, exact[k]));
        for (&wrt, slope) in names.iter().zip(&slopes) {
            let fsa = solution.named_cost_gradient(cost, wrt).expect("chosen");
            let by_adjoint = by_adjoint.wrt(wrt).expect("a known name");
            assert_close(&format!("d{cost}/d{wrt:?} (FSA)"), fsa, slope[k], tol);
            assert_close(
                &format!("d{cost}/d{wrt:?} (adjoint)"),
                by_adjoint,
                slope[k],
                tol,
            );
            assert_close(
                &format!("d{cost}/d{wrt:?}: FSA vs adjoint"),
                fsa,
                by_adjoint,
                1e-10,
            );
            largest_fsa_adjoint = largest_fsa_adjoint.max(relative(fsa, by_adjoint));
            largest_error = largest_error.max(relative(fsa, slope[k]));
            largest_error = largest_error.max(relative(by_adjoint, slope[k]));
        }
    }
    // The default objective is the sum: its quadrature adds the integrands before the
    // weights, the named costs after, so they agree to round-off.
    let sum: f64 = costs.iter().map(|c| solution.named_cost(c).unwrap()).sum();
    assert_close("the named costs' sum vs G", sum, solution.cost, 1e-13);
    for &wrt in names {
        let sum: f64 = costs
            .iter()
            .map(|c| solution.named_cost_gradient(c, wrt).unwrap())
            .sum();
        let objective = solution.cost_gradient(wrt).unwrap();
        assert_close(&format!("Σ dG_k/d{wrt:?} vs dG"), sum, objective, 1e-12);
    }
    (largest_error, largest_fsa_adjoint)
}

/// The two-speed model's two integral costs, one in every mode and one after the switch only:
/// each against the closed form, by FSA and by the shared adjoint.
#[test]
fn two_integral_costs_against_the_closed_form() {
    let (va, vc, level, x0, t_end) = (1.5, 0.7, 1.0, 0.2, 2.0);
    let p = two_speeds::P { va, vc, level };
    let start = two_speeds::X { x: x0 };
    let (solution, sum) =
        forward_and_adjoint!(two_speeds::Model, (1e-10, 1e-12), t_end, &start, &p);
    let solver = two_speeds::Model.solver().tolerances(1e-10, 1e-12);
    let adjoint = solver
        .cost_gradients(0.0, t_end, &start, &p)
        .expect("the adjoint gradients");
    let names = directions(&["va", "vc", "level"], &["x"]);
    // Without initial-state directions the solve carries the parameter columns only: the
    // same named costs and gradients (to round-off).
    let params_only = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, t_end, &start, &p)
        .expect("the forward solve");
    for cost in ["position", "squared_after"] {
        let (a, b) = (params_only.named_cost(cost), solution.named_cost(cost));
        assert_close(cost, a.unwrap(), b.unwrap(), 1e-14);
        for &wrt in &names[..3] {
            let a = params_only.named_cost_gradient(cost, wrt).unwrap();
            let b = solution.named_cost_gradient(cost, wrt).unwrap();
            assert_close(&format!("d{cost}/d{wrt:?}"), a, b, 1e-12);
        }
    }
    // The adjoint of the default objective is the sum of the costs' (to round-off).
    let total: f64 = adjoint.gradients.iter().map(|g| g.cost).sum();
    assert_close("Σ G_k (adjoint) vs G", total, sum.cost, 1e-13);
    for &wrt in &names {
        let total: f64 = adjoint.gradients.iter().map(|g| g.wrt(wrt).unwrap()).sum();
        let by_sum = sum.wrt(wrt).unwrap();
        assert_close(&format!("Σ dG_k/d{wrt:?} (adjoint)"), total, by_sum, 1e-12);
    }
    let costs = ["position", "squared_after"];
    let kinds: Vec<_> = two_speeds::Model::COSTS.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [CostKind::Integral, CostKind::Integral]);
    let closed_form = |v: &[Dual64]| two_speeds_costs(v, t_end);
    let values = [va, vc, level, x0];
    let (error, fsa_adjoint) = check_named_costs(
        (&solution, &adjoint),
        (&costs, &names),
        &values,
        closed_form,
        1e-10,
    );
    println!("two speeds: closed form {error:.1e}, FSA vs adjoint {fsa_adjoint:.1e}");
}

/// The wall case: `(up, down, t_stop, x0)`.
const WALL: [f64; 4] = [1.0, 2.0, 2.5, -0.3];
/// Its sample times and the sampled cost's data.
const WALL_TIMES: [f64; 2] = [0.1, 2.0];
/// See [`WALL_TIMES`].
const WALL_DATA: [f64; 2] = [-0.1, 0.05];

/// The wall case's parameters and initial state, from [`WALL`].
fn wall_start() -> (wall::P, wall::X) {
    let [up, down, t_stop, x0] = WALL;
    (wall::P { up, down, t_stop }, wall::X { x: x0 })
}

/// The wall model's five costs of three kinds, two integral costs combined in the sliding mode
/// each with its side's share: each against the closed form, by FSA and by the shared adjoint.
#[test]
fn a_cost_of_each_kind_on_a_sliding_solve_against_the_closed_form() {
    let [up, down, t_stop, x0] = WALL;
    let (p, start) = wall_start();
    let data = WALL_DATA;
    let solver = wall::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .samples(&WALL_TIMES)
        .data(&WALL_DATA);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 10.0, &start, &p)
        .expect("the forward solve");
    let modes: Vec<&str> = solution.events.iter().map(|e| e.to).collect();
    assert_eq!(modes, ["wall_sliding", "stop"], "slides, then stops");
    let adjoint = solver
        .cost_gradients(0.0, 10.0, &start, &p)
        .expect("the adjoint gradients");
    let names = directions(&["up", "down", "t_stop"], &["x"]);
    let costs = [
        "time_above",
        "time_below",
        "misfit",
        "at_the_stop",
        "stop_time",
    ];
    let closed_form = |v: &[Dual64]| wall_costs(v, data);
    let values = [up, down, t_stop, x0];
    let (error, fsa_adjoint) = check_named_costs(
        (&solution, &adjoint),
        (&costs, &names),
        &values,
        closed_form,
        1e-10,
    );
    println!("wall: closed form {error:.1e}, FSA vs adjoint {fsa_adjoint:.1e}");
}

/// One cost as the objective (`Solver::objective`): `solve`'s cost and FSA gradient are that
/// cost's of the solve with the sum, bit for bit, on the same steps; `gradient` is the shared
/// forward pass's gradient of that cost, bit for bit.
#[test]
fn one_cost_as_the_objective_equals_the_shared_passes_bit_for_bit() {
    let (p, start) = wall_start();
    let solver = wall::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .samples(&WALL_TIMES)
        .data(&WALL_DATA);
    let all = solver.sensitivities_to(Params::All, InitialStates::All);
    let sum = all.solve(0.0, 10.0, &start, &p).expect("the solve");
    let shared = solver
        .cost_gradients(0.0, 10.0, &start, &p)
        .expect("adjoint");
    for info in wall::Model::COSTS {
        let name = info.name;
        let one = all.objective(name).expect("a cost of the model");
        let solution = one.solve(0.0, 10.0, &start, &p).expect("the solve");
        assert_eq!(solution.stats, sum.stats, "{name}: the same steps");
        assert_eq!(solution.cost, sum.named_cost(name).unwrap(), "{name}");
        for wrt in directions(&["up", "down", "t_stop"], &["x"]) {
            let fsa = solution.cost_gradient(wrt).unwrap();
            assert_eq!(fsa, sum.named_cost_gradient(name, wrt).unwrap(), "{name}");
        }
        let gradient = solver
            .objective(name)
            .expect("a cost of the model")
            .gradient(0.0, 10.0, &start, &p)
            .expect("the adjoint");
        let from_shared = shared.of(name).unwrap();
        assert_eq!(gradient.cost, from_shared.cost, "{name}");
        assert_eq!(gradient.params, from_shared.params, "{name}");
        assert_eq!(
            gradient.initial_states, from_shared.initial_states,
            "{name}"
        );
        assert_eq!(
            gradient.adjoint, from_shared.adjoint,
            "{name}: the trajectory"
        );
        assert_eq!(
            gradient.stats, from_shared.stats,
            "{name}: the same forward pass"
        );
    }
}

/// The no-heap core: `solve_costs` computes each cost besides the objective, and
/// `solve_adjoint` with one cost as the run's objective gives that cost's gradient, the same
/// from a checkpointed tape, to 1e-10 of the forward one.
#[test]
fn the_core_computes_each_cost_and_its_adjoint_without_the_heap() {
    use hysens::runtime::{solve_adjoint, solve_costs, Checkpoint, CostValue, HybridOptions};
    let p = [1.5, 0.7, 1.0];
    let mut problem = two_speeds::Model::problem(0.0, 2.0, &two_speeds::X { x: 0.2 }, &{
        two_speeds::P {
            va: p[0],
            vc: p[1],
            level: p[2],
        }
    });
    problem.sensitivities = Some([[0.0; 3]; 1]);
    let options = HybridOptions::new(1e-10, 1e-12);
    let run = HybridRun::new(
        &two_speeds::Model,
        &hysens::runtime::ESDIRK436L2SA,
        &problem,
        &options,
    );
    let mut outputs = HybridOutputs {
        samples: &mut [],
        events: None,
        steps: None,
        dense: None,
    };
    let mut solution = HybridSolution::ZERO;
    let mut costs = [CostValue::ZERO; 2];
    solve_costs(&run, &mut outputs, &mut solution, &mut costs).expect("the solve");
    let k = cost_index(two_speeds::Model::COSTS, "squared_after").expect("a cost");
    let one = run.with_objective(Objective::Cost(k));
    let mut tape = vec![TapeStep::ZERO; 4096];
    let mut gradient = AdjointGradient::ZERO;
    let mut sol = HybridSolution::ZERO;
    let full = AdjointTape::full(&mut tape);
    solve_adjoint(&one, full, &mut outputs, &mut sol, &mut gradient).expect("adjoint");
    assert_eq!(
        sol.cost, costs[k].value,
        "the objective's value is the cost's"
    );
    for (adjoint, fsa) in gradient.p.iter().zip(&costs[k].gradient) {
        assert_close("dG_k/dp: adjoint vs FSA", *adjoint, *fsa, 1e-10);
    }
    let mut window = vec![TapeStep::ZERO; 8];
    let mut checkpoints = vec![Checkpoint::ZERO; 64];
    let tape = AdjointTape::checkpointed(&mut window, &mut checkpoints);
    let mut checkpointed = AdjointGradient::ZERO;
    solve_adjoint(&one, tape, &mut outputs, &mut sol, &mut checkpointed).expect("adjoint");
    assert_eq!((checkpointed.p, checkpointed.y0), (gradient.p, gradient.y0));
    // A cost index past the model's is an argument error, not a silent zero.
    let past = run.with_objective(Objective::Cost(2));
    let wrong = hysens::runtime::solve(&past, &mut outputs, &mut solution);
    assert!(matches!(
        wrong,
        Err(hysens::runtime::SolveError::InvalidArgument { .. })
    ));
}

/// A cost name the model does not have is an error that lists the model's costs, wherever a
/// cost is named: never a silent zero.
#[test]
fn an_unknown_cost_name_lists_the_models_costs() {
    let p = two_speeds::P {
        va: 1.5,
        vc: 0.7,
        level: 1.0,
    };
    let start = two_speeds::X { x: 0.2 };
    let solver = two_speeds::Model.solver().tolerances(1e-8, 1e-10);
    let known = vec!["position", "squared_after"];
    let unknown = |name: &str| LookupError::UnknownName {
        kind: "cost",
        name: name.into(),
        known: known.clone(),
    };
    let error = solver.objective("energy").map(|_| ()).unwrap_err();
    assert_eq!(error, unknown("energy"));
    assert_eq!(
        error.to_string(),
        "unknown cost `energy`; the model's: position, squared_after"
    );
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 2.0, &start, &p)
        .expect("the solve");
    assert_eq!(solution.named_cost("Position"), Err(unknown("Position")));
    assert_eq!(
        solution.named_cost_gradient("squared", "va"),
        Err(unknown("squared"))
    );
    assert!(matches!(
        solution.named_cost_gradient("position", "speed"),
        Err(LookupError::UnknownName {
            kind: "parameter",
            ..
        })
    ));
    let gradients = solver
        .cost_gradients(0.0, 2.0, &start, &p)
        .expect("adjoint");
    assert_eq!(gradients.of("total").map(|_| ()), Err(unknown("total")));
    let names: Vec<&str> = solution.costs().iter().map(|c| c.name).collect();
    assert_eq!(names, known);
}
