//! Whatever a caller passes, a solve ends with `Ok` or an error — never a panic, never an
//! endless loop — and a failed solve keeps a finite state at a time inside the span (issue #4,
//! "Errors": "Never a panic … A failed solve keeps what it computed").
//!
//! Property test over the generated entry points of the benchmark models: non-finite,
//! zero, huge and tiny values in the problem (times, states, parameters, seeds, sample
//! times and data) and in every option (tolerances, step limits, Newton and controller
//! settings, event limits), undersized output storage, every tableau, and replayed step
//! plans with arbitrary step sizes. The solving API ([`hysens::runtime::Solver`]) is checked
//! the same way, both its owned and its caller-storage path, with sensitivity selections
//! that name unknown variables too. Three quarters of each value stay at a sensible default so
//! that the solver also gets deep into its integration, event and sensitivity code.
//!
//! The tests run in debug builds (the README's `cargo test`), so integer overflow and slice
//! bounds are checked too. Cases are bounded in work by `max_steps ≤ 3000` per segment and
//! `max_events ≤ 40`.
#![deny(missing_docs)]

use hysens::runtime::smooth::{Esdirk, StepLength, StepRecord, Trial};
use hysens::runtime::tableau::{ESDIRK23, ESDIRK34, ESDIRK436L2SA};
use hysens::runtime::{
    solve, solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, Checkpoint, DensePoint,
    EventRecord, Fields, HybridModel, HybridOptions, HybridOutputs, HybridProblem, HybridRun,
    HybridSolution, LoggedStep, ModelSizes, ModelTypes, Options, Sample, SolveError, Solver,
    StepKind, StepPlan, Tableau, TapeStep,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::language_models;
use crate::models;
use crate::smooth_modes;
use language_models::launch;
use models::{ball, ex51, relay, robertson, vdp};
use smooth_modes::ModeOf;

/// Whether a successful solve ended where it should: at `t_f`, or inside the span in the
/// stopped mode of a terminal guard (`ModeInfo::terminal`).
fn ends_at_its_end<M, const NY: usize, const NZ: usize, const NP: usize>(
    _: &M,
    solution: &HybridSolution<NY, NZ, NP>,
    problem: &HybridProblem<'_, NY, NZ, NP>,
) -> bool
where
    M: HybridModel<NY, NZ, NP>,
{
    match M::MODES.get(solution.mode).is_some_and(|m| m.terminal) {
        true => problem.t0 <= solution.t && solution.t <= problem.tf,
        false => solution.t == problem.tf,
    }
}

/// Any `f64`, with the awkward ones (NaN, ±∞, ±0, subnormal, extreme) well represented.
fn wild() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => -10.0..10.0f64,
        2 => any::<f64>(),
        2 => prop::sample::select(vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            f64::EPSILON,
            1e-300,
            -1e-300,
            1e300,
            -1e300,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]),
    ]
}

/// `default` 15 times in 16, else [`wild`]: with about twenty such values per case, most
/// cases have one or two wild values and get past the argument checks.
fn or_wild(default: f64) -> impl Strategy<Value = f64> {
    prop_oneof![15 => Just(default), 1 => wild()]
}

/// Each of `defaults`, independently [`or_wild`].
fn array_or_wild<const K: usize>(defaults: [f64; K]) -> impl Strategy<Value = [f64; K]> {
    defaults.map(or_wild)
}

/// A tolerance: mostly `10^[-12, -2]`, else [`wild`].
fn tolerance() -> impl Strategy<Value = f64> {
    prop_oneof![15 => (-12.0..-2.0f64).prop_map(|e| 10f64.powf(e)), 1 => wild()]
}

/// Every field of [`HybridOptions`], each sensible or wild.
fn options<const NY: usize, const NZ: usize>() -> impl Strategy<Value = HybridOptions<NY, NZ>> {
    let steps = (
        tolerance(),
        tolerance(),
        prop::option::weighted(0.06, wild()),
        or_wild(f64::INFINITY),
        or_wild(0.0),
        prop_oneof![15 => 100..3000usize, 1 => 0..5usize],
        prop_oneof![15 => Just(10usize), 1 => 0..4usize],
        or_wild(0.01),
    );
    let control = (
        or_wild(0.01),
        any::<bool>(),
        or_wild(0.8),
        or_wild(0.2),
        or_wild(5.0),
        prop_oneof![15 => Just(40usize), 1 => 0..3usize],
        or_wild(1e-10),
        or_wild(1e-3),
    );
    (steps, control).prop_map(|(steps, control)| {
        let (rtol, atol, h_init, h_max, h_min, max_steps, max_newton, newton_tol) = steps;
        let (reuse, sens_test, target, fac_min, fac_max, max_events, separation, grazing) = control;
        let mut o = HybridOptions::new(rtol, atol);
        let i = &mut o.integrator;
        (i.h_init, i.h_max, i.h_min, i.max_steps) = (h_init, h_max, h_min, max_steps);
        (i.max_newton_iterations, i.newton_tol, i.jacobian_reuse_rate) =
            (max_newton, newton_tol, reuse);
        (i.sensitivity_error_test, i.target, i.fac_min, i.fac_max) =
            (sens_test, target, fac_min, fac_max);
        (o.max_events, o.min_event_separation, o.grazing_tol) = (max_events, separation, grazing);
        o
    })
}

/// Whether every setting is within its documented range (the docs of `Options` and
/// `HybridOptions`, restated here independently of the runtime's check; uniform tolerances).
fn valid<const NY: usize, const NZ: usize>(o: &HybridOptions<NY, NZ>) -> bool {
    let finite_nonneg = |x: f64| x.is_finite() && x >= 0.0;
    let finite_positive = |x: f64| x.is_finite() && x > 0.0;
    let i = &o.integrator;
    i.rtol_y.iter().chain(&i.rtol_z).all(|x| finite_nonneg(*x))
        && i.atol_y
            .iter()
            .chain(&i.atol_z)
            .all(|x| finite_positive(*x))
        && i.h_init.is_none_or(finite_positive)
        && i.h_max > 0.0
        && finite_nonneg(i.h_min)
        && i.h_min <= i.h_max
        && i.max_newton_iterations >= 1
        && finite_positive(i.newton_tol)
        && i.jacobian_reuse_rate >= 0.0
        && i.target > 0.0
        && i.target <= 1.0
        && i.fac_min > 0.0
        && i.fac_min <= 1.0
        && i.fac_max.is_finite()
        && i.fac_max >= 1.0
        && finite_nonneg(o.min_event_separation)
        && finite_nonneg(o.grazing_tol)
}

/// What a solve is asked besides the model's own data: time span, sample times and data,
/// storage sizes, tableau, sensitivities on or off, and an optional replayed step plan.
#[derive(Clone, Debug)]
struct Call {
    t0: f64,
    tf: f64,
    sample_times: Vec<f64>,
    sample_data: Vec<f64>,
    sample_slots: usize,
    event_slots: Option<usize>,
    step_slots: Option<usize>,
    dense_slots: Option<usize>,
    tableau: usize,
    sensitivities: bool,
    replay: Option<Vec<LoggedStep>>,
}

/// A step of a replayed plan: any length, any kind.
fn logged_step() -> impl Strategy<Value = LoggedStep> {
    let kind = prop::sample::select(vec![
        StepKind::Free,
        StepKind::Landing,
        StepKind::EventTrial,
    ]);
    (wild(), kind).prop_map(|(h, kind)| LoggedStep { h, kind })
}

prop_compose! {
    /// A call on the span `[0, tf]`, either end sometimes wild, with mostly sorted sample
    /// times with one datum each or none (the valid cases), sometimes as drawn (`shape` 0).
    fn call(tf: f64)(
        t0 in or_wild(0.0),
        tf in or_wild(tf),
        mut sample_times in prop::collection::vec(prop_oneof![15 => 0.0..tf, 1 => wild()], 0..4),
        mut sample_data in prop::collection::vec(or_wild(1.0), 0..4),
        shape in 0..8u8,
        sample_slots in prop_oneof![3 => Just(4usize), 1 => 0..4usize],
        event_slots in prop::option::of(prop_oneof![3 => Just(64usize), 1 => 0..6usize]),
        step_slots in prop::option::of(prop_oneof![3 => Just(20_000usize), 1 => 0..60usize]),
        dense_slots in prop::option::of(prop_oneof![3 => Just(20_000usize), 1 => 0..60usize]),
        tableau in 0..3usize,
        sensitivities in any::<bool>(),
        replay in prop::option::weighted(0.05, prop::collection::vec(logged_step(), 0..40)),
    ) -> Call {
        match shape {
            0 => {}
            1 => sample_data.clear(),
            _ => {
                sample_times.sort_by(f64::total_cmp);
                sample_data.resize(sample_times.len(), 0.5);
            }
        }
        Call {
            t0, tf, sample_times, sample_data, sample_slots, event_slots, step_slots, dense_slots,
            tableau, sensitivities, replay,
        }
    }
}

impl Call {
    /// `problem` with this call's span, sample times and data, and `seeds` if the call asks
    /// for sensitivities.
    fn problem<'a, const NY: usize, const NZ: usize, const NP: usize>(
        &'a self,
        problem: HybridProblem<'a, NY, NZ, NP>,
        seeds: [[f64; NP]; NY],
    ) -> HybridProblem<'a, NY, NZ, NP> {
        HybridProblem {
            t0: self.t0,
            tf: self.tf,
            sensitivities: self.sensitivities.then_some(seeds),
            sample_times: &self.sample_times,
            sample_data: &self.sample_data,
            ..problem
        }
    }

    /// The replayed step plan, or adaptive steps.
    fn plan(&self) -> StepPlan<'_> {
        match &self.replay {
            Some(log) => StepPlan::Replay(log),
            None => StepPlan::Adaptive,
        }
    }

    /// Output storage of this call's sizes: its sample and event slots, and its step slots if
    /// `step_log` (else no step log).
    fn storage<const NY: usize, const NZ: usize, const NP: usize>(
        &self,
        step_log: bool,
    ) -> Storage<NY, NZ, NP> {
        Storage {
            samples: vec![Sample::ZERO; self.sample_slots],
            events: self.event_slots.map(|n| vec![EventRecord::ZERO; n]),
            steps: self
                .step_slots
                .filter(|_| step_log)
                .map(|n| vec![LoggedStep::ZERO; n]),
            dense: self.dense_slots.map(|n| vec![DensePoint::ZERO; n]),
        }
    }
}

/// A solve's output storage, owned ([`Call::storage`]).
struct Storage<const NY: usize, const NZ: usize, const NP: usize> {
    samples: Vec<Sample<NY, NZ, NP>>,
    events: Option<Vec<EventRecord<NY, NP>>>,
    steps: Option<Vec<LoggedStep>>,
    dense: Option<Vec<DensePoint<NY, NZ, NP>>>,
}

impl<const NY: usize, const NZ: usize, const NP: usize> Storage<NY, NZ, NP> {
    /// The storage as a solve takes it.
    fn outputs(&mut self) -> HybridOutputs<'_, NY, NZ, NP> {
        HybridOutputs {
            samples: &mut self.samples,
            events: self.events.as_deref_mut(),
            steps: self.steps.as_deref_mut(),
            dense: self.dense.as_deref_mut(),
        }
    }
}

/// `$body` with `$tableau` the tableau a call's index picks: ESDIRK2(3), ESDIRK3(4), or
/// ESDIRK4(3)6L[2]SA.
macro_rules! with_tableau {
    ($index:expr, |$tableau:ident| $body:expr) => {
        match $index {
            0 => {
                let $tableau = &ESDIRK23;
                $body
            }
            1 => {
                let $tableau = &ESDIRK34;
                $body
            }
            _ => {
                let $tableau = &ESDIRK436L2SA;
                $body
            }
        }
    };
}

/// `cases` cases a test, without failure persistence (no regression files are written).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// The problems of the benchmark models (`support/models.rs`) and of the projectile example's
// launch, as their generated `problem` gives them, from states, parameters and algebraic
// guesses each sensible or wild; the tests override the span, samples and seeds by `Call`.

/// P1, Ex. 5.1, on [0, 5].
fn ex51_problem() -> impl Strategy<Value = HybridProblem<'static, 1, 0, 1>> {
    (or_wild(0.0), or_wild(2.9))
        .prop_map(|(x, p)| ex51::Model::problem(0.0, 5.0, &ex51::X { x }, &ex51::P { p }))
}

/// The launch, on [0, 10].
fn launch_problem() -> impl Strategy<Value = HybridProblem<'static, 4, 0, 3>> {
    let y = array_or_wild([0.0, 1.5, 0.0, 0.0]);
    let q = array_or_wild([9.81, 12.0, 0.6]);
    (y, q).prop_map(|(y, q)| {
        launch::Model::problem(0.0, 10.0, &Fields::from_array(y), &Fields::from_array(q))
    })
}

/// P2, the ball, on [0, 1.9].
fn ball_problem() -> impl Strategy<Value = HybridProblem<'static, 2, 0, 4>> {
    let y = array_or_wild([5.0, -0.1]);
    let q = array_or_wild([5.0, -0.1, 10.0, 0.8]);
    (y, q).prop_map(|(y, q)| {
        ball::Model::problem(0.0, 1.9, &Fields::from_array(y), &Fields::from_array(q))
    })
}

/// P3, Robertson, on [0, 1e5].
fn robertson_problem() -> impl Strategy<Value = HybridProblem<'static, 3, 0, 3>> {
    let y = array_or_wild([1.0, 0.0, 0.0]);
    let q = array_or_wild([0.04, 3e7, 1e4]);
    (y, q).prop_map(|(y, q)| {
        robertson::Model::problem(0.0, 1e5, &Fields::from_array(y), &Fields::from_array(q))
    })
}

/// P4, Van der Pol, on [0, 500].
fn vdp_problem() -> impl Strategy<Value = HybridProblem<'static, 2, 0, 1>> {
    (array_or_wild([2.0, 0.0]), or_wild(1000.0))
        .prop_map(|(y, mu)| vdp::Model::problem(0.0, 500.0, &Fields::from_array(y), &vdp::P { mu }))
}

/// The relay, an index-1 DAE with memory and a reset, on [0, 10], with an algebraic guess.
fn relay_problem() -> impl Strategy<Value = HybridProblem<'static, 2, 1, 2>> {
    let y = array_or_wild([0.0, 0.0]);
    let q = array_or_wild([2.0, 0.3]);
    (y, or_wild(1.0), q).prop_map(|(y, f, q)| HybridProblem {
        z0: [f],
        ..relay::Model::problem(0.0, 10.0, &Fields::from_array(y), &Fields::from_array(q))
    })
}

/// Runs one call of `$model` on `$problem` (whose span, samples and seeds `$call` overrides)
/// with `$options`, and checks the outcome: `Ok` ends at `tf` with finite results; an error
/// leaves a finite state at a time in `[t0, tf]` and says what happened.
macro_rules! check_call {
    ($model:expr, $problem:expr, $seeds:expr, $call:expr, $options:expr) => {{
        let call: &Call = $call;
        let problem = call.problem($problem, $seeds);
        let options = $options;
        let mut storage = call.storage(true);
        let mut outputs = storage.outputs();
        let mut solution = HybridSolution::ZERO;
        let model = $model;
        let result = with_tableau!(call.tableau, |tableau| model.solve_with(
            tableau,
            &problem,
            &options,
            call.plan(),
            &mut outputs,
            &mut solution,
        ));
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let span_valid =
            problem.t0.is_finite() && problem.tf.is_finite() && problem.t0 <= problem.tf;
        if !span_valid {
            // Saying which of t0, tf is wrong (issue #19).
            prop_assert!(
                matches!(result, Err(SolveError::InvalidTimeSpan { .. })),
                "an invalid time span must be rejected first, as such: {:?}",
                result
            );
        } else if !valid(&options) {
            prop_assert!(
                matches!(result, Err(SolveError::InvalidArgument { .. })),
                "a setting out of range must be rejected up front: {:?}",
                result
            );
        }
        match result {
            Ok(()) => {
                prop_assert!(
                    ends_at_its_end(&model, &solution, &problem),
                    "{:?}",
                    solution
                );
                prop_assert!(finite(&solution.y) && finite(&solution.z), "{:?}", solution);
                prop_assert!(solution.sy.iter().all(|r| finite(r)), "{:?}", solution);
                prop_assert!(finite(&[solution.cost]), "{:?}", solution);
                prop_assert!(finite(&solution.cost_gradient), "{:?}", solution);
            }
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                if span_valid {
                    prop_assert!(
                        solution.t >= problem.t0 && solution.t <= problem.tf,
                        "{e}: t = {} outside [{}, {}]",
                        solution.t,
                        problem.t0,
                        problem.tf
                    );
                }
                if finite(&problem.y0) && finite(&problem.z0) {
                    prop_assert!(
                        finite(&solution.y) && finite(&solution.z),
                        "{e}: kept a non-finite state {:?}",
                        solution
                    );
                }
            }
        }
    }};
}

proptest! {
    #![proptest_config(config(512))]

    /// P1, Serban & Recuero Ex. 5.1: three switches, integral cost.
    #[test]
    fn ex51_never_panics(
        problem in ex51_problem(),
        seed in or_wild(0.0),
        c in call(5.0),
        k in options(),
    ) {
        check_call!(ex51::Model, problem, [[seed]], &c, k);
    }

    /// The projectile example's launch: a terminal guard ends the solve, the initial velocity
    /// is mapped from the parameters (`#[initial_state]`).
    #[test]
    fn launch_never_panics(
        problem in launch_problem(),
        seed in or_wild(0.1),
        c in call(10.0),
        k in options(),
    ) {
        check_call!(launch::Model, problem, [[seed, 0.0, 0.0]; 4], &c, k);
    }

    /// P2, the bouncing ball: repeated impacts with resets; Zeno if γ < 1 and T is long.
    #[test]
    fn ball_never_panics(problem in ball_problem(), c in call(1.9), k in options()) {
        check_call!(ball::Model, problem, [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], &c, k);
    }

    /// P3, Robertson: stiff, badly scaled.
    #[test]
    fn robertson_never_panics(problem in robertson_problem(), c in call(1e5), k in options()) {
        check_call!(robertson::Model, problem, [[0.0; 3]; 3], &c, k);
    }

    /// P4, Van der Pol with μ up to wild values: stiffness, blow-up, Newton failures.
    #[test]
    fn vdp_never_panics(problem in vdp_problem(), c in call(500.0), k in options()) {
        check_call!(vdp::Model, problem, [[0.0]; 2], &c, k);
    }

    /// An index-1 DAE with memory and a reset: consistent (re)initialization of `z`.
    #[test]
    fn relay_dae_never_panics(problem in relay_problem(), c in call(10.0), k in options()) {
        check_call!(relay::Model, problem, [[0.0; 2]; 2], &c, k);
    }

    /// The integrator's own API, called in any order with any arguments, on the relay's
    /// index-1 DAE mode `push` with its memory at the origin (`q' = v`, `v' = f − c v`,
    /// `0 = f + k q − 1`, `p = (k, c)`): never a panic; the integrator's time, state and
    /// sensitivities stay finite (a failed call leaves those of the last accepted step).
    #[test]
    fn esdirk_calls_in_any_order_never_panic(
        problem in relay_problem(),
        mode in prop_oneof![3 => 0..2usize, 1 => Just(7usize)],
        k in options(),
        ops in prop::collection::vec(op(), 1..12),
    ) {
        let options: Options<2, 1> = k.integrator;
        let push = ModeOf::first(&relay::Model);
        let HybridProblem { y0, z0, p, .. } = problem;
        let Ok(mut it) =
            Esdirk::<_, 6, 2, 1, 2, 3>::new(&push, &ESDIRK436L2SA, mode, p, 0.0, y0, z0, options)
        else {
            return Ok(());
        };
        let mut observer = |_: &StepRecord<'_, 6, 2, 1>| {};
        let mut last_trial = None;
        for op in ops {
            let result = match op {
                Op::IntegrateTo(dt) => it.integrate_to(it.t() + dt, &mut observer),
                Op::TryStep(dt) => it.try_step(it.t() + dt).map(|t| last_trial = Some(t)),
                Op::Commit(forged) => match forged.or(last_trial.take()) {
                    Some(trial) => it.commit(&trial, &mut observer),
                    None => Ok(()),
                },
                Op::StepFixed(h) => it.step_fixed(h, &mut observer),
                Op::EvaluateFixed(h) => it.evaluate_fixed(h).map(|_| ()),
                Op::CommitFixed(h, t, l) => it.commit_fixed(h, t, l, &mut observer),
                Op::EnableSensitivities(s, st) => it.enable_sensitivities_at(s, st),
                Op::ApplyStepLengthDerivative(dh) => it.apply_step_length_derivative(&dh),
            };
            if let Err(e) = result {
                prop_assert!(!e.to_string().is_empty());
            }
            prop_assert!(it.t().is_finite(), "t = {} after {:?}", it.t(), result);
            let (sy, sz) = it.sensitivities();
            prop_assert!(
                sy.iter().chain(sz).all(|r| r.iter().all(|v| v.is_finite())),
                "sensitivities {:?} {:?} after {:?}",
                sy,
                sz,
                result
            );
            prop_assert!(
                it.y().iter().chain(it.z()).all(|v| v.is_finite()),
                "state {:?} {:?} after {:?}",
                it.y(),
                it.z(),
                result
            );
        }
    }
}

/// A sensitivity selection for the builder: none, all, or a list of names that may include
/// names the model does not have.
fn names(known: &'static [&'static str]) -> impl Strategy<Value = Option<Vec<&'static str>>> {
    let name = prop_oneof![3 => prop::sample::select(known.to_vec()), 1 => Just("nonexistent")];
    prop::option::weighted(0.8, prop::collection::vec(name, 0..3))
}

/// Runs the builder on `$model` both ways — the owned `solve` and the caller-storage
/// `solve_into` with `$call`'s storage sizes — and checks the same outcome as `check_call!`:
/// `Ok` ends at `tf` with finite results; an error keeps a finite state inside the span.
macro_rules! check_builder {
    ($model:expr, $x0:expr, $p:expr, $z0:expr, $params:expr, $states:expr, $call:expr, $options:expr) => {{
        use hysens::runtime::{Fields, InitialStates, Params, Solver};
        let call: &Call = $call;
        // The builder takes the model's own types (issue #19); the strategies make arrays.
        let (x0, p, z0) = ($x0, $p, $z0);
        let (x0_typed, p_typed) = (Fields::from_array(x0), Fields::from_array(p));
        let (params, states) = (&$params, &$states);
        let params = match params {
            None => Params::All,
            Some(names) if names.is_empty() => Params::None,
            Some(names) => Params::Only(names),
        };
        let states = match states {
            None => InitialStates::All,
            Some(names) if names.is_empty() => InitialStates::None,
            Some(names) => InitialStates::Only(names),
        };
        let model = $model;
        let solver = Solver::new(&model)
            .options($options)
            .sensitivities_to(params, states)
            .samples(&call.sample_times)
            .data(&call.sample_data)
            .algebraic_guess(&Fields::from_array(z0));
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let span_valid = call.t0.is_finite() && call.tf.is_finite() && call.t0 <= call.tf;
        let inputs_finite = finite(&x0) && finite(&z0);
        match solver.solve(call.t0, call.tf, &x0_typed, &p_typed) {
            Ok(solution) => {
                prop_assert_eq!(solution.t, call.tf);
                prop_assert!(
                    finite(&solution.y) && finite(&solution.z) && solution.cost.is_finite()
                );
                prop_assert_eq!(solution.samples.len(), call.sample_times.len());
            }
            Err(failure) => {
                prop_assert!(!failure.to_string().is_empty());
                if span_valid {
                    let t = failure.partial.t;
                    prop_assert!(t >= call.t0 && t <= call.tf, "{}: t = {}", failure, t);
                }
                if inputs_finite {
                    prop_assert!(
                        finite(&failure.partial.y),
                        "{}: {:?}",
                        failure,
                        failure.partial.y
                    );
                }
            }
        }
        let mut solution = HybridSolution::ZERO;
        let result = solver.solve_into(
            call.t0,
            call.tf,
            &x0_typed,
            &p_typed,
            &mut call.storage(false).outputs(),
            &mut solution,
        );
        match result {
            Ok(()) => {
                prop_assert_eq!(solution.t, call.tf);
                prop_assert!(
                    solution.sy.iter().all(|r| finite(r)) && finite(&solution.cost_gradient)
                );
            }
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                if span_valid {
                    prop_assert!(solution.t >= call.t0 && solution.t <= call.tf, "{e}");
                }
                if inputs_finite {
                    prop_assert!(finite(&solution.y) && finite(&solution.z), "{e}");
                }
            }
        }
    }};
}

proptest! {
    #![proptest_config(config(256))]

    /// The builder on Ex. 5.1: any names (unknown ones included), any span, data and storage.
    #[test]
    fn builder_on_ex51_never_panics(
        problem in ex51_problem(),
        params in names(&["p", "q"]),
        states in names(&["x", "y"]),
        c in call(5.0),
        k in options(),
    ) {
        let HybridProblem { y0, p, z0, .. } = problem;
        check_builder!(ex51::Model, y0, p, z0, params, states, &c, k);
    }

    /// The builder on the index-1 DAE with memory, with an arbitrary algebraic guess.
    #[test]
    fn builder_on_relay_dae_never_panics(
        problem in relay_problem(),
        params in names(&["k", "c"]),
        states in names(&["q", "v"]),
        c in call(10.0),
        k in options(),
    ) {
        let HybridProblem { y0, p, z0, .. } = problem;
        check_builder!(relay::Model, y0, p, z0, params, states, &c, k);
    }
}

/// One call of the integrator's low-level API ([`Esdirk`]), with arbitrary arguments.
#[derive(Clone, Debug)]
enum Op {
    IntegrateTo(f64),
    TryStep(f64),
    /// Commit the last trial, or a forged one.
    Commit(Option<Trial>),
    StepFixed(f64),
    EvaluateFixed(f64),
    CommitFixed(f64, f64, StepLength),
    EnableSensitivities([[f64; 2]; 2], [f64; 2]),
    ApplyStepLengthDerivative([f64; 2]),
}

fn op() -> impl Strategy<Value = Op> {
    let trial =
        (wild(), wild(), any::<bool>(), wild()).prop_map(|(h, error, landing, t_end)| Trial {
            h,
            error,
            landing,
            t_end,
        });
    let length = prop::sample::select(vec![
        StepLength::Fixed,
        StepLength::Landing,
        StepLength::Event,
    ]);
    prop_oneof![
        or_wild(1.0).prop_map(Op::IntegrateTo),
        or_wild(0.5).prop_map(Op::TryStep),
        prop::option::weighted(0.3, trial).prop_map(Op::Commit),
        or_wild(0.01).prop_map(Op::StepFixed),
        or_wild(0.01).prop_map(Op::EvaluateFixed),
        (or_wild(0.01), wild(), length).prop_map(|(h, t, l)| Op::CommitFixed(h, t, l)),
        (
            array_or_wild([1.0, 0.0]),
            array_or_wild([0.0, 1.0]),
            array_or_wild([0.0, 0.0])
        )
            .prop_map(|(a, b, st)| Op::EnableSensitivities([a, b], st)),
        array_or_wild([0.0, 0.0]).prop_map(Op::ApplyStepLengthDerivative),
    ]
}

/// Tape storage for [`solve_adjoint`]: mostly enough for any case here, else undersized:
/// empty, a few entries, or up to 60.
/// The adjoint's tape storage: steps (a full tape, or the window), and checkpoints (0: a
/// full tape).
#[derive(Clone, Copy, Debug)]
struct TapeSlots {
    steps: usize,
    checkpoints: usize,
}

fn tape_slots() -> impl Strategy<Value = TapeSlots> {
    let steps =
        prop_oneof![3 => Just(20_000usize), 1 => Just(0usize), 1 => 1..8usize, 1 => 8..60usize];
    let checkpoints = prop_oneof![2 => Just(0usize), 1 => 1..4usize, 1 => Just(2_000usize)];
    (steps, checkpoints).prop_map(|(steps, checkpoints)| TapeSlots { steps, checkpoints })
}

/// [`solve_adjoint`] on `problem` with the tape storage `slots` (full or checkpointed) and
/// `call`'s sample and event storage and step plan, checked against the plain forward solve of
/// the same call (the adjoint's forward pass is that solve, recording a tape):
///
/// - never a panic; an error has a message;
/// - a checkpointed tape without a window: `InvalidArgument`;
/// - the plain solve fails with `e`: the adjoint fails with `e` (a full tape does not stop
///   the forward pass, which counts on);
/// - the plain solve succeeds in `n` steps: storage too small for `n` steps (`n` entries of
///   a full tape, `⌈n/W⌉` checkpoints of a window `W`) ends the adjoint with `TapeFull`
///   naming its capacity and the capacity needed, with `gradient.tape_len = n`; enough storage
///   gives the same forward solve, then `Ok` or an error of the backward pass;
/// - `Ok`: a finite cost and gradient, and one tape entry per accepted step.
#[allow(clippy::too_many_arguments)]
fn check_adjoint<
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
    options: &HybridOptions<NY, NZ>,
    call: &Call,
    slots: TapeSlots,
) -> Result<(), TestCaseError>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    // The plain forward solve, without sensitivities (the adjoint's forward pass has none);
    // non-finite seeds are kept, for the same rejection up front.
    let finite_seeds = |s: &[[f64; NP]; NY]| s.iter().flatten().all(|x| x.is_finite());
    let mut plain = HybridSolution::ZERO;
    let forward = solve(
        &HybridRun::new(
            model,
            tableau,
            &HybridProblem {
                sensitivities: problem.sensitivities.filter(|s| !finite_seeds(s)),
                ..*problem
            },
            options,
        )
        .with_plan(call.plan()),
        &mut call.storage(false).outputs(),
        &mut plain,
    );
    let mut steps = vec![TapeStep::ZERO; slots.steps];
    let mut checkpoints = vec![Checkpoint::ZERO; slots.checkpoints];
    let mut solution = HybridSolution::ZERO;
    let mut gradient = AdjointGradient::ZERO;
    let result = solve_adjoint(
        &HybridRun::new(model, tableau, problem, options).with_plan(call.plan()),
        AdjointTape::checkpointed(&mut steps, &mut checkpoints),
        &mut call.storage(false).outputs(),
        &mut solution,
        &mut gradient,
    );
    if let Err(e) = result {
        prop_assert!(!e.to_string().is_empty());
    }
    if slots.checkpoints > 0 && slots.steps == 0 {
        prop_assert!(
            matches!(result, Err(SolveError::InvalidArgument { .. })),
            "{:?}",
            result
        );
        return Ok(());
    }
    match forward {
        Err(e) => {
            // Compared by `Debug`, so that a NaN time in both errors counts as the same.
            prop_assert_eq!(format!("{:?}", result), format!("{:?}", Err::<(), _>(e)));
            return Ok(());
        }
        Ok(()) => {
            prop_assert_eq!(gradient.tape_len, plain.stats.steps);
            prop_assert_eq!(
                solution.stats.steps,
                plain.stats.steps,
                "the same forward solve"
            );
            prop_assert_eq!(solution.cost.to_bits(), plain.cost.to_bits());
        }
    }
    let n = plain.stats.steps;
    let (storage, capacity, needed) = match slots.checkpoints {
        0 => ("steps", slots.steps, n),
        c => (
            "checkpoints",
            c,
            AdjointTape::<S, NY, NZ>::checkpoints_needed(n, slots.steps),
        ),
    };
    if capacity < needed {
        match result {
            Err(e @ SolveError::TapeFull { t, .. }) => {
                let named = format!("{capacity} {storage}, the solve needs {needed}");
                prop_assert!(e.to_string().contains(&named), "{}", e);
                prop_assert!(t >= problem.t0 && t <= solution.t, "{:?}", e);
                prop_assert_eq!(
                    e,
                    SolveError::TapeFull {
                        t,
                        mode: e.mode(),
                        storage,
                        capacity,
                        needed
                    }
                );
            }
            other => prop_assert!(false, "{n} steps on {slots:?}: {other:?}"),
        }
        return Ok(());
    }
    prop_assert!(
        !matches!(result, Err(SolveError::TapeFull { .. })),
        "{:?} with {:?} for {} steps",
        result,
        slots,
        n
    );
    if result.is_ok() {
        prop_assert!(ends_at_its_end(model, &solution, problem), "{:?}", solution);
        prop_assert!(solution.cost.is_finite(), "{:?}", solution);
        prop_assert!(
            gradient.p.iter().chain(&gradient.y0).all(|g| g.is_finite()),
            "{:?}",
            gradient
        );
        prop_assert_eq!(gradient.tape_len, solution.stats.steps);
        prop_assert_eq!(gradient.stats.steps, solution.stats.steps);
    }
    Ok(())
}

/// [`check_adjoint`] with `call`'s span, samples, data and tableau, and `seeds` if `call` asks
/// for sensitivities.
fn check_adjoint_call<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    problem: HybridProblem<'_, NY, NZ, NP>,
    seeds: [[f64; NP]; NY],
    call: &Call,
    options: &HybridOptions<NY, NZ>,
    slots: TapeSlots,
) -> Result<(), TestCaseError>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS>,
{
    let problem = call.problem(problem, seeds);
    with_tableau!(call.tableau, |tableau| check_adjoint(
        model, tableau, &problem, options, call, slots
    ))
}

/// [`Solver::gradient`] (the owned tape) from `problem`'s initial values, parameters and
/// algebraic guess, with `call`'s span, samples, data and tableau: never a panic; never
/// `StorageFull` (it owns its tape and sample storage); an error has a message; `Ok` has a
/// finite cost and gradient from one backward step per forward step.
fn check_gradient<
    M,
    const NY: usize,
    const NZ: usize,
    const NP: usize,
    const N: usize,
    const NS: usize,
>(
    model: &M,
    problem: HybridProblem<'_, NY, NZ, NP>,
    call: &Call,
    options: HybridOptions<NY, NZ>,
) -> Result<(), TestCaseError>
where
    M: AdjointProducts<NY, NZ, NP> + ModelSizes<N, NS> + ModelTypes<NY, NZ, NP>,
{
    let solver = Solver::new(model)
        .options(options)
        .samples(&call.sample_times)
        .data(&call.sample_data)
        .algebraic_guess(&Fields::from_array(problem.z0));
    let (x0, p) = (
        Fields::from_array(problem.y0),
        Fields::from_array(problem.p),
    );
    let result = match call.tableau {
        0 => solver
            .tableau(&ESDIRK23)
            .gradient(call.t0, call.tf, &x0, &p),
        1 => solver
            .tableau(&ESDIRK34)
            .gradient(call.t0, call.tf, &x0, &p),
        _ => solver.gradient(call.t0, call.tf, &x0, &p),
    };
    match result {
        Ok(gradient) => {
            prop_assert!(gradient.cost.is_finite(), "{:?}", gradient);
            prop_assert!(
                gradient
                    .params
                    .iter()
                    .chain(&gradient.initial_states)
                    .all(|g| g.is_finite()),
                "{:?}",
                gradient
            );
            prop_assert_eq!(gradient.adjoint_stats.steps, gradient.stats.steps);
        }
        Err(failure) => {
            prop_assert!(!failure.to_string().is_empty());
            prop_assert!(
                !matches!(failure.error, SolveError::StorageFull { .. }),
                "the owned gradient ran out of storage: {failure}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// The adjoint on Ex. 5.1 (three switches, integral cost): wild problem, options, plan,
    /// sample storage and tape.
    #[test]
    fn adjoint_on_ex51_never_panics(
        problem in ex51_problem(),
        seed in or_wild(0.3),
        c in call(5.0),
        k in options(),
        tape in tape_slots(),
    ) {
        check_adjoint_call(&ex51::Model, problem, [[seed]], &c, &k, tape)?;
    }

    /// The adjoint on the projectile example's launch (a terminal guard, an initial state
    /// mapped from the parameters).
    #[test]
    fn adjoint_on_launch_never_panics(
        problem in launch_problem(),
        seed in or_wild(0.1),
        c in call(10.0),
        k in options(),
        tape in tape_slots(),
    ) {
        check_adjoint_call(&launch::Model, problem, [[seed, 0.0, 0.0]; 4], &c, &k, tape)?;
    }

    /// The adjoint on the bouncing ball (resets, Zeno for long spans).
    #[test]
    fn adjoint_on_ball_never_panics(
        problem in ball_problem(),
        c in call(1.9),
        k in options(),
        tape in tape_slots(),
    ) {
        let seeds = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]];
        check_adjoint_call(&ball::Model, problem, seeds, &c, &k, tape)?;
    }

    /// The adjoint on the index-1 DAE with memory, a reset and an integral cost, from an
    /// arbitrary algebraic guess.
    #[test]
    fn adjoint_on_relay_dae_never_panics(
        problem in relay_problem(),
        c in call(10.0),
        k in options(),
        tape in tape_slots(),
    ) {
        check_adjoint_call(&relay::Model, problem, [[0.1, -0.2], [0.3, 0.0]], &c, &k, tape)?;
    }

    /// `Solver::gradient` on Ex. 5.1, with wild inputs.
    #[test]
    fn gradient_on_ex51_never_panics(problem in ex51_problem(), c in call(5.0), k in options()) {
        check_gradient(&ex51::Model, problem, &c, k)?;
    }

    /// `Solver::gradient` on the relay DAE, with wild inputs and algebraic guess.
    #[test]
    fn gradient_on_relay_dae_never_panics(
        problem in relay_problem(),
        c in call(10.0),
        k in options(),
    ) {
        check_gradient(&relay::Model, problem, &c, k)?;
    }
}
