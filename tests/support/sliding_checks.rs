//! Checks shared by the sliding tests (`tests/hybrid_sliding.rs`, `tests/model_sliding.rs`,
//! `tests/model_sliding_events.rs`), each of which states them about its own models:
//!
//! - [`assert_adjoint_equals_forward`]: the adjoint gradient against the forward solve's cost
//!   gradient, both derivatives of the same discrete solution;
//! - [`forward_and_adjoint_counting_allocations`]: a forward solve and an adjoint solve into
//!   caller storage, with the heap allocations they make (the no-heap tests);
//! - [`check_solve`] and [`solve_against_closed_form`]: a generated two-state model's solve,
//!   its forward sensitivities, event times and adjoint gradient against a closed form written
//!   over dual numbers ([`ClosedForm`]; `tests/model_sliding.rs` and
//!   `tests/model_sliding_events.rs` derive theirs in their module docs).
//!
//! Included by `#[path]`, next to `support/counting_alloc.rs` (`mod counting_alloc;` at the
//! crate root), whose per-thread count it uses.
#![allow(dead_code)] // each sliding test uses a different part of this module

use hysens::runtime::{
    AdjointGradient, AdjointProducts, AdjointTape, EventRecord, Fields, Gradient, HybridOutputs,
    HybridSolution, InitialStates, ModelSizes, ModelTypes, Params, Solution, SolveError, Solver,
    TapeStep, Wrt,
};
use num_dual::Dual64;

/// Asserts `|adjoint − forward| ≤ tol · max(1, |forward|)` for the gradient of the cost in
/// every direction of `directions`; failures are prefixed by `what`.
pub fn assert_adjoint_equals_forward<'w, X, const NY: usize, const NZ: usize, const NP: usize>(
    what: &str,
    adjoint: &Gradient<NY, NP>,
    forward: &Solution<X, NY, NZ, NP>,
    directions: impl IntoIterator<Item = Wrt<'w>>,
    tol: f64,
) where
    X: Fields<NY>,
{
    for wrt in directions {
        let (a, f) = (
            adjoint.wrt(wrt).expect("a direction"),
            forward.cost_gradient(wrt).expect("a direction"),
        );
        assert!(
            (a - f).abs() <= tol * f.abs().max(1.0),
            "{what}dφ/d{wrt:?}: adjoint {a} vs forward {f}"
        );
    }
}

/// What [`forward_and_adjoint_counting_allocations`] leaves: the result, the allocations
/// counted, and the caller storage the solves wrote.
pub struct CountedSolves<const NY: usize, const NS: usize, const NP: usize> {
    /// `Ok` when both solves succeeded (the first error otherwise).
    pub result: Result<(), SolveError>,
    /// Heap allocations made on this thread while the solves ran.
    pub allocations: usize,
    /// The forward solve's solution (`NS` sensitivity columns).
    pub forward: HybridSolution<NY, 0, NS>,
    /// The forward solve's event log.
    pub events: [EventRecord<NY, NS>; 8],
    /// The adjoint gradient.
    pub gradient: AdjointGradient<NY, NP>,
}

/// Runs `forward` (a solve into caller storage: outputs with an event log of 8 entries, no
/// samples, no step log) and then `adjoint` (an adjoint solve on a full tape of `TAPE` steps,
/// its forward pass logging its events too), counting the heap allocations both make. The
/// storage lives outside the count, as a caller's would.
pub fn forward_and_adjoint_counting_allocations<
    const NY: usize,
    const NS: usize,
    const NP: usize,
    const TAPE: usize,
>(
    forward: impl FnOnce(
        &mut HybridOutputs<'_, NY, 0, NS>,
        &mut HybridSolution<NY, 0, NS>,
    ) -> Result<(), SolveError>,
    adjoint: impl FnOnce(
        AdjointTape<'_, 6, NY, 0>,
        &mut HybridOutputs<'_, NY, 0, NP>,
        &mut HybridSolution<NY, 0, NP>,
        &mut AdjointGradient<NY, NP>,
    ) -> Result<(), SolveError>,
) -> CountedSolves<NY, NS, NP> {
    let (mut events, mut adjoint_events) = ([EventRecord::ZERO; 8], [EventRecord::ZERO; 8]);
    let mut tape = [TapeStep::ZERO; TAPE];
    let (mut solution, mut plain) = (HybridSolution::ZERO, HybridSolution::ZERO);
    let mut gradient = AdjointGradient::ZERO;
    let (result, allocations) = crate::counting_alloc::count(|| {
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: Some(&mut events),
            steps: None,
            dense: None,
        };
        forward(&mut outputs, &mut solution)?;
        let mut adjoint_outputs = HybridOutputs {
            samples: &mut [],
            events: Some(&mut adjoint_events),
            steps: None,
            dense: None,
        };
        let tape = AdjointTape::full(&mut tape);
        adjoint(tape, &mut adjoint_outputs, &mut plain, &mut gradient)
    });
    CountedSolves {
        result,
        allocations,
        forward: solution,
        events,
        gradient,
    }
}

// ---------------------------------------------------------------------------------------------
// Solves of generated two-state models against closed forms over dual numbers.
// ---------------------------------------------------------------------------------------------

/// A closed form: the states at `T` and, where it gives them, the event times, as functions of
/// the seeded initial states and parameters (`num_dual::Dual64`: seeding one gives the exact
/// derivatives with respect to it).
pub struct ClosedForm {
    /// `(x(T), y(T))`.
    pub y: [Dual64; 2],
    /// The event times, in order; `None`: the closed form does not give them, and they are not
    /// compared.
    pub event_times: Option<Vec<Dual64>>,
}

impl ClosedForm {
    /// The states at `T` alone.
    pub fn final_state(y: [Dual64; 2]) -> Self {
        ClosedForm {
            y,
            event_times: None,
        }
    }
}

/// One solve against a closed form: its name, `(x0, y0)`, the parameters and the events
/// expected, each `(guard, from, to)`.
pub type Case<'a, const NP: usize> = (
    &'a str,
    [f64; 2],
    [f64; NP],
    &'a [(&'a str, &'a str, &'a str)],
);

/// `|a − b| ≤ tol · max(1, |b|)`; returns the error relative to `max(1, |b|)`.
pub fn close(what: &str, a: f64, b: f64, tol: f64) -> f64 {
    let error = (a - b).abs() / b.abs().max(1.0);
    assert!(error <= tol, "{what}: {a} vs {b} (error {error:e})");
    error
}

/// A seeded dual number: `x` with derivative 1 if `i == k`.
pub fn seed(k: usize, i: usize, x: f64) -> Dual64 {
    Dual64::new(x, if i == k { 1.0 } else { 0.0 })
}

/// The event log of a solution as `(guard, from, to)`.
pub fn event_log<X, const NP: usize>(
    solution: &Solution<X, 2, 0, NP>,
) -> Vec<(&'static str, &'static str, &'static str)> {
    solution
        .events
        .iter()
        .map(|e| (e.guard, e.from, e.to))
        .collect()
}

/// Checks a solve against `exact` (the final state, its sensitivities, the cost gradient of
/// `φ = x(T)² + y(T)` and, where the closed form gives them, the event times and their
/// sensitivities, all to `tol`) and the adjoint gradient against the forward one (to 1e-10:
/// both are derivatives of the same discrete solution, equal to round-off). `names` are the
/// parameters' names. Returns the largest error against the closed form and the largest
/// difference between the adjoint and the forward gradient.
#[allow(clippy::too_many_arguments)]
pub fn check_solve<const NP: usize>(
    what: &str,
    solution: &Solution<impl Fields<2>, 2, 0, NP>,
    adjoint: &Gradient<2, NP>,
    y0: [f64; 2],
    p: [f64; NP],
    names: [&str; NP],
    tol: f64,
    exact: impl Fn([Dual64; 2], [Dual64; NP]) -> ClosedForm,
) -> (f64, f64) {
    let (mut worst, mut adjoint_worst) = (0.0f64, 0.0f64);
    let directions: Vec<Wrt> = [Wrt::InitialState("x"), Wrt::InitialState("y")]
        .into_iter()
        .chain(names.iter().map(|n| Wrt::Param(n)))
        .collect();
    for (k, &wrt) in directions.iter().enumerate() {
        let ClosedForm {
            y: [x, y],
            event_times,
        } = exact(
            [seed(k, 0, y0[0]), seed(k, 1, y0[1])],
            core::array::from_fn(|j| seed(k, 2 + j, p[j])),
        );
        worst = worst.max(close(&format!("{what}: x(T)"), solution.y[0], x.re, tol));
        worst = worst.max(close(&format!("{what}: y(T)"), solution.y[1], y.re, tol));
        for (of, exact) in [("x", x), ("y", y)] {
            let computed = solution.sensitivity(of, wrt).expect("a direction");
            let what = format!("{what}: ∂{of}(T)/∂{wrt:?}");
            worst = worst.max(close(&what, computed, exact.eps, tol));
        }
        if let Some(events) = event_times {
            assert_eq!(solution.events.len(), events.len(), "{what}: events");
            for (j, t) in events.iter().enumerate() {
                let what = format!("{what}: event {j} ({})", solution.events[j].guard);
                let at = solution.events[j].t;
                worst = worst.max(close(&format!("{what}: t"), at, t.re, tol));
                let dt = solution
                    .event_time_sensitivity(j, wrt)
                    .expect("a direction");
                worst = worst.max(close(&format!("{what}: dt/d{wrt:?}"), dt, t.eps, tol));
            }
        }
        let cost = x * x + y;
        let forward = solution.cost_gradient(wrt).expect("a direction");
        let what = format!("{what}: dφ/d{wrt:?}");
        worst = worst.max(close(&format!("{what} (forward)"), forward, cost.eps, tol));
        let backward = adjoint.wrt(wrt).expect("a direction");
        let gap = close(
            &format!("{what} (adjoint vs forward)"),
            backward,
            forward,
            1e-10,
        );
        adjoint_worst = adjoint_worst.max(gap);
    }
    (worst, adjoint_worst)
}

/// Solves `case` on `[0, t_end]` with `solver` (its tolerances), with forward sensitivities to
/// every parameter and initial state and by the adjoint; asserts the event log and
/// [`check_solve`]s both against `exact`, and prints the errors under `model`'s name.
#[allow(clippy::too_many_arguments)]
pub fn solve_against_closed_form<M, const NP: usize, const NS: usize>(
    model: &str,
    solver: Solver<'_, M, 6, 2, 0, NP, 2, NS>,
    case: Case<'_, NP>,
    t_end: f64,
    names: [&str; NP],
    tol: f64,
    exact: impl Fn([Dual64; 2], [Dual64; NP]) -> ClosedForm,
) where
    M: AdjointProducts<2, 0, NP> + ModelSizes<2, NS> + ModelTypes<2, 0, NP>,
{
    let (what, y0, p, events) = case;
    let x0 = <M as ModelTypes<2, 0, NP>>::State::from_array(y0);
    let params = <M as ModelTypes<2, 0, NP>>::Params::from_array(p);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &x0, &params)
        .unwrap_or_else(|f| panic!("{what}: {f}"));
    assert_eq!(event_log(&solution), events, "{what}");
    let adjoint = solver
        .gradient(0.0, t_end, &x0, &params)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (worst, gap) = check_solve(what, &solution, &adjoint, y0, p, names, tol, exact);
    println!("{model}, {what}: largest error {worst:.1e}, adjoint − forward {gap:.1e}");
}
