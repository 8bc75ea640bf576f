//! Terminal events: a guard whose target is `stop` ends the solve at its event time `t*(p)`.
//! The final state, the objective and their derivatives are then those at `t*`: the state's
//! sensitivities are total derivatives (`dy(t*)/dp`, through `τ = dt*/dp`), a terminal cost
//! reading `t` adds `φ_t τ`, an integral cost ends at `t*`. Each model against its closed form
//! (differentiated with num-dual), the forward sensitivities against the adjoint (models in
//! `support/language_models.rs`):
//!
//! - a tank draining by Torricelli's law to a level given by a parameter (the guard reads it;
//!   the objective is the drain time plus `∫ h dt`);
//! - a decay written as an index-1 DAE, stopped at a level (the stop keeps the algebraic state
//!   of its mode);
//! - a ball that bounces once and stops at its next apex (the stop after an event with a
//!   reset).
//!
//! The projectile of `tests/initial_state.rs` lands by a terminal guard too. Every flow here
//! is exact for the tableau (polynomial of degree ≤ 3 in `t`) or integrated at rtol 1e-12, and
//! the event is located on the discrete solution to round-off, so the closed forms hold to
//! ~1e-10 relative; the forward and the adjoint gradient are the same chain, so they agree to
//! round-off (1e-10 relative with margin).
#![deny(missing_docs)]

use crate::adjoint_checks as adjoint;
use crate::closed_form;
use crate::event_models;
use crate::language_models as models;

use closed_form::{
    adjoint_equals_forward, assert_close, check_gradient, derivatives, directions,
    forward_and_adjoint, value,
};
use event_models::bounce_to_apex;
use hysens::prelude::*;
use hysens::runtime::{Fields, Gradient, Solution};
use models::{dae_decay, tank};
use num_dual::{Dual64, DualNum};

/// A solve that a terminal guard stops, from its owned FSA solution and adjoint gradient,
/// against the closed form `(t*, G)`: it ends in the stopped mode at the last event's time
/// `t*`; `t*` and `dt*/dθ` (the event's time sensitivity) and `G` with its gradient in every
/// direction (`names`: parameters, then initial states).
fn check_stop<X: Fields<NY>, const NY: usize, const NZ: usize, const NP: usize>(
    solution: &Solution<X, NY, NZ, NP>,
    gradient: &Gradient<NY, NP>,
    names: &[Wrt<'_>],
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> [Dual64; 2],
) {
    assert_eq!(solution.mode, "stop", "the solve ends in the stopped mode");
    let last = solution
        .events
        .last()
        .expect("the terminal event is logged");
    assert_eq!((last.to, last.t), ("stop", solution.t));
    let [t_stop, _] = value(values, &closed_form);
    assert_close("t*", solution.t, t_stop, 1e-11);
    let k = solution.events.len() - 1;
    for (&wrt, [dt, _]) in names.iter().zip(derivatives(values, &closed_form)) {
        let tau = solution.event_time_sensitivity(k, wrt).expect("τ");
        assert_close(&format!("dt*/d{wrt:?}"), tau, dt, 1e-10);
    }
    let objective = |v: &[Dual64]| closed_form(v)[1];
    check_gradient(solution, gradient, names, values, objective, 1e-9);
}

/// The tank from `h0`: `√h` falls linearly, `T = 2(√h0 − √level)/k`, and
/// `∫ h dt = 2 (h0^{3/2} − level^{3/2})/(3k)`; `G = T + ∫ h dt`.
#[test]
fn tank_drains_to_its_level_at_the_closed_form_time() {
    let (k, level, h0) = (0.3, 0.25, 2.0);
    let solution = tank_stops(k, level, h0, (1e-12, 1e-14));
    assert_close("h(t*)", solution.y[0], level, 1e-12);
    // The final state's sensitivities are total derivatives: h(t*) = level whatever k.
    let dh_dk = solution.sensitivity("h", "k").unwrap();
    assert!(dh_dk.abs() < 1e-12, "dh(t*)/dk = {dh_dk}");
}

/// The tank from `h0` solved at `(rtol, atol)` to its stop, checked against
/// [`tank_closed_form`] by [`check_stop`] in every direction (`k`, `level`, `h0`); returns
/// the forward solution.
fn tank_stops(k: f64, level: f64, h0: f64, (rtol, atol): (f64, f64)) -> Solution<tank::X, 1, 0, 2> {
    let p = tank::P { k, level };
    let start = tank::X { h: h0 };
    let (solution, gradient) = forward_and_adjoint!(tank::Model, (rtol, atol), 100.0, &start, &p);
    let names = directions(&["k", "level"], &["h"]);
    check_stop(
        &solution,
        &gradient,
        &names,
        &[k, level, h0],
        tank_closed_form,
    );
    solution
}

/// `[T, T + ∫ h dt]` of the tank at `[k, level, h0]`.
fn tank_closed_form(v: &[Dual64]) -> [Dual64; 2] {
    let [k, level, h0] = [v[0], v[1], v[2]];
    let t = (h0.sqrt() - level.sqrt()) * 2.0 / k;
    let area = (h0.powf(1.5) - level.powf(1.5)) * 2.0 / (k * 3.0);
    [t, t + area]
}

/// The DAE decay from `y0`: `y = y0 e^{−kt}`, `T = ln(y0/level)/k`, `z(T) = k level`.
#[test]
fn dae_decay_stops_with_its_algebraic_state() {
    let (k, level, y0) = (0.7, 0.2, 1.3);
    let p = dae_decay::P { k, level };
    let start = dae_decay::X { y: y0 };
    let (solution, gradient) =
        forward_and_adjoint!(dae_decay::Model, (1e-12, 1e-14), 100.0, &start, &p);
    let names = directions(&["k", "level"], &["y"]);
    check_stop(&solution, &gradient, &names, &[k, level, y0], |v| {
        let [k, level, y0] = [v[0], v[1], v[2]];
        let t = (y0 / level).ln() / k;
        [t, t + k * level]
    });
    assert_close("z(t*)", solution.z[0], k * level, 1e-11);
}

/// The ball thrown down at speed `u` from `h0`: it hits the ground with speed
/// `w = √(u² + 2 g h0)` at `t1 = (w − u)/g`, leaves it at `e w` and stops at its apex,
/// `t1 + e w/g`, at height `(e w)²/(2g)`.
#[test]
fn ball_stops_at_its_apex_after_a_bounce() {
    let (g, e, h0, u) = (9.81, 0.8, 1.2, 1.0);
    let p = bounce_to_apex::P { g, e };
    let start = bounce_to_apex::X { y: h0, v: -u };
    let (solution, gradient) =
        forward_and_adjoint!(bounce_to_apex::Model, (1e-12, 1e-14), 10.0, &start, &p);
    assert_eq!(solution.events.len(), 2, "one impact, then the apex");
    // The events carry the state before and after them: the impact on the floor at `−w`,
    // reset to `e w`; the apex at its height, at rest, kept by the stop.
    let w = (u * u + 2.0 * g * h0).sqrt();
    let [impact, apex] = [&solution.events[0], &solution.events[1]];
    assert!(impact.y_before[0].abs() < 1e-12 && impact.y_after[0] == impact.y_before[0]);
    assert_close("v before the impact", impact.y_before[1], -w, 1e-12);
    assert_close("v after the impact", impact.y_after[1], e * w, 1e-12);
    assert_eq!(
        apex.y_after, apex.y_before,
        "a terminal guard without a reset"
    );
    assert_close(
        "apex height",
        apex.y_before[0],
        (e * w).powi(2) / (2.0 * g),
        1e-12,
    );
    assert!(
        apex.y_before[1].abs() < 1e-12,
        "at rest: v = {}",
        apex.y_before[1]
    );
    let names = directions(&["g", "e"], &["y", "v"]);
    check_stop(&solution, &gradient, &names, &[g, e, h0, -u], |v| {
        let [g, e, h0, v0] = [v[0], v[1], v[2], v[3]];
        let w = (v0 * v0 + g * h0 * 2.0).sqrt();
        let t = (w + v0) / g + e * w / g;
        let height = (e * w).powi(2) / (g * 2.0);
        [t, height + t]
    });
}

/// A horizon shorter than the drain: the guard never fires, the solve ends at `t_f` in the
/// draining mode, as without a terminal guard.
#[test]
fn a_horizon_before_the_stop_ends_the_solve_as_usual() {
    let p = tank::P {
        k: 0.3,
        level: 0.25,
    };
    let solution = tank::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .solve(0.0, 0.2, &tank::X { h: 2.0 }, &p)
        .expect("solve");
    assert_eq!((solution.t, solution.mode), (0.2, "draining"));
    assert!(solution.events.is_empty());
}

/// A tank starting exactly at its level: the guard is on its zero at `t0` and the flow
/// crosses it falling, so it fires at once (an event step of length zero) and the solve stops
/// at `t0`. The derivatives are those of the closed form as `h0` comes down to the level
/// (one-sided: the event time's root condition on the zero-length step), `dT/dlevel =
/// −1/(k √level)`, `dT/dh0 = 1/(k √h0)`.
#[test]
fn a_start_on_the_level_stops_at_t0() {
    let (k, level) = (0.3, 0.25);
    let solution = tank_stops(k, level, level, (1e-10, 1e-12));
    assert_eq!((solution.t, solution.events.len()), (0.0, 1));
}

/// Samples up to the stop are recorded (their sensitivities the usual fixed-time ones);
/// those after it are not: the solution holds fewer samples than asked for. A sampled state
/// matches the closed form.
#[test]
fn samples_after_the_stop_are_not_recorded() {
    let (k, level, h0) = (0.3, 0.25, 2.0);
    let p = tank::P { k, level };
    let stop = (h0.sqrt() - level.sqrt()) * 2.0 / k;
    let times = [1.0, 2.0, stop + 1.0, stop + 2.0];
    let solution = tank::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .samples(&times)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, 100.0, &tank::X { h: h0 }, &p)
        .expect("the tank drains");
    assert_eq!(
        solution.samples.len(),
        2,
        "the samples before the stop only"
    );
    for sample in &solution.samples {
        let root = h0.sqrt() - k * sample.t / 2.0;
        assert_close("h(t)", sample.y[0], root * root, 1e-11);
        // dh/dk = 2 √h · ∂√h/∂k = −t √h.
        assert_close("dh/dk", sample.dy[0][0], -sample.t * root, 1e-10);
    }
}

/// The no-heap adjoint of each stopped solve against its forward sensitivities, for every
/// tableau, with an arbitrary seed `∂y0/∂p`, and from checkpoints at several window lengths
/// (bit for bit the full tape's gradient: the solve resumed from a checkpoint stops again at
/// the same event): the shared comparison of `support/adjoint.rs`, to 1e-10 relative.
#[test]
fn adjoint_equals_forward_for_every_tableau_and_from_checkpoints() {
    let p = tank::P {
        k: 0.3,
        level: 0.25,
    };
    let problem = tank::Model::problem(0.0, 100.0, &tank::X { h: 2.0 }, &p);
    adjoint_equals_forward!("tank", tank::Model, problem, events: true);
    let p = dae_decay::P { k: 0.7, level: 0.2 };
    let problem = dae_decay::Model::problem(0.0, 100.0, &dae_decay::X { y: 1.3 }, &p);
    adjoint_equals_forward!("DAE decay", dae_decay::Model, problem, events: true);
    let p = bounce_to_apex::P { g: 9.81, e: 0.8 };
    let start = bounce_to_apex::X { y: 1.2, v: -1.0 };
    let problem = bounce_to_apex::Model::problem(0.0, 10.0, &start, &p);
    adjoint_equals_forward!("ball to apex", bounce_to_apex::Model, problem, events: true);
}
