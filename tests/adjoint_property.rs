//! Property: the discrete adjoint equals the forward sensitivities of the same solve, for
//! random problems with events.
//!
//! Random parameters, initial states, spans, tolerances, tableaus (ESDIRK23/34/436L2SA) and
//! sampled costs (random sample times in the span, random data) of two hybrid models with
//! sampled costs: the bouncing ball (`tests/model_ball.rs`'s terminal costs plus a sampled
//! misfit of the height) and Serban & Recuero's Example 5.1 (`ex51_costs` of
//! `tests/support/event_models.rs`: the quickstart's model with an integral, a terminal and a
//! sampled cost; one to several switches). For each case:
//!
//! - the forward sensitivities through the builder, with `Params::All, InitialStates::All`
//!   (`solve_into`: `cost_gradient` = `dG/dp` then `dG/dy0`);
//! - `solve_adjoint` on the same problem (`gradient.p`, `gradient.y0`) — and, with a random
//!   seed `∂y0/∂p`, both again through the core `solve`/`solve_adjoint`;
//! - `Solver::gradient` (the owned tape), which must give the adjoint's numbers bit for bit.
//!
//! When the forward solve succeeds, the two gradients agree to `1e-10` relative, `1e-13`
//! absolute: both are derivatives of the same discrete solution with the step sequence frozen
//! (same steps, same event times, same stage values); the adjoint applies the transposes of
//! the same linear step, event-time and jump maps in reverse order. The only difference is
//! the order of the floating-point sums (`(AB)ᵀ c` against `Aᵀ(Bᵀ c)`), i.e. round-off
//! accumulated over a few hundred steps and a few dozen event maps of well-conditioned
//! matrices: far below 1e-10 relative, and 1e-13 absolute for an entry whose exact value is
//! (near) zero, where a relative criterion is meaningless. When the forward solve fails
//! (Zeno, grazing, a too-close event), the case is skipped — not counted — but the adjoint
//! must fail with the same error.
//!
//! The strategies reach the awkward corners too: the ball starts on the floor, moving up, in
//! half the cases (`h0 = 0`, on the guard; moving down, an impact at `t0`), loses all or gains
//! energy at impacts (`e ∈ [0, 1.2)`), and
//! Zeno ends many of its solves; Ex. 5.1 starts on its switching surface (`p = h(x0)`) or has
//! `p` at an extremum of its switching polynomial (`3`, `1.815`: a tangential crossing).
//! The counts of compared and skipped cases (by error) and the largest relative difference
//! are printed (`--nocapture`); at least half the cases must be compared.
#![deny(missing_docs)]

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use hysens::hybrid_model;
use hysens::runtime::{
    solve, solve_adjoint, AdjointGradient, AdjointProducts, AdjointTape, Fields, HybridOptions,
    HybridOutputs, HybridProblem, HybridRun, HybridSolution, InitialStates, ModelSizes, ModelTypes,
    Params, Sample, SolveError, Solver, Tableau, TapeStep, ESDIRK23, ESDIRK34, ESDIRK436L2SA,
};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

/// The bouncing ball of `tests/model_ball.rs`, with a sampled cost.
#[hybrid_model]
pub mod ball {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height above the ground.
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

    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }

    #[guard(flight -> flight, falling)]
    fn impact(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }

    #[cost(terminal)]
    fn height(x: &X, _p: &P) -> f64 {
        x.h
    }

    #[cost(terminal)]
    fn energy(x: &X, p: &P) -> f64 {
        0.5 * x.v.powi(2) + p.g * x.h
    }

    /// Least squares against the sampled heights.
    #[cost(sampled)]
    fn misfit(x: &X, d: f64) -> f64 {
        (x.h - d).powi(2)
    }
}

// Serban & Recuero 2019, Example 5.1 with all three cost kinds.
use crate::event_models::ex51_costs as ex51;

/// One random problem: span, initial state, parameters, samples with data, tolerance,
/// tableau, and a seed `∂y0/∂p` (or none).
#[derive(Clone, Debug)]
struct Case<const NY: usize, const NP: usize> {
    t0: f64,
    tf: f64,
    y0: [f64; NY],
    p: [f64; NP],
    times: Vec<f64>,
    data: Vec<f64>,
    rtol: f64,
    tableau: usize,
    seed: Option<[[f64; NP]; NY]>,
}

/// Cases in `[t0, t0 + span]` with the given initial states and parameters: 0–4 sorted sample
/// times in the span (sometimes exactly at `t0` or `tf`), data in `[-2, 2)`, `rtol` in
/// `10^[-10, -5]`.
fn case<const NY: usize, const NP: usize>(
    t0: impl Strategy<Value = f64>,
    span: impl Strategy<Value = f64>,
    y0: impl Strategy<Value = [f64; NY]>,
    p: impl Strategy<Value = [f64; NP]>,
) -> impl Strategy<Value = Case<NY, NP>> {
    let fraction = prop_oneof![8 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)];
    let seed = prop::option::of(prop::array::uniform::<_, NY>(
        prop::array::uniform::<_, NP>(-1.0..1.0f64),
    ));
    (
        t0,
        span,
        y0,
        p,
        prop::collection::vec((fraction, -2.0..2.0f64), 0..5),
        -10.0..-5.0f64,
        0..3usize,
        seed,
    )
        .prop_map(|(t0, span, y0, p, mut samples, log_rtol, tableau, seed)| {
            samples.sort_by(|a, b| a.0.total_cmp(&b.0));
            let tf = t0 + span;
            Case {
                t0,
                tf,
                y0,
                p,
                times: samples.iter().map(|s| t0 + s.0 * span).collect(),
                data: samples.iter().map(|s| s.1).collect(),
                rtol: 10f64.powf(log_rtol),
                tableau,
                seed,
            }
        })
}

/// `|a − b| ≤ 1e-10 max(|a|, |b|) + 1e-13` (module docs); the largest relative difference so
/// far is kept in `worst` (over entries above the absolute floor).
fn close(what: &str, adjoint: f64, forward: f64, worst: &mut f64) -> Result<(), TestCaseError> {
    let diff = (adjoint - forward).abs();
    let scale = adjoint.abs().max(forward.abs());
    prop_assert!(
        diff <= 1e-10 * scale + 1e-13,
        "{what}: adjoint {adjoint:e} vs forward {forward:e} (difference {diff:e})"
    );
    if scale > 1e-3 {
        *worst = worst.max(diff / scale);
    }
    Ok(())
}

/// Outputs into `samples`, without the event and step logs (which the comparison does not
/// read).
fn samples_only<const NY: usize, const NP: usize>(
    samples: &mut [Sample<NY, 0, NP>],
) -> HybridOutputs<'_, NY, 0, NP> {
    HybridOutputs {
        samples,
        events: None,
        steps: None,
        dense: None,
    }
}

/// A compared case (its events and largest relative difference) or a skipped one (the error
/// of its forward sensitivities, and whether the adjoint's differs as in [`check`]'s comment).
enum Outcome {
    Compared { events: usize, worst: f64 },
    Skipped(SolveError, bool),
}

/// The comparison of the module docs for one case with one tableau.
fn check<M, const S: usize, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    model: &M,
    tableau: &Tableau<S>,
    case: &Case<NY, NP>,
) -> Result<Outcome, TestCaseError>
where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    let mut options = HybridOptions::new(case.rtol, case.rtol * 1e-2);
    // Zeno cases end early with `TooManyEvents` rather than after the default 10 000 events.
    options.max_events = 60;
    options.integrator.max_steps = 20_000;
    let n = case.times.len();

    // The case's solver, for the forward sensitivities and for the owned tape.
    let solver = Solver::new(model)
        .tableau(tableau)
        .options(options)
        .samples(&case.times)
        .data(&case.data);

    // Forward sensitivities to p and y0 (the builder's extended model).
    let mut fsa = HybridSolution::<NY, 0, NS>::ZERO;
    let forward = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve_into(
            case.t0,
            case.tf,
            &Fields::from_array(case.y0),
            &Fields::from_array(case.p),
            &mut samples_only(&mut vec![Sample::ZERO; n]),
            &mut fsa,
        );

    // The adjoint of the same problem.
    let problem = HybridProblem {
        t0: case.t0,
        tf: case.tf,
        y0: case.y0,
        z0: [],
        p: case.p,
        sensitivities: None,
        sample_times: &case.times,
        sample_data: &case.data,
    };
    let mut tape = vec![TapeStep::ZERO; 20_000];
    let mut asa = HybridSolution::ZERO;
    let mut gradient = AdjointGradient::ZERO;
    let adjoint = solve_adjoint(
        &HybridRun::new(model, tableau, &problem, &options),
        AdjointTape::full(&mut tape),
        &mut samples_only(&mut vec![Sample::ZERO; n]),
        &mut asa,
        &mut gradient,
    );
    let owned = solver.gradient(
        case.t0,
        case.tf,
        &Fields::from_array(case.y0),
        &Fields::from_array(case.p),
    );

    if let Err(e) = forward {
        // Errors are compared by `Debug`, so that NaN fields compare equal.
        let debug = |r: &dyn core::fmt::Debug| format!("{r:?}");
        // The adjoint's forward pass is the plain solve (no sensitivities): the same error.
        let mut plain = HybridSolution::ZERO;
        let plain = solve(
            &HybridRun::new(model, tableau, &problem, &options),
            &mut samples_only(&mut vec![Sample::ZERO; n]),
            &mut plain,
        );
        prop_assert_eq!(debug(&adjoint), debug(&plain), "the adjoint's forward pass");
        prop_assert_eq!(
            debug(&owned.as_ref().err().map(|failure| failure.error)),
            debug(&plain.err()),
            "Solver::gradient fails as solve_adjoint"
        );
        // The forward sensitivities fail the same way — but for one discrepancy the property
        // found (reported, a runtime issue): a ball coming to rest (impacts accumulating,
        // `v⁻ → 0`) fails with `GrazingEvent` when the forward sensitivities are on (the
        // event-time map's `den == 0` test, `fsa/jump.rs`, runs before the Zeno test of
        // `hybrid::event`) and with `TooManyEvents` at the same event without them.
        let known = matches!(
            (e, adjoint),
            (
                SolveError::GrazingEvent { t, mode, .. },
                Err(SolveError::TooManyEvents { t: ta, mode: ma, .. }),
            ) if t == ta && mode == ma
        );
        if !known {
            prop_assert_eq!(
                debug(&adjoint),
                debug(&Err::<(), _>(e)),
                "the adjoint fails as the forward sensitivities"
            );
        }
        return Ok(Outcome::Skipped(e, known));
    }
    prop_assert_eq!(
        adjoint,
        Ok(()),
        "the forward solve succeeded: so must the adjoint"
    );
    prop_assert_eq!(asa.stats.steps, fsa.stats.steps, "the same steps");
    prop_assert_eq!(asa.n_events, fsa.n_events, "the same events");
    prop_assert_eq!(asa.cost, fsa.cost, "the same solve");
    prop_assert_eq!(gradient.tape_len, asa.stats.steps);
    prop_assert_eq!(
        gradient.stats.events,
        asa.n_events,
        "every event transposed"
    );
    let what = |name: &str| format!("{} {name}", tableau.name);
    let mut worst = 0.0;
    for q in 0..NP {
        let (a, f) = (gradient.p[q], fsa.cost_gradient[q]);
        close(&what(&format!("dG/dp[{q}]")), a, f, &mut worst)?;
    }
    for i in 0..NY {
        let (a, f) = (gradient.y0[i], fsa.cost_gradient[NP + i]);
        close(&what(&format!("dG/dy0[{i}]")), a, f, &mut worst)?;
    }
    prop_assert!(gradient.p.iter().chain(&gradient.y0).all(|g| g.is_finite()));

    // The owned tape: the same computation, so the same numbers.
    let owned = owned.map_err(|e| TestCaseError::fail(format!("Solver::gradient: {e}")))?;
    prop_assert_eq!(owned.cost, asa.cost);
    prop_assert_eq!(owned.params, gradient.p);
    prop_assert_eq!(owned.initial_states, gradient.y0);

    // With a seed ∂y0/∂p: the core forward sensitivities against the adjoint's total dG/dp.
    if let Some(seed) = case.seed {
        let seeded = HybridProblem {
            sensitivities: Some(seed),
            ..problem
        };
        let mut fsa = HybridSolution::ZERO;
        let forward = solve(
            &HybridRun::new(model, tableau, &seeded, &options),
            &mut samples_only(&mut vec![Sample::ZERO; n]),
            &mut fsa,
        );
        prop_assert_eq!(forward, Ok(()), "the seeds do not change the forward solve");
        let adjoint = solve_adjoint(
            &HybridRun::new(model, tableau, &seeded, &options),
            AdjointTape::full(&mut tape),
            &mut samples_only(&mut vec![Sample::ZERO; n]),
            &mut asa,
            &mut gradient,
        );
        prop_assert_eq!(adjoint, Ok(()));
        for q in 0..NP {
            let (a, f) = (gradient.p[q], fsa.cost_gradient[q]);
            close(&what(&format!("dG/dp[{q}] (seeded)")), a, f, &mut worst)?;
        }
    }
    Ok(Outcome::Compared {
        events: fsa.n_events,
        worst,
    })
}

/// [`check`] with the case's tableau.
fn check_any<M, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    model: &M,
    case: &Case<NY, NP>,
) -> Result<Outcome, TestCaseError>
where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    match case.tableau {
        0 => check(model, &ESDIRK23, case),
        1 => check(model, &ESDIRK34, case),
        _ => check(model, &ESDIRK436L2SA, case),
    }
}

/// Runs `cases` random cases of `strategy` through [`check_any`], counting the compared and
/// the skipped ones; at least `min_compared` of them must have been compared, so that the
/// property is not vacuous.
fn run<M, const NY: usize, const NP: usize, const N: usize, const NS: usize>(
    name: &str,
    model: &M,
    strategy: impl Strategy<Value = Case<NY, NP>>,
    cases: u32,
    min_compared: usize,
) where
    M: AdjointProducts<NY, 0, NP> + ModelSizes<N, NS> + ModelTypes<NY, 0, NP>,
{
    let compared = Cell::new(0usize);
    let events = Cell::new(0usize);
    let most_events = Cell::new(0usize);
    let worst = Cell::new(0.0f64);
    let skipped = RefCell::new(BTreeMap::<String, usize>::new());
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(&strategy, |case| {
        match check_any(model, &case)? {
            Outcome::Compared {
                events: n,
                worst: w,
            } => {
                compared.set(compared.get() + 1);
                events.set(events.get() + n);
                most_events.set(most_events.get().max(n));
                worst.set(worst.get().max(w));
            }
            Outcome::Skipped(e, known) => {
                let kind = format!("{e:?}");
                let kind = kind.split_whitespace().next().unwrap_or_default();
                let kind = if known {
                    format!("{kind} (adjoint: TooManyEvents)")
                } else {
                    kind.to_string()
                };
                *skipped.borrow_mut().entry(kind).or_default() += 1;
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    println!(
        "{name}: {} cases compared ({} events, at most {} in a case; largest relative \
         difference {:.1e}), skipped (forward solve failed): {:?}",
        compared.get(),
        events.get(),
        most_events.get(),
        worst.get(),
        skipped.borrow()
    );
    assert!(
        compared.get() >= min_compared,
        "{name}: only {} of the cases compared",
        compared.get()
    );
}

/// The ball: from `h0 ∈ [0, 3)` with `v0 ∈ [-8, 8)`, or from the floor (`h0 = 0`, in half the
/// cases) moving up or down (an impact at `t0`), `v0 ∈ [-8, 8)`, `g ∈ [0.1, 30)`, `e ∈ [0, 1.2)`, over `[t0, t0 + 0.2..3]`, `t0 ∈ [-1, 1)`:
/// from none to dozens of impacts; Zeno (the impacts accumulate before `tf`) ends the forward
/// solve, and such cases are skipped.
#[test]
fn ball_adjoint_equals_forward_sensitivities() {
    let strategy = case(
        -1.0..1.0f64,
        0.2..3.0f64,
        prop_oneof![
            (0.0..3.0f64, -8.0..8.0f64).prop_map(|(h, v)| [h, v]),
            (-8.0..8.0f64).prop_map(|v| [0.0, v]),
        ],
        (0.1..30.0f64, 0.0..1.2f64).prop_map(|(g, e)| [g, e]),
    );
    run("ball", &ball::Model, strategy, 512, 256);
}

/// Ex. 5.1: `x0 ∈ [-0.5, 4.5)`, mostly below 1, `p ∈ [1, 4)`, mostly in `[1.85, 2.97)` (no
/// switch outside the extrema `49/27 ≈ 1.815` and `3` of the switching polynomial
/// `h(x) − p`, up to three between them, from `x0 < 1`) over
/// `[t0, t0 + 0.5..6]`, `t0 ∈ [-1, 1)`; in half the cases a start on the switching surface
/// (`p = h(x0)`, to rounding) or `p` at an extremum (a tangential crossing).
#[test]
fn ex51_adjoint_equals_forward_sensitivities() {
    let strategy = case(
        -1.0..1.0f64,
        0.5..6.0f64,
        prop_oneof![3 => -0.5..1.0f64, 1 => -0.5..4.5f64].prop_map(|x| [x]),
        prop_oneof![3 => 1.85..2.97f64, 1 => 1.0..4.0f64].prop_map(|p| [p]),
    );
    let on_surface = (-0.5..4.5f64).prop_flat_map(|x| {
        let p = x * x * x - 5.0 * x * x + 7.0 * x;
        case(
            -1.0..1.0f64,
            0.5..6.0f64,
            Just([x]),
            prop_oneof![Just([p]), Just([3.0]), Just([49.0 / 27.0])],
        )
    });
    let strategy = prop_oneof![strategy, on_surface];
    run("Ex. 5.1", &ex51::Model, strategy, 384, 192);
}
