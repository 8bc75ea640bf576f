//! Terminal events: a guard whose target is `stop` ends the solve at its event time `t*(p)`.
//! The final state, the objective and their derivatives are then those at `t*`: the state's
//! sensitivities are total derivatives (`dy(t*)/dp`, through `τ = dt*/dp`), a terminal cost
//! reading `t` adds `φ_t τ`, an integral cost ends at `t*`. Each model against its closed form
//! (differentiated with num-dual), the forward sensitivities against the adjoint:
//!
//! - a projectile landing from a height (a terminal guard after a flight with no event);
//! - a tank draining by Torricelli's law to a level given by a parameter (the guard reads it);
//! - a decay written as an index-1 DAE, stopped at a level (the stop keeps the algebraic
//!   state of its mode);
//! - a ball that bounces once and stops at its next apex (the stop after an event with a
//!   reset).
//!
//! Every flow here is exact for the tableau (polynomial of degree ≤ 3 in `t`) or integrated at
//! rtol 1e-12, and the event is located on the discrete solution to round-off, so the closed
//! forms hold to ~1e-10 relative; the forward and the adjoint gradient are the same chain, so
//! they agree to round-off (1e-10 relative with margin).
#![deny(missing_docs)]

#[path = "support/adjoint.rs"]
mod adjoint;

use hysens::prelude::*;
use hysens::runtime::HybridOptions;
use num_dual::{Dual64, DualNum};

/// A projectile: `x' = vx`, `y' = vy`, `vy' = −g`, landing when `y` falls through 0.
#[hysens::hybrid_model]
pub mod projectile {
    /// Position and velocity.
    #[states]
    pub struct X {
        /// Horizontal position.
        pub x: f64,
        /// Height.
        pub y: f64,
        /// Horizontal velocity.
        pub vx: f64,
        /// Vertical velocity.
        pub vy: f64,
    }

    /// Gravity.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
    }

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X {
            x: x.vx,
            y: x.vy,
            vx: 0.0,
            vy: -p.g,
        }
    }

    /// The ground: the solve ends when the projectile lands.
    #[guard(flight -> stop, falling)]
    fn lands(x: &X) -> f64 {
        x.y
    }

    /// The range and the landing time.
    #[cost(terminal)]
    fn range_and_time(x: &X, t: f64) -> f64 {
        x.x + t
    }

    /// The area under the trajectory.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.y
    }
}

/// A tank draining by Torricelli's law, `h' = −k √h`, until `h` falls to `level`.
#[hysens::hybrid_model]
pub mod tank {
    /// The level.
    #[states]
    pub struct X {
        /// Height of the liquid.
        pub h: f64,
    }

    /// Outflow coefficient and the level that ends the solve.
    #[params]
    pub struct P {
        /// Outflow coefficient.
        pub k: f64,
        /// The level at which the solve stops.
        pub level: f64,
    }

    /// Draining.
    #[mode(initial)]
    fn draining(x: &X, p: &P) -> X {
        X {
            h: -p.k * x.h.sqrt(),
        }
    }

    /// The level is reached.
    #[guard(draining -> stop, falling)]
    fn reaches_level(x: &X, p: &P) -> f64 {
        x.h - p.level
    }

    /// The time to drain to the level.
    #[cost(terminal)]
    fn drain_time(t: f64) -> f64 {
        t
    }
}

/// A decay as an index-1 DAE, `y' = −z`, `0 = z − k y`, stopped when `y` falls to `level`.
#[hysens::hybrid_model]
pub mod dae_decay {
    /// The decaying state.
    #[states]
    pub struct X {
        /// `y`.
        pub y: f64,
    }

    /// The flux.
    #[algebraic]
    pub struct Z {
        /// `z = k y`.
        pub z: f64,
    }

    /// Rate and stopping level.
    #[params]
    pub struct P {
        /// Decay rate.
        pub k: f64,
        /// The level at which the solve stops.
        pub level: f64,
    }

    /// The decay.
    #[mode(initial)]
    fn decay(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { y: -z.z }, [z.z - p.k * x.y])
    }

    /// The level is reached.
    #[guard(decay -> stop, falling)]
    fn reaches_level(x: &X, p: &P) -> f64 {
        x.y - p.level
    }

    /// The stopping time plus the flux at the stop.
    #[cost(terminal)]
    fn time_and_flux(z: &Z, t: f64) -> f64 {
        t + z.z
    }
}

/// A ball thrown down, bouncing once (`v⁺ = −e v⁻`) and stopped at its next apex.
#[hysens::hybrid_model]
pub mod bounce_to_apex {
    /// Height and velocity.
    #[states]
    pub struct X {
        /// Height.
        pub y: f64,
        /// Velocity.
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

    /// Free flight.
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { y: x.v, v: -p.g }
    }

    /// The impact.
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.y
    }

    /// The bounce.
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            y: x.y,
            v: -p.e * x.v,
        }
    }

    /// The apex: the velocity falls through zero (only after the bounce: the ball starts
    /// moving down).
    #[guard(flight -> stop, falling)]
    fn apex(x: &X) -> f64 {
        x.v
    }

    /// The apex height and time.
    #[cost(terminal)]
    fn apex_height_and_time(x: &X, t: f64) -> f64 {
        x.y + t
    }
}

/// `(t*, G)` of a closed form with its derivatives along one seeded direction.
type Exact = (Dual64, Dual64);

/// `dt*/dθ` and `dG/dθ` for each direction `θ` (parameters, then initial states, in the
/// order of `values`), from a closed form over dual numbers.
fn derivatives(values: &[f64], closed_form: impl Fn(&[Dual64]) -> Exact) -> Vec<(f64, f64)> {
    (0..values.len())
        .map(|k| {
            let seeded: Vec<Dual64> = (0..values.len())
                .map(|j| Dual64::new(values[j], if j == k { 1.0 } else { 0.0 }))
                .collect();
            let (t, g) = closed_form(&seeded);
            (t.eps, g.eps)
        })
        .collect()
}

/// `|a − b| ≤ tol·max(1, |b|)`, with a message naming what is compared.
fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:.16e} vs {b:.16e} (difference {:.2e})",
        (a - b).abs()
    );
}

/// Checks a solve that a terminal guard stops, from its owned FSA solution and adjoint
/// gradient, against the closed form: the stopping time (the final time and the last event's),
/// the objective, `dt*/dθ` and `dG/dθ` for every direction (`names`: parameters, then initial
/// states), and FSA against the adjoint.
fn check_stop<X, const NY: usize, const NZ: usize, const NP: usize>(
    solution: &hysens::runtime::Solution<X, NY, NZ, NP>,
    gradient: &hysens::runtime::Gradient<NY, NP>,
    names: &[Wrt<'_>],
    values: &[f64],
    closed_form: impl Fn(&[Dual64]) -> Exact,
) where
    X: hysens::runtime::Fields<NY>,
{
    let (t_stop, cost) = closed_form(
        &values
            .iter()
            .map(|&v| Dual64::from_re(v))
            .collect::<Vec<_>>(),
    );
    assert_eq!(solution.mode, "stop", "the solve ends in the stopped mode");
    let last = solution
        .events
        .last()
        .expect("the terminal event is logged");
    assert_eq!(last.to, "stop");
    assert_eq!(solution.t, last.t, "the solve ends at the terminal event");
    assert_close("t*", solution.t, t_stop.re, 1e-11);
    assert_close("G (FSA)", solution.cost, cost.re, 1e-10);
    assert_close("G (adjoint)", gradient.cost, cost.re, 1e-10);
    let k = solution.events.len() - 1;
    for (&wrt, (dt, dg)) in names.iter().zip(derivatives(values, &closed_form)) {
        let fsa = solution.cost_gradient(wrt).expect("a chosen direction");
        let adjoint = gradient.wrt(wrt).expect("a known name");
        let event_time = solution.event_time_sensitivity(k, wrt).expect("τ");
        assert_close(&format!("dt*/d{wrt:?}"), event_time, dt, 1e-10);
        assert_close(&format!("dG/d{wrt:?} (FSA)"), fsa, dg, 1e-9);
        assert_close(&format!("dG/d{wrt:?} (adjoint)"), adjoint, dg, 1e-9);
        assert_close(&format!("dG/d{wrt:?}: FSA vs adjoint"), fsa, adjoint, 1e-10);
    }
}

/// The projectile from `(x0, h0)` with velocity `(vx, vy)`: it lands at
/// `T = (vy + √(vy² + 2 g h0))/g` at `x0 + vx T`; the area under its path is
/// `h0 T + vy T²/2 − g T³/6`; `G = x(T) + T + area`.
#[test]
fn projectile_lands_at_the_closed_form_time() {
    let (g, x0, h0, vx, vy) = (9.81, 0.5, 1.5, 3.0, 4.0);
    let p = projectile::P { g };
    let start = projectile::X {
        x: x0,
        y: h0,
        vx,
        vy,
    };
    let solver = projectile::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 10.0, &start, &p)
        .expect("the projectile lands");
    let gradient = solver.gradient(0.0, 10.0, &start, &p).expect("gradient");
    let names = [
        Wrt::Param("g"),
        Wrt::InitialState("x"),
        Wrt::InitialState("y"),
        Wrt::InitialState("vx"),
        Wrt::InitialState("vy"),
    ];
    check_stop(&solution, &gradient, &names, &[g, x0, h0, vx, vy], |v| {
        let [g, x0, h0, vx, vy] = [v[0], v[1], v[2], v[3], v[4]];
        let t = (vy + (vy * vy + g * h0 * 2.0).sqrt()) / g;
        let area = h0 * t + vy * t * t * 0.5 - g * t.powi(3) / 6.0;
        (t, x0 + vx * t + t + area)
    });
    // The final state is the landing point, and its sensitivities are total derivatives:
    // y(t*) = 0 whatever the parameters.
    assert!(
        solution.y[1].abs() < 1e-12,
        "lands on the ground: y = {}",
        solution.y[1]
    );
    let dy_dg = solution.sensitivity("y", "g").unwrap();
    assert!(dy_dg.abs() < 1e-12, "dy(t*)/dg = {dy_dg}");
}

/// The tank from `h0`: `√h` falls linearly, `T = 2(√h0 − √level)/k`.
#[test]
fn tank_drains_to_its_level_at_the_closed_form_time() {
    let (k, level, h0) = (0.3, 0.25, 2.0);
    let p = tank::P { k, level };
    let start = tank::X { h: h0 };
    let solver = tank::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 100.0, &start, &p)
        .expect("the tank drains");
    let gradient = solver.gradient(0.0, 100.0, &start, &p).expect("gradient");
    let names = [Wrt::Param("k"), Wrt::Param("level"), Wrt::InitialState("h")];
    check_stop(&solution, &gradient, &names, &[k, level, h0], |v| {
        let [k, level, h0] = [v[0], v[1], v[2]];
        let t = (h0.sqrt() - level.sqrt()) * 2.0 / k;
        (t, t)
    });
    assert_close("h(t*)", solution.y[0], level, 1e-12);
}

/// The DAE decay from `y0`: `y = y0 e^{−kt}`, `T = ln(y0/level)/k`, `z(T) = k level`.
#[test]
fn dae_decay_stops_with_its_algebraic_state() {
    let (k, level, y0) = (0.7, 0.2, 1.3);
    let p = dae_decay::P { k, level };
    let start = dae_decay::X { y: y0 };
    let solver = dae_decay::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 100.0, &start, &p)
        .expect("the decay reaches its level");
    let gradient = solver.gradient(0.0, 100.0, &start, &p).expect("gradient");
    let names = [Wrt::Param("k"), Wrt::Param("level"), Wrt::InitialState("y")];
    check_stop(&solution, &gradient, &names, &[k, level, y0], |v| {
        let [k, level, y0] = [v[0], v[1], v[2]];
        let t = (y0 / level).ln() / k;
        (t, t + k * level)
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
    let solver = bounce_to_apex::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 10.0, &start, &p)
        .expect("the ball reaches its apex");
    let gradient = solver.gradient(0.0, 10.0, &start, &p).expect("gradient");
    assert_eq!(solution.events.len(), 2, "one impact, then the apex");
    let names = [
        Wrt::Param("g"),
        Wrt::Param("e"),
        Wrt::InitialState("y"),
        Wrt::InitialState("v"),
    ];
    check_stop(&solution, &gradient, &names, &[g, e, h0, -u], |v| {
        let [g, e, h0, v0] = [v[0], v[1], v[2], v[3]];
        let w = (v0 * v0 + g * h0 * 2.0).sqrt();
        let t = (w + v0) / g + e * w / g;
        let height = (e * w).powi(2) / (g * 2.0);
        (t, height + t)
    });
}

/// A horizon shorter than the flight: the guard never fires, the solve ends at `t_f` in the
/// flight mode, as without a terminal guard.
#[test]
fn a_horizon_before_the_stop_ends_the_solve_as_usual() {
    let p = projectile::P { g: 9.81 };
    let start = projectile::X {
        x: 0.0,
        y: 1.0,
        vx: 1.0,
        vy: 2.0,
    };
    let solution = projectile::Model
        .solver()
        .tolerances(1e-10, 1e-12)
        .solve(0.0, 0.2, &start, &p)
        .expect("solve");
    assert_eq!((solution.t, solution.mode), (0.2, "flight"));
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
    let p = tank::P { k, level };
    let start = tank::X { h: level };
    let solver = tank::Model.solver().tolerances(1e-10, 1e-12);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 100.0, &start, &p)
        .expect("stops at once");
    let gradient = solver.gradient(0.0, 100.0, &start, &p).expect("gradient");
    assert_eq!((solution.t, solution.events.len()), (0.0, 1));
    let names = [Wrt::Param("k"), Wrt::Param("level"), Wrt::InitialState("h")];
    check_stop(&solution, &gradient, &names, &[k, level, level], |v| {
        let [k, level, h0] = [v[0], v[1], v[2]];
        let t = (h0.sqrt() - level.sqrt()) * 2.0 / k;
        (t, t)
    });
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
    let start = projectile::X {
        x: 0.5,
        y: 1.5,
        vx: 3.0,
        vy: 4.0,
    };
    let problem = projectile::Model::problem(0.0, 10.0, &start, &projectile::P { g: 9.81 });
    adjoint::every_tableau(
        "projectile",
        &projectile::Model,
        &problem,
        &HybridOptions::new(1e-10, 1e-12),
        true,
    );
    let p = tank::P {
        k: 0.3,
        level: 0.25,
    };
    let problem = tank::Model::problem(0.0, 100.0, &tank::X { h: 2.0 }, &p);
    adjoint::every_tableau(
        "tank",
        &tank::Model,
        &problem,
        &HybridOptions::new(1e-10, 1e-12),
        true,
    );
    let p = dae_decay::P { k: 0.7, level: 0.2 };
    let problem = dae_decay::Model::problem(0.0, 100.0, &dae_decay::X { y: 1.3 }, &p);
    adjoint::every_tableau(
        "DAE decay",
        &dae_decay::Model,
        &problem,
        &HybridOptions::new(1e-10, 1e-12),
        true,
    );
    let p = bounce_to_apex::P { g: 9.81, e: 0.8 };
    let start = bounce_to_apex::X { y: 1.2, v: -1.0 };
    let problem = bounce_to_apex::Model::problem(0.0, 10.0, &start, &p);
    adjoint::every_tableau(
        "ball to apex",
        &bounce_to_apex::Model,
        &problem,
        &HybridOptions::new(1e-10, 1e-12),
        true,
    );
}
