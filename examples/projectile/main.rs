//! Time to an event and its sensitivities: a projectile launched from a height `h0` at speed
//! `s` and angle `θ`, stopped by a terminal guard when it lands. The landing time `T` is the
//! solve's final time, the range `R = x(T)` its objective, and both depend on the launch —
//! through the initial state (`#[initial_state]`: `vx = s cos θ`, `vy = s sin θ`) and through
//! the moving final time (`dx(T)/dθ = ∂x/∂θ + ẋ dT/dθ`, which the terminal event gives).
//!
//! The example prints, for launch angles from 15° to 75°, `T`, `dT/dθ` (the terminal event's
//! time sensitivity), `R` and `dR/dθ` by forward sensitivities and by the adjoint, with the
//! largest relative difference from the closed form
//! `T = (vy + √(vy² + 2 g h0))/g`, `R = vx T`, differentiated in `θ` by hand:
//! `dvx/dθ = −vy`, `dvy/dθ = vx`, `dT/dθ = vx (1 + vy/D)/g` with `D = √(vy² + 2 g h0)`,
//! `dR/dθ = −vy T + vx dT/dθ`. Then it finds the angle of the longest throw by Newton's method
//! on `dR/dθ = 0` (the adjoint's gradient, the second derivative by a central difference of
//! it) and compares it with the closed form `tan θ* = s/√(s² + 2 g h0)`: below 45° for a
//! throw from above the ground. Last, it draws the trajectories (sampled until the stop:
//! samples after it are not recorded) into `projectile.svg`.
//!
//! Run with `cargo run --release -p hysens-examples --example projectile`.

use std::error::Error;

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;

use model::launch;
use plot::{LegendAt, XyFigure};

/// Gravitational acceleration (m/s²).
const G: f64 = 9.81;
/// Launch speed (m/s).
const SPEED: f64 = 12.0;
/// Launch height (m).
const H0: f64 = 1.5;
/// A horizon well after any landing (s): the terminal guard ends every solve before it.
const HORIZON: f64 = 100.0;
/// Tolerances of every solve: the flight is quadratic in time, which the ESDIRK tableau
/// integrates exactly, so the results are round-off and the event location's tolerance.
const TOLERANCES: (f64, f64) = (1e-10, 1e-12);

/// The closed form at angle `θ`: `(T, dT/dθ, R, dR/dθ)`.
fn closed_form(angle: f64) -> (f64, f64, f64, f64) {
    let (vx, vy) = (SPEED * angle.cos(), SPEED * angle.sin());
    let d = (vy * vy + 2.0 * G * H0).sqrt();
    let t = (vy + d) / G;
    let dt = vx * (1.0 + vy / d) / G;
    (t, dt, vx * t, -vy * t + vx * dt)
}

/// The launch at `angle` from `(0, H0)`.
fn launch_at(angle: f64) -> (launch::X, launch::P) {
    let start = launch::X {
        x: 0.0,
        y: H0,
        vx: 0.0,
        vy: 0.0,
    };
    let p = launch::P {
        g: G,
        speed: SPEED,
        angle,
    };
    (start, p)
}

fn main() -> Result<(), Box<dyn Error>> {
    let (rtol, atol) = TOLERANCES;
    let solver = launch::Model.solver().tolerances(rtol, atol);
    println!("Projectile from h0 = {H0} m at {SPEED} m/s, stopped when it lands (rtol {rtol:e})");
    check::model(&[
        "x' = vx, y' = vy, vx' = 0, vy' = -g in mode flight, from (x, y) = (0, h0) at \
         (vx, vy) = speed (cos θ, sin θ);",
        "flight -> stop (the end) when y falls through 0; cost: the range R = x at the landing",
    ]);
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "angle", "T (s)", "dT/dθ", "R (m)", "dR/dθ FSA", "dR/dθ adjoint", "worst"
    );
    let mut worst: f64 = 0.0;
    // The throw at 45° in the table against the closed form.
    let mut comparison = check::Comparison::new("the closed form of the flight").bound(
        rtol,
        "rtol: the flight is quadratic in time, which the tableau integrates exactly; what \
         remains is round-off and the location of the landing",
    );
    for degrees in (15..=75).step_by(10) {
        let angle = (degrees as f64).to_radians();
        let (start, p) = launch_at(angle);
        let solution = solver
            .sensitivities_to(Params::Only(&["angle"]), InitialStates::None)
            .solve(0.0, HORIZON, &start, &p)?;
        let gradient = solver.gradient(0.0, HORIZON, &start, &p)?;
        let landing = solution.events.len() - 1;
        let dt = solution
            .event_time_sensitivity(landing, "angle")
            .unwrap_or(f64::NAN);
        let dr_fsa = solution.cost_gradient("angle").unwrap_or(f64::NAN);
        let dr_adjoint = gradient.wrt("angle").unwrap_or(f64::NAN);
        let (t, dt_exact, r, dr_exact) = closed_form(angle);
        let relative = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
        let row_worst = [
            relative(solution.t, t),
            relative(dt, dt_exact),
            relative(solution.cost, r),
            relative(dr_fsa, dr_exact),
            relative(dr_adjoint, dr_exact),
        ]
        .into_iter()
        .fold(0.0, f64::max);
        worst = worst.max(row_worst);
        if degrees == 45 {
            comparison = comparison
                .row("T at 45° (s)", solution.t, t)
                .row("dT/dθ at 45° (s/rad)", dt, dt_exact)
                .row("R at 45° (m)", solution.cost, r)
                .row("dR/dθ at 45°, FSA (m/rad)", dr_fsa, dr_exact)
                .row("dR/dθ at 45°, adjoint (m/rad)", dr_adjoint, dr_exact);
        }
        println!(
            "{degrees:>5}° {:>14.10} {dt:>14.10} {:>14.10} {dr_fsa:>14.10} {dr_adjoint:>14.10} {row_worst:>9.1e}",
            solution.t, solution.cost
        );
    }
    println!("largest relative difference from the closed form: {worst:.1e}");

    let slope = |angle: f64| -> Result<f64, Box<dyn Error>> {
        let (start, p) = launch_at(angle);
        let gradient = solver.gradient(0.0, HORIZON, &start, &p)?;
        Ok(gradient.wrt("angle").unwrap_or(f64::NAN))
    };
    let best = longest_throw(slope)?;
    let exact = (SPEED / (SPEED * SPEED + 2.0 * G * H0).sqrt()).atan();
    println!(
        "longest throw: θ* = {:.12}° (closed form {:.12}°, difference {:.1e} rad)",
        best.to_degrees(),
        exact.to_degrees(),
        (best - exact).abs()
    );
    let verdict = comparison.row("θ* (rad)", best, exact).print();
    let trajectory = |angle: f64, times: &[f64]| -> Result<Vec<(f64, f64)>, Box<dyn Error>> {
        let (start, p) = launch_at(angle);
        let solution = solver.samples(times).solve(0.0, HORIZON, &start, &p)?;
        let mut path: Vec<(f64, f64)> = solution.samples.iter().map(|s| (s.y[0], s.y[1])).collect();
        path.push((solution.y[0], solution.y[1]));
        Ok(path)
    };
    let path = draw_trajectories(trajectory)?;
    println!("plot of the trajectories: {}", path.display());
    Ok(verdict.into_result()?)
}

/// Newton's method on `dR/dθ = 0` from 30°, with `slope(θ) = dR/dθ` (the adjoint's gradient)
/// and its derivative by a central difference of it (step 1e-4 rad: `R` is smooth, the
/// difference's error ~1e-8 relative, which only slows the last step).
fn longest_throw(
    slope: impl Fn(f64) -> Result<f64, Box<dyn Error>>,
) -> Result<f64, Box<dyn Error>> {
    let (mut angle, step) = (30f64.to_radians(), 1e-4);
    for _ in 0..20 {
        let curvature = (slope(angle + step)? - slope(angle - step)?) / (2.0 * step);
        let update = slope(angle)? / curvature;
        angle -= update;
        if update.abs() < 1e-13 {
            break;
        }
    }
    Ok(angle)
}

/// The trajectories at 20°, 35° and 60°, sampled every 5 ms until they land (the samples after
/// the stop are not recorded), with the landing points.
fn draw_trajectories(
    solve: impl Fn(f64, &[f64]) -> Result<Vec<(f64, f64)>, Box<dyn Error>>,
) -> Result<std::path::PathBuf, Box<dyn Error>> {
    let times: Vec<f64> = (0..=500).map(|k| k as f64 * 0.005).collect();
    let mut figure = XyFigure::new(
        "projectile",
        format!("A projectile from {H0} m at {SPEED} m/s, stopped when it lands"),
        "x (m)",
        "height (m)",
    )
    .legend(LegendAt::UpperRight);
    let mut landings = Vec::new();
    for degrees in [20.0f64, 35.0, 60.0] {
        let path = solve(degrees.to_radians(), &times)?;
        landings.extend(path.last().copied());
        figure = figure.line(format!("θ = {degrees}°"), vec![path]);
    }
    figure.dots("landing (the stop)", landings).save()
}
