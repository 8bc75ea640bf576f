//! The Dow Chemical batch reactor (`examples/dow/model.rs`, included by `#[path]`; 6
//! differential and 4 algebraic equations, 9 constants): the forward sensitivities of
//! ESDIRK34, the method of Kristensen et al. 2005, against central differences, and the state
//! against a second integrator (ESDIRK4(3)6L[2]SA), at `t = 2` h.

#[path = "../examples/dow/model.rs"]
mod dow_model;

use dow_model::{dow, LITERATURE, Y0};
use hysens::prelude::*;
use hysens::runtime::{Tableau, ESDIRK34, ESDIRK436L2SA};

/// The example's horizon (h).
const T_END: f64 = 2.0;
/// The tolerances of every solve here, the example's reference solves' (the 21 solves take
/// about 5 s in a debug build).
const RTOL: f64 = 1e-12;
const ATOL: f64 = 1e-16;
/// The central differences' step in `ln k` (`k̂`, `K` by `1 ± ε`, `β` by `± εT`), the
/// example's.
const EPSILON: f64 = 1e-4;

type DowSolution = Solution<dow::X, 6, 4, 9>;

fn solve<const S: usize>(
    tableau: &'static Tableau<S>,
    p: &dow::P,
    with_sensitivities: bool,
) -> DowSolution {
    let solver = dow::Model.solver().tolerances(RTOL, ATOL).tableau(tableau);
    let solver = if with_sensitivities {
        solver.sensitivities_to(Params::All, InitialStates::None)
    } else {
        solver
    };
    solver
        .solve(0.0, T_END, &Y0, p)
        .expect("the Dow problem solves")
}

/// ESDIRK34's forward sensitivities against central differences of its state-only solves.
/// The differences' truncation error is `ε²/6` times a third derivative in `ln k`, ~4e-8
/// (4e-6 at `ε = 1e-3`, measured by the example); their noise is the difference of the two
/// solves' errors (each ~1e-10 relative) over `2ε`, up to 5e-7 relative to `y`, less in
/// practice (the two solves take nearly the same steps). The bound, 1e-5 relative on all 54
/// entries (none is small: the smallest `|∂ln y_i/∂ln p_j|` is 0.008), the example's, is well
/// above both (measured: 6.1e-8) and far below what a missing or wrong term in the
/// sensitivity equations makes (percents).
#[test]
fn esdirk34_sensitivities_match_central_differences() {
    let solution = solve(&ESDIRK34, &LITERATURE, true);
    let p = LITERATURE.to_array();
    let mut worst: (f64, &str, &str) = (0.0, "", "");
    for (j, wrt) in dow::P::NAMES.iter().enumerate() {
        let delta = if wrt.starts_with("beta") {
            EPSILON * dow::T
        } else {
            EPSILON * p[j].abs()
        };
        let moved = |sign: f64| {
            let mut q = p;
            q[j] += sign * delta;
            solve(&ESDIRK34, &dow::P::from_array(q), false).y
        };
        let (up, down) = (moved(1.0), moved(-1.0));
        for (i, of) in dow::X::NAMES.iter().enumerate() {
            let fsa = solution.sensitivity(of, *wrt).expect("computed");
            let fd = (up[i] - down[i]) / (2.0 * delta);
            let error = (fsa - fd).abs() / fd.abs();
            assert!(!error.is_nan(), "d{of}/d{wrt}: FSA {fsa:e}, FD {fd:e}");
            if error > worst.0 {
                worst = (error, of, *wrt);
            }
        }
    }
    let (error, of, wrt) = worst;
    println!("largest relative difference from central differences: {error:.1e} (d{of}/d{wrt})");
    assert!(
        error < 1e-5,
        "largest relative difference from central differences: {error:.1e} (d{of}/d{wrt})"
    );
}

/// The states of ESDIRK34 against the default tableau's at the same tolerance. Each solve's
/// global error is a few to 20 rtol of each state's peak (the example's "global error against
/// rtol"), ~1e-10 relative to HA, the smallest final state (9 % of its peak); the bound,
/// 1e-8 relative (1e4 rtol), is the example's (measured: 1.3e-10).
#[test]
fn esdirk34_states_match_a_second_integrator() {
    let ours = solve(&ESDIRK34, &LITERATURE, false);
    let reference = solve(&ESDIRK436L2SA, &LITERATURE, false);
    for (i, name) in dow::X::NAMES.iter().enumerate() {
        let error = (ours.y[i] - reference.y[i]).abs() / reference.y[i].abs();
        println!("{name}({T_END} h): relative difference {error:.1e}");
        assert!(
            error < 1e-8,
            "{name}({T_END} h): ESDIRK34 {:e}, {} {:e}, relative difference {error:.1e}",
            ours.y[i],
            ESDIRK436L2SA.name,
            reference.y[i]
        );
    }
}
