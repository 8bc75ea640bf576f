//! Initial states that depend on the parameters: `#[initial_state] fn I(x: &X, p: &P) -> X`
//! gives the state the solve starts from, `y0 = I(t0, x, p)`, from the states the caller
//! passes and the parameters. Sensitivities and gradients include `∂y0/∂p = I_p` (forward:
//! the seeded columns `I_x S + I_p`; adjoint: `dG/dp += I_pᵀ dG/dy0`), and the initial-state
//! directions are those of the caller's `x` (`dG/dx = I_xᵀ dG/dy0`).
//!
//! Checked against closed forms differentiated with num-dual, and the adjoint against the
//! forward sensitivities (for every tableau, with an arbitrary seed `∂x/∂p`, and from
//! checkpoints: `support/adjoint.rs`):
//!
//! - a projectile launched at a speed and an angle (parameters) from a given point, stopped
//!   when it lands: its range and its derivative with respect to the angle (`dR/dθ = 0` at
//!   45° from the ground);
//! - a tank filled to a fraction of a given height (`h0 = fill · x`), an index-1 DAE outflow,
//!   solved to a fixed time.
#![deny(missing_docs)]

#[path = "support/adjoint.rs"]
mod adjoint;

use hysens::prelude::*;
use hysens::runtime::HybridOptions;
use num_dual::{Dual64, DualNum};

/// A projectile launched at `speed` and `angle` from the point the caller gives.
#[hysens::hybrid_model]
pub mod launch {
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

    /// Gravity and the launch.
    #[params]
    pub struct P {
        /// Gravitational acceleration.
        pub g: f64,
        /// Launch speed.
        pub speed: f64,
        /// Launch angle above the horizontal, in radians.
        pub angle: f64,
    }

    /// The launch: the caller's position, the velocity from the speed and the angle.
    #[initial_state]
    fn launched(x: &X, p: &P) -> X {
        X {
            x: x.x,
            y: x.y,
            vx: p.speed * p.angle.cos(),
            vy: p.speed * p.angle.sin(),
        }
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

    /// The ground ends the solve.
    #[guard(flight -> stop, falling)]
    fn lands(x: &X) -> f64 {
        x.y
    }

    /// Where it lands.
    #[cost(terminal)]
    fn range(x: &X) -> f64 {
        x.x
    }
}

/// A tank filled to `fill · x` of the caller's height, draining through a valve whose flow
/// is the algebraic variable: `h' = −q`, `0 = q − k h`.
#[hysens::hybrid_model]
pub mod filled_tank {
    /// The level.
    #[states]
    pub struct X {
        /// Height of the liquid.
        pub h: f64,
    }

    /// The outflow.
    #[algebraic]
    pub struct Z {
        /// Flow through the valve.
        pub q: f64,
    }

    /// Valve coefficient and fill fraction.
    #[params]
    pub struct P {
        /// Valve coefficient.
        pub k: f64,
        /// Fraction of the given height the tank is filled to.
        pub fill: f64,
    }

    /// Filled to a fraction of the given height.
    #[initial_state]
    fn filled(x: &X, p: &P) -> X {
        X { h: p.fill * x.h }
    }

    /// Draining.
    #[mode(initial)]
    fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
        (X { h: -z.q }, [z.q - p.k * x.h])
    }

    /// The outflow over the solve, `∫ q dt`, plus the final level squared.
    #[cost(integral)]
    fn outflow(z: &Z) -> f64 {
        z.q
    }

    /// The final level squared.
    #[cost(terminal)]
    fn final_level(x: &X) -> f64 {
        x.h * x.h
    }
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

/// `|a − b| ≤ tol·max(1, |b|)`, with a message naming what is compared.
fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:.16e} vs {b:.16e} (difference {:.2e})",
        (a - b).abs()
    );
}

/// The range from `(x0, h0)` at speed `s` and angle `θ`: `vx = s cos θ`, `vy = s sin θ`,
/// `T = (vy + √(vy² + 2 g h0))/g`, `R = x0 + vx T`. The caller's velocity is replaced by the
/// launch, so `dR/dvx0 = dR/dvy0 = 0`.
#[test]
fn the_range_and_its_gradient_include_the_launch() {
    let (g, speed, angle, x0, h0) = (9.81, 12.0, 0.6, 0.5, 1.5);
    let p = launch::P { g, speed, angle };
    // The caller's velocity is overwritten by the launch.
    let start = launch::X {
        x: x0,
        y: h0,
        vx: 100.0,
        vy: -100.0,
    };
    let solver = launch::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 100.0, &start, &p)
        .expect("the projectile lands");
    let gradient = solver.gradient(0.0, 100.0, &start, &p).expect("gradient");
    let range = |v: &[Dual64]| {
        let [g, speed, angle, x0, h0] = [v[0], v[1], v[2], v[3], v[4]];
        let (vx, vy) = (speed * angle.cos(), speed * angle.sin());
        let t = (vy + (vy * vy + g * h0 * 2.0).sqrt()) / g;
        x0 + vx * t
    };
    let values = [g, speed, angle, x0, h0];
    let exact = range(&values.map(Dual64::from_re)).re;
    assert_close("R (FSA)", solution.cost, exact, 1e-12);
    assert_close("R (adjoint)", gradient.cost, exact, 1e-12);
    let names = [
        Wrt::Param("g"),
        Wrt::Param("speed"),
        Wrt::Param("angle"),
        Wrt::InitialState("x"),
        Wrt::InitialState("y"),
    ];
    for (&wrt, exact) in names.iter().zip(closed_form_gradient(&values, range)) {
        let fsa = solution.cost_gradient(wrt).unwrap();
        let adjoint = gradient.wrt(wrt).unwrap();
        assert_close(&format!("dR/d{wrt:?} (FSA)"), fsa, exact, 1e-10);
        assert_close(&format!("dR/d{wrt:?} (adjoint)"), adjoint, exact, 1e-10);
        assert_close(&format!("dR/d{wrt:?}: FSA vs adjoint"), fsa, adjoint, 1e-10);
    }
    for velocity in ["vx", "vy"] {
        let wrt = Wrt::InitialState(velocity);
        assert_eq!(solution.cost_gradient(wrt), Some(0.0), "FSA d/d{velocity}");
        assert_eq!(gradient.wrt(wrt), Some(0.0), "adjoint d/d{velocity}");
    }
}

/// From the ground, the range `s² sin 2θ / g` is largest at 45°: its derivative with respect
/// to the angle vanishes there (to the solution's round-off).
#[test]
fn the_range_from_the_ground_is_stationary_at_45_degrees() {
    let p = launch::P {
        g: 9.81,
        speed: 12.0,
        angle: core::f64::consts::FRAC_PI_4,
    };
    let start = launch::X {
        x: 0.0,
        y: 0.0,
        vx: 0.0,
        vy: 0.0,
    };
    let gradient = launch::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .gradient(0.0, 100.0, &start, &p)
        .expect("gradient");
    assert_close("R", gradient.cost, 144.0 / 9.81, 1e-12);
    let slope = gradient.wrt("angle").unwrap();
    assert!(slope.abs() < 1e-10, "dR/dθ at 45° = {slope:e}");
}

/// The DAE tank from `h0 = fill · x`: `h = h0 e^{−kT}`, `∫ q dt = h0 (1 − e^{−kT})`, and
/// `G = h0 (1 − e^{−kT}) + h0² e^{−2kT}`. At rtol 1e-12 the exponential's global error is
/// ~1e-11 relative.
#[test]
fn a_dae_starts_from_the_mapped_state() {
    let (k, fill, x, t_end) = (0.4, 0.75, 2.0, 3.0);
    let p = filled_tank::P { k, fill };
    let start = filled_tank::X { h: x };
    let solver = filled_tank::Model.solver().tolerances(1e-12, 1e-14);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, t_end, &start, &p)
        .expect("solve");
    let gradient = solver.gradient(0.0, t_end, &start, &p).expect("gradient");
    let cost = |v: &[Dual64]| {
        let [k, fill, x] = [v[0], v[1], v[2]];
        let h0 = fill * x;
        let decay = (-k * t_end).exp();
        h0 * (-decay + 1.0) + h0 * h0 * decay * decay
    };
    let values = [k, fill, x];
    assert_close(
        "G",
        solution.cost,
        cost(&values.map(Dual64::from_re)).re,
        1e-10,
    );
    let names = [Wrt::Param("k"), Wrt::Param("fill"), Wrt::InitialState("h")];
    for (&wrt, exact) in names.iter().zip(closed_form_gradient(&values, cost)) {
        let fsa = solution.cost_gradient(wrt).unwrap();
        let adjoint = gradient.wrt(wrt).unwrap();
        assert_close(&format!("dG/d{wrt:?} (FSA)"), fsa, exact, 1e-9);
        assert_close(&format!("dG/d{wrt:?}: FSA vs adjoint"), fsa, adjoint, 1e-10);
    }
}

/// The no-heap adjoint against the forward sensitivities for every tableau, with an arbitrary
/// seed `∂x/∂p` (so the forward map `I_x S + I_p` is exercised with `S ≠ 0`), and from
/// checkpoints (`support/adjoint.rs`, 1e-10 relative).
#[test]
fn adjoint_equals_forward_for_every_tableau() {
    let p = launch::P {
        g: 9.81,
        speed: 12.0,
        angle: 0.6,
    };
    let start = launch::X {
        x: 0.5,
        y: 1.5,
        vx: 0.0,
        vy: 0.0,
    };
    let problem = launch::Model::problem(0.0, 100.0, &start, &p);
    let options = HybridOptions::new(1e-10, 1e-12);
    adjoint::every_tableau("launch", &launch::Model, &problem, &options, true);
    let p = filled_tank::P { k: 0.4, fill: 0.75 };
    let problem = filled_tank::Model::problem(0.0, 3.0, &filled_tank::X { h: 2.0 }, &p);
    let options = HybridOptions::new(1e-10, 1e-12);
    adjoint::every_tableau(
        "filled tank",
        &filled_tank::Model,
        &problem,
        &options,
        false,
    );
}
