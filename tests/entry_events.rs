//! Sensitivities across events at a mode's entry (`hysens-runtime/src/hybrid/entry.rs`): a
//! guard on its zero when its mode is entered, the flow crossing it, fires at once — a step of
//! length zero whose root condition gives its event time's derivative, as any event step's
//! does. Checked against the closed form (differentiated with num-dual), the adjoint against
//! the forward sensitivities, for the entry after an event and at `t0`, with an integral and a
//! terminal cost and a reset in the instantaneous event.
#![deny(missing_docs)]

use hysens::runtime::{InitialStates, Params, Wrt, ESDIRK23, ESDIRK34};
use num_dual::{Dual64, DualNum};

// The event corpus's `chain`: three speeds on one level, an event at `b`'s entry with a lift.
use crate::corpus::chain as stairs;

/// The final time.
const T: f64 = 2.0;

/// `(t1, x(T), G)` of the closed form: `t1 = (level − x0)/va` (both events), `x = x0 + va t`
/// before, `x = level + d + vc (t − t1)` after; `G = ∫ x² dt + x(T)`.
fn closed_form(x0: Dual64, p: [Dual64; 5]) -> (Dual64, Dual64, Dual64) {
    let [va, _vb, vc, level, d] = p;
    let t1 = (level - x0) / va;
    let after = level + d;
    let x_end = after + vc * (Dual64::from_re(T) - t1);
    // ∫ (x0 + va t)² dt over [0, t1] and ∫ (after + vc s)² ds over [0, T − t1].
    let cube =
        |start: Dual64, end: Dual64, rate: Dual64| (end.powi(3) - start.powi(3)) / (rate * 3.0);
    let g = cube(x0, level, va) + cube(after, x_end, vc) + x_end;
    (t1, x_end, g)
}

/// FSA (every parameter and the initial state) and the adjoint gradient against the closed
/// form, from `x0`, with each tableau at rtol 1e-10: the flows are constant (exact for every
/// tableau), so times, states and their derivatives to round-off — 1e-11 relative; the cost's
/// quadrature of `x²` (quadratic in `t`) is exact only for the tableaus of order ≥ 3, and
/// ESDIRK2(3)'s, held at rtol per step by the cost's error test, accumulates to
/// `~rtol^{2/3}` (measured 7e-8 at rtol 1e-10): 1e-6 for it.
fn check(x0: f64) {
    let p = stairs::P {
        va: 1.5,
        vb: 0.5,
        vc: -0.7,
        level: 1.0,
        d: 0.25,
    };
    let values = [p.va, p.vb, p.vc, p.level, p.d];
    let names = ["va", "vb", "vc", "level", "d"];
    let exact = |k: usize| {
        let seed = |j: usize, v: f64| Dual64::new(v, if j == k { 1.0 } else { 0.0 });
        closed_form(seed(5, x0), core::array::from_fn(|q| seed(q, values[q])))
    };
    let solver = stairs::Model.solver().tolerances(1e-10, 1e-12);
    let x = stairs::X { x: x0 };
    // The forward sensitivities and the adjoint gradient of the same solve, for a solver with
    // any tableau (a macro: each tableau's solver has a type of its own).
    macro_rules! forward_and_adjoint {
        ($solver:expr) => {{
            let solver = $solver;
            (
                solver
                    .sensitivities_to(Params::All, InitialStates::All)
                    .solve(0.0, T, &x, &p),
                solver.gradient(0.0, T, &x, &p),
            )
        }};
    }
    for (label, cost_tolerance, (result, gradient)) in [
        (
            "ESDIRK23",
            1e-6,
            forward_and_adjoint!(solver.tableau(&ESDIRK23)),
        ),
        (
            "ESDIRK34",
            1e-11,
            forward_and_adjoint!(solver.tableau(&ESDIRK34)),
        ),
        ("ESDIRK4(3)6L", 1e-11, forward_and_adjoint!(solver)),
    ] {
        let solution = result.unwrap_or_else(|f| panic!("{label}: {f}"));
        let gradient = gradient.unwrap_or_else(|f| panic!("{label}: {f}"));
        let within = |what: &str, a: f64, b: f64, tolerance: f64| {
            assert!(
                (a - b).abs() <= tolerance * b.abs().max(1.0),
                "{label}, x0 = {x0}, {what}: {a} vs {b}"
            );
        };
        let close = |what: &str, a: f64, b: f64| within(what, a, b, 1e-11);
        let (t1, x_end, g) = exact(0);
        let kinds: Vec<_> = solution.events.iter().map(|e| (e.guard, e.t)).collect();
        assert_eq!(solution.events.len(), 2, "{label}: {kinds:?}");
        assert_eq!(
            (solution.events[0].guard, solution.events[1].guard),
            ("enter", "onward")
        );
        close("t1", solution.events[0].t, t1.re);
        close("t2", solution.events[1].t, t1.re);
        close("x(T)", solution.x.x, x_end.re);
        within("G", solution.cost, g.re, cost_tolerance);
        for k in 0..6 {
            let wrt = match k {
                5 => Wrt::InitialState("x"),
                q => Wrt::Param(names[q]),
            };
            let (t1, x_end, g) = exact(k);
            for e in 0..2 {
                let dt = solution
                    .event_time_sensitivity(e, wrt)
                    .expect("a direction");
                close(&format!("dt{}/d{wrt:?}", e + 1), dt, t1.eps);
            }
            let dx = solution.sensitivity("x", wrt).expect("a direction");
            close(&format!("dx(T)/d{wrt:?}"), dx, x_end.eps);
            let dg = solution.cost_gradient(wrt).expect("a direction");
            within(&format!("dG/d{wrt:?} (FSA)"), dg, g.eps, cost_tolerance);
            let adjoint = gradient.wrt(wrt).expect("a direction");
            within(
                &format!("dG/d{wrt:?} (adjoint)"),
                adjoint,
                g.eps,
                cost_tolerance,
            );
            // The adjoint transposes the forward chain: equal to round-off.
            close(&format!("dG/d{wrt:?}, adjoint vs FSA"), adjoint, dg);
        }
    }
}

/// `a → b → c` at `t1 = 0` after a step in `a`: the instantaneous event of `b`'s entry.
#[test]
fn entry_event_after_an_event_against_the_closed_form() {
    check(0.25);
}

/// The start on the level: both events at `t0` (the first moving the way it fires, the second
/// at `b`'s entry). The derivatives are those of the side the start lies on, `x0 ≤ level`
/// (one-sided: above it the start would be in `a` past its guard).
#[test]
fn entry_events_at_t0_against_the_closed_form() {
    check(1.0);
}
