//! A solve's objective and gradient against a closed form: the closed form written over
//! `num_dual::Dual64` and differentiated one seeded direction at a time, the forward
//! sensitivities and the adjoint compared with it and with each other; and the no-heap adjoint
//! against the forward sensitivities (`adjoint_equals_forward!`) at the tolerances all these
//! tests share. Shared by the tests of the model language's features (`terminal_events`,
//! `initial_state`, `mode_costs`, `named_costs`, `state_helpers`).
#![allow(dead_code)] // each test binary uses a subset

use hysens::runtime::{Fields, Gradient, HybridOptions, Solution, Wrt};
use num_dual::Dual64;

/// `|a − b| ≤ tol·max(1, |b|)`, with a message naming what is compared.
pub fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:.16e} vs {b:.16e} (difference {:.2e})",
        (a - b).abs()
    );
}

/// The values of `closed_form` at `values`.
pub fn value<const K: usize>(
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> [Dual64; K],
) -> [f64; K] {
    let at: Vec<Dual64> = values.iter().map(|&v| Dual64::from_re(v)).collect();
    closed_form(&at).map(|d| d.re)
}

/// The derivatives of `closed_form`'s values with respect to each entry of `values`, by
/// num-dual: entry `j` of the result is `[d f_k / d values_j]_k`.
pub fn derivatives<const K: usize>(
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> [Dual64; K],
) -> Vec<[f64; K]> {
    (0..values.len())
        .map(|j| {
            let seeded: Vec<Dual64> = (0..values.len())
                .map(|i| Dual64::new(values[i], if i == j { 1.0 } else { 0.0 }))
                .collect();
            closed_form(&seeded).map(|d| d.eps)
        })
        .collect()
}

/// The directions `params` (parameters) then `states` (initial states), in that order: the
/// `names` of [`check_gradient`].
pub fn directions<'a>(params: &[&'a str], states: &[&'a str]) -> Vec<Wrt<'a>> {
    let params = params.iter().map(|&name| Wrt::Param(name));
    params
        .chain(states.iter().map(|&name| Wrt::InitialState(name)))
        .collect()
}

/// The objective `G` and its gradient in every direction of `names` (parameters and initial
/// states, in the order of `values`), by the forward sensitivities of `solution` and by the
/// adjoint `gradient`, against the closed form `objective` (to `tol` relative), and the two
/// against each other to 1e-10 (the same chain, transposed: round-off).
pub fn check_gradient<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    solution: &Solution<X, NY, NZ, NP>,
    gradient: &Gradient<NY, NP>,
    names: &[Wrt<'_>],
    values: &[f64],
    objective: impl Fn(&[Dual64]) -> Dual64,
    tol: f64,
) {
    let closed_form = |v: &[Dual64]| [objective(v)];
    let [g] = value(values, closed_form);
    assert_close("G (FSA)", solution.cost, g, tol);
    assert_close("G (adjoint)", gradient.cost, g, tol);
    for (&wrt, [exact]) in names.iter().zip(derivatives(values, closed_form)) {
        let fsa = solution.cost_gradient(wrt).expect("a chosen direction");
        let adjoint = gradient.wrt(wrt).expect("a known name");
        assert_close(&format!("dG/d{wrt:?} (FSA)"), fsa, exact, tol);
        assert_close(&format!("dG/d{wrt:?} (adjoint)"), adjoint, exact, tol);
        assert_close(&format!("dG/d{wrt:?}: FSA vs adjoint"), fsa, adjoint, 1e-10);
    }
}

/// The tolerances of the features' no-heap adjoint against their forward sensitivities
/// (`support/adjoint.rs`'s `every_tableau`): rtol 1e-10, atol 1e-12, for a model of any size.
pub fn adjoint_check_options<const NY: usize, const NZ: usize>() -> HybridOptions<NY, NZ> {
    HybridOptions::new(1e-10, 1e-12)
}

/// The no-heap adjoint of `$model` on `$problem` against its forward sensitivities, for every
/// tableau, with an arbitrary seed and from checkpoints, at [`adjoint_check_options`]: the
/// shared comparison `every_tableau` of `support/adjoint.rs` (which the test includes as
/// `adjoint`), named `$name`; `events`: the solve must meet events.
#[allow(unused_macros)] // each test binary uses a subset
macro_rules! adjoint_equals_forward {
    ($name:expr, $model:expr, $problem:expr, events: $events:expr) => {
        adjoint::every_tableau(
            $name,
            &$model,
            &$problem,
            &closed_form::adjoint_check_options(),
            $events,
        )
    };
}
#[allow(unused_imports)]
pub(crate) use adjoint_equals_forward;

/// `(solution, gradient)` of `$model` on `[0, $tf]` from `$x0` with `$p` at `($rtol, $atol)`:
/// the owned solve with sensitivities to every parameter and initial state, and the adjoint
/// gradient — the two sides [`check_gradient`] compares.
macro_rules! forward_and_adjoint {
    ($model:expr, ($rtol:expr, $atol:expr), $tf:expr, $x0:expr, $p:expr) => {{
        let solver = $model.solver().tolerances($rtol, $atol);
        let all = hysens::runtime::Params::All;
        let solution = solver
            .sensitivities_to(all, hysens::runtime::InitialStates::All)
            .solve(0.0, $tf, $x0, $p)
            .expect("the forward solve");
        let gradient = solver
            .gradient(0.0, $tf, $x0, $p)
            .expect("the adjoint gradient");
        (solution, gradient)
    }};
}
pub(crate) use forward_and_adjoint;
