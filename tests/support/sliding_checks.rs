//! Checks shared by the sliding tests (`tests/hybrid_sliding.rs`, `tests/model_sliding.rs`,
//! `tests/model_sliding_events.rs`), each of which states them about its own models:
//!
//! - [`assert_adjoint_equals_forward`]: the adjoint gradient against the forward solve's cost
//!   gradient, both derivatives of the same discrete solution;
//! - [`forward_and_adjoint_counting_allocations`]: a forward solve and an adjoint solve into
//!   caller storage, with the heap allocations they make (the no-heap tests).
//!
//! Included by `#[path]`, next to `support/counting_alloc.rs` (`mod counting_alloc;` at the
//! crate root), whose per-thread count it uses.
#![allow(dead_code)] // each sliding test uses a different part of this module

use hysens::runtime::{
    AdjointGradient, AdjointTape, EventRecord, Fields, Gradient, HybridOutputs, HybridSolution,
    Solution, SolveError, TapeStep, Wrt,
};

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
    pub events: [EventRecord<NS>; 8],
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
        };
        forward(&mut outputs, &mut solution)?;
        let mut adjoint_outputs = HybridOutputs {
            samples: &mut [],
            events: Some(&mut adjoint_events),
            steps: None,
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
