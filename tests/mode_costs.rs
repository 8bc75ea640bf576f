//! Integral costs limited to some modes: `#[cost(integral, modes(a, b))]` integrates its
//! integrand only while the solve is in those modes (zero elsewhere). The integrand then jumps
//! at a switch even where the state does not, and the objective's derivative has the
//! event-time term `(L⁻ − L⁺) τ` (Serban & Recuero 2019, Eq. 6): the discrete solution gets it
//! from the grid shift of the steps around the event, forward and adjoint alike. In a sliding
//! mode the integrand is the Filippov combination `(1 − α) L¹ + α L²` of its sides.
//!
//! Checked against closed forms differentiated with num-dual and FSA against the adjoint; the
//! flows are constant and the integrands polynomial of degree ≤ 2 in `t`, exact for the
//! ESDIRK4(3) tableau, so 1e-10 relative holds with margin at rtol 1e-10.
#![deny(missing_docs)]

#[path = "support/adjoint.rs"]
mod adjoint;

use hysens::prelude::*;
use hysens::runtime::HybridOptions;
use num_dual::{Dual64, DualNum};

/// Two speeds: `x' = va` in `a` until `x` rises through `level`, then `x' = vc` in `c`.
/// `∫ x dt` over the whole solve, `∫ x² dt` only in `c`.
#[hysens::hybrid_model]
pub mod two_speeds {
    /// The position.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }

    /// The speeds and the switching level.
    #[params]
    pub struct P {
        /// Speed in `a`.
        pub va: f64,
        /// Speed in `c`.
        pub vc: f64,
        /// Where `a` switches to `c`.
        pub level: f64,
    }

    /// Before the level.
    #[mode(initial)]
    fn a(p: &P) -> X {
        X { x: p.va }
    }

    /// After it.
    #[mode]
    fn c(p: &P) -> X {
        X { x: p.vc }
    }

    /// The level is reached.
    #[guard(a -> c, rising)]
    fn reaches(x: &X, p: &P) -> f64 {
        x.x - p.level
    }

    /// Over the whole solve.
    #[cost(integral)]
    fn position(x: &X) -> f64 {
        x.x
    }

    /// Only after the switch.
    #[cost(integral, modes(c))]
    fn squared_after(x: &X) -> f64 {
        x.x * x.x
    }
}

/// A relay: `x' = up` below the wall `x = 0`, `x' = −down` above it; from below, the solve
/// slides on the wall. The cost counts the time spent above: in the sliding mode the share
/// `α = up/(up + down)` of the chattering trajectory's time above.
#[hysens::hybrid_model]
pub mod relay {
    /// The position.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }

    /// The two speeds.
    #[params]
    pub struct P {
        /// Speed below the wall.
        pub up: f64,
        /// Speed above it.
        pub down: f64,
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

    /// Time spent above the wall.
    #[cost(integral, modes(above))]
    fn time_above() -> f64 {
        1.0
    }
}

/// `|a − b| ≤ tol·max(1, |b|)`, with a message naming what is compared.
fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:.16e} vs {b:.16e} (difference {:.2e})",
        (a - b).abs()
    );
}

/// `dG/dθ` of a closed form `G(values)` for each direction, by num-dual.
fn closed_form_gradient(values: &[f64], g: impl Fn(&[Dual64]) -> Dual64) -> Vec<f64> {
    (0..values.len())
        .map(|k| {
            let seeded: Vec<Dual64> = (0..values.len())
                .map(|j| Dual64::new(values[j], if j == k { 1.0 } else { 0.0 }))
                .collect();
            g(&seeded).eps
        })
        .collect()
}

/// The owned FSA solution and adjoint gradient against `closed_form` at `values`
/// (parameters, then initial states, named by `names`).
fn check<X, const NY: usize, const NZ: usize, const NP: usize>(
    solution: &hysens::runtime::Solution<X, NY, NZ, NP>,
    gradient: &hysens::runtime::Gradient<NY, NP>,
    names: &[Wrt<'_>],
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> Dual64,
) where
    X: hysens::runtime::Fields<NY>,
{
    let exact = closed_form(
        &values
            .iter()
            .map(|&v| Dual64::from_re(v))
            .collect::<Vec<_>>(),
    );
    assert_close("G (FSA)", solution.cost, exact.re, 1e-10);
    assert_close("G (adjoint)", gradient.cost, exact.re, 1e-10);
    for (&wrt, exact) in names.iter().zip(closed_form_gradient(values, &closed_form)) {
        let fsa = solution.cost_gradient(wrt).unwrap();
        let adjoint = gradient.wrt(wrt).unwrap();
        assert_close(&format!("dG/d{wrt:?} (FSA)"), fsa, exact, 1e-10);
        assert_close(&format!("dG/d{wrt:?} (adjoint)"), adjoint, exact, 1e-10);
        assert_close(&format!("dG/d{wrt:?}: FSA vs adjoint"), fsa, adjoint, 1e-10);
    }
}

/// From `x0` below the level: `t1 = (level − x0)/va`, `x(T) = level + vc (T − t1)`;
/// `G = ∫ x dt + ∫_{t1}^{T} x² dt`.
#[test]
fn a_cost_in_one_mode_against_the_closed_form() {
    let (va, vc, level, x0, t_end) = (1.5, 0.7, 1.0, 0.2, 2.0);
    let p = two_speeds::P { va, vc, level };
    let start = two_speeds::X { x: x0 };
    let solver = two_speeds::Model.solver().tolerances(1e-10, 1e-12);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &start, &p)
        .expect("solve");
    let gradient = solver.gradient(0.0, t_end, &start, &p).expect("gradient");
    let names = [
        Wrt::Param("va"),
        Wrt::Param("vc"),
        Wrt::Param("level"),
        Wrt::InitialState("x"),
    ];
    check(&solution, &gradient, &names, &[va, vc, level, x0], |v| {
        let [va, vc, level, x0] = [v[0], v[1], v[2], v[3]];
        let t1 = (level - x0) / va;
        let x_end = level + vc * (-t1 + t_end);
        let position =
            (level * level - x0 * x0) / (va * 2.0) + (x_end * x_end - level * level) / (vc * 2.0);
        let squared_after = (x_end.powi(3) - level.powi(3)) / (vc * 3.0);
        position + squared_after
    });
}

/// From `x0 < 0`, the relay reaches the wall at `t1 = −x0/up` and slides to `T`; the time
/// above is `α (T − t1)` with `α = up/(up + down)`.
#[test]
fn a_cost_of_one_side_is_shared_by_the_sliding_mode() {
    let (up, down, x0, t_end) = (1.0, 2.0, -0.5, 3.0);
    let p = relay::P { up, down };
    let start = relay::X { x: x0 };
    let solver = relay::Model.solver().tolerances(1e-10, 1e-12);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &start, &p)
        .expect("solve");
    let gradient = solver.gradient(0.0, t_end, &start, &p).expect("gradient");
    assert_eq!(solution.mode, "wall_sliding");
    let names = [Wrt::Param("up"), Wrt::Param("down"), Wrt::InitialState("x")];
    check(&solution, &gradient, &names, &[up, down, x0], |v| {
        let [up, down, x0] = [v[0], v[1], v[2]];
        let t1 = -x0 / up;
        up / (up + down) * (-t1 + t_end)
    });
}

/// The no-heap adjoint against the forward sensitivities for every tableau, with an arbitrary
/// seed, and from checkpoints (`support/adjoint.rs`, 1e-10 relative).
#[test]
fn adjoint_equals_forward_for_every_tableau() {
    let p = two_speeds::P {
        va: 1.5,
        vc: 0.7,
        level: 1.0,
    };
    let problem = two_speeds::Model::problem(0.0, 2.0, &two_speeds::X { x: 0.2 }, &p);
    let options = HybridOptions::new(1e-10, 1e-12);
    adjoint::every_tableau("two speeds", &two_speeds::Model, &problem, &options, true);
    let p = relay::P { up: 1.0, down: 2.0 };
    let problem = relay::Model::problem(0.0, 3.0, &relay::X { x: -0.5 }, &p);
    let options = HybridOptions::new(1e-10, 1e-12);
    adjoint::every_tableau("relay", &relay::Model, &problem, &options, true);
}
