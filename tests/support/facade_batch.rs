//! The batch workload of the `batch` benchmark and the `batch_speedup` example: solves of
//! Serban & Recuero's Ex. 5.1 (P1) on `[0, 5]` with forward sensitivities to `p` and `x0`,
//! rtol 1e-8, atol 1e-10, `p` swept over [2.6, 3.2), and its sequential baseline in caller
//! storage (`Solver::solve_into` in a loop, no heap per solve).
//!
//! Declared once so that the benchmark and the example time the same workload against the
//! same baseline. Included by `#[path]` next to `models.rs` (as a sibling module of `models`).

use hysens::batch::Slot;
use hysens::prelude::*;
use hysens::runtime::HybridOutputs;

use super::models::{ex51, ex51_batch};

/// The solver of P1 with forward sensitivities to every parameter and initial state: the
/// default 6-stage ESDIRK tableau, one state, no algebraic variable, one parameter, and two
/// sensitivity columns (`p` and `x0`).
pub type P1FsaSolver = Solver<'static, ex51::Model, 6, 1, 0, 1, 1, 2>;

/// The solver, `n` items `(x0, p)` and a summary slot (no samples, events or steps) per item.
pub fn p1_fsa_batch(
    n: usize,
) -> (
    P1FsaSolver,
    Vec<(ex51::X, ex51::P)>,
    Vec<Slot<'static, 1, 0, 2>>,
) {
    let solver = ex51::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All);
    let items = ex51_batch(n);
    let slots = items.iter().map(|_| Slot::summary()).collect();
    (solver, items, slots)
}

/// The sequential baseline: item `k` solved into `slots[k]` with `Solver::solve_into`, one
/// after the other.
pub fn solve_one_after_another(
    solver: &P1FsaSolver,
    items: &[(ex51::X, ex51::P)],
    slots: &mut [Slot<'_, 1, 0, 2>],
) {
    for (slot, (x0, p)) in slots.iter_mut().zip(items) {
        let mut outputs = HybridOutputs {
            samples: &mut [],
            events: None,
            steps: None,
            dense: None,
        };
        slot.result = solver.solve_into(0.0, 5.0, x0, p, &mut outputs, &mut slot.solution);
    }
}
