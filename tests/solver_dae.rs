//! The builder on an index-1 DAE with memory, a reset and an integral cost (the `relay` test
//! model): the algebraic guess by name, and sensitivities to the initial states checked
//! against central differences of solves from perturbed initial states.
//!
//! The memory `y*` of the first mode is the initial state itself, so `∂/∂y0` also moves the
//! memory; the columns cross the switch `q = 1/2` with its reset `v⁺ = v⁻/2`.

// The shared test models; this test uses one of them.
use crate::models;

use hysens::prelude::*;
use models::relay;

const T_FINAL: f64 = 10.0;

fn solver(model: &relay::Model) -> impl Fn(relay::X) -> Solution<relay::X, 2, 1, 2> + '_ {
    move |x0| {
        model
            .solver()
            .tolerances(1e-11, 1e-13)
            .sensitivities_to(Params::All, InitialStates::All)
            .algebraic_guess(&relay::Z { f: 1.0 })
            .solve(0.0, T_FINAL, &x0, &relay::P { k: 2.0, c: 0.3 })
            .expect("the relay solves")
    }
}

/// Central differences of adaptive solves agree with the exact discrete sensitivities to the
/// difference step's truncation `O(δ²)` plus the solves' own error over `δ` (rtol 1e-11 and
/// `δ = 1e-4`: about `1e-7`); the bound 1e-6 (relative to max(1, |value|)) leaves room for the
/// different step sequences of the perturbed solves, and a wrong jump map (missing memory or
/// reset term) is off by O(1).
#[test]
fn initial_state_sensitivities_match_central_differences() {
    let model = relay::Model;
    let solve = solver(&model);
    let nominal = solve(relay::X { q: 0.0, v: 0.0 });
    assert!(!nominal.events.is_empty(), "the relay switches");
    let delta = 1e-4;
    for (k, name) in ["q", "v"].into_iter().enumerate() {
        let at = |d: f64| {
            let mut x0 = [0.0, 0.0];
            x0[k] = d;
            solve(relay::X { q: x0[0], v: x0[1] })
        };
        let (plus, minus) = (at(delta), at(-delta));
        assert_eq!(plus.events.len(), nominal.events.len());
        assert_eq!(minus.events.len(), nominal.events.len());
        for (i, of) in ["q", "v"].into_iter().enumerate() {
            let fd = (plus.y[i] - minus.y[i]) / (2.0 * delta);
            let fsa = nominal
                .sensitivity(of, Wrt::InitialState(name))
                .expect("chosen");
            assert!(
                (fd - fsa).abs() <= 1e-6 * fd.abs().max(1.0),
                "∂{of}(T)/∂{name}(0): FSA {fsa} vs central differences {fd}"
            );
        }
        let fd = (plus.cost - minus.cost) / (2.0 * delta);
        let fsa = nominal.cost_gradient(Wrt::InitialState(name)).unwrap();
        assert!(
            (fd - fsa).abs() <= 1e-6 * fd.abs().max(1.0),
            "dG/d{name}(0): FSA {fsa} vs central differences {fd}"
        );
    }
    // The algebraic variable is reported by name too.
    assert!(nominal.sensitivity("f", Wrt::InitialState("q")).is_ok());
    assert_eq!(nominal.z.len(), 1);
}
