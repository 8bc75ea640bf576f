//! A pendulum whose bob hits a wall: a constrained mechanical system with impacts, as a
//! robotics user meets it (a link hitting an obstacle), solved in Cartesian coordinates with
//! the rod as a constraint (a stabilized index-2 mode, `model.rs`) with forward sensitivities
//! to gravity, the rod's length, the restitution, the wall's position and the release angle
//! through every impact, and checked against the same pendulum in its angle (an ODE, solved at
//! rtol 1e-12).
//!
//! The example prints
//!
//! - the impacts: time and its sensitivities to the restitution `e` and the wall's distance
//!   `d`, with the largest difference from the angle model;
//! - the final state and the gradient of `G = y(T) + 0.1 λ(T) + ∫ x² dt` (the tension `λ` is a
//!   multiplier, an algebraic variable) by the forward sensitivities and by the adjoint,
//!   against the angle model, in a table with bounds;
//! - the drift of the rod's constraints over the samples;
//! - the paths of `pendulum_wall.svg` (the bob's position, `∂x/∂e`, `∂x/∂d`, the tension) and
//!   `pendulum_wall_path.svg` (the bob's path in the plane, the wall and the impacts).
//!
//! Run with `cargo run --release -p hysens-examples --example pendulum_wall`.

use std::error::Error;

use hysens::prelude::*;

#[path = "../common/check.rs"]
mod check;
mod model;
#[path = "../common/plot.rs"]
mod plot;
#[path = "../common/stats.rs"]
mod stats;

use model::{angle, cartesian};
use plot::{split_at, Figure, LegendAt, Panel, XyFigure};

/// Final time (s).
const T_END: f64 = 5.0;
/// Sample times, evenly spaced on `[0, T_END]`.
const N_SAMPLES: usize = 1001;
/// The parameters `(g, L, e, d, a)`: gravity (m/s²), rod length (m), restitution, the wall's
/// distance left of the pivot (m), the release angle from the downward vertical (rad).
const THETA: [f64; 5] = [9.81, 1.0, 0.8, 0.3, 1.0];
/// Their names.
const NAMES: [&str; 5] = ["g", "l", "e", "d", "a"];

fn main() -> Result<(), Box<dyn Error>> {
    let (rtol, atol) = (1e-10, 1e-12);
    let times: Vec<f64> = (0..N_SAMPLES)
        .map(|k| T_END * k as f64 / (N_SAMPLES - 1) as f64)
        .collect();
    let [g, l, e, d, a] = THETA;
    let p = cartesian::P { g, l, e, d, a };
    // The state is the release's (`#[initial_state]`); the one passed is not read.
    let unused = cartesian::X {
        x: 0.0,
        y: 0.0,
        u: 0.0,
        w: 0.0,
    };
    let solver = cartesian::Model
        .solver()
        .tolerances(rtol, atol)
        .samples(&times);
    let solution = solver
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(0.0, T_END, &unused, &p)?;
    let gradient = solver.gradient(0.0, T_END, &unused, &p)?;
    let reference = angle::Model
        .solver()
        .tolerances(1e-12, 1e-14)
        .sensitivities_to(Params::All, InitialStates::None)
        .solve(
            0.0,
            T_END,
            &angle::X { th: 0.0, om: 0.0 },
            &angle::P { g, l, e, d, a },
        )?;

    println!(
        "Pendulum and wall: g = {g} m/s², L = {l} m, e = {e}, wall at x = -{d} m, released at \
         {a} rad, t in [0, {T_END}] s, rtol {rtol:e}, atol {atol:e}"
    );
    check::model(&[
        "bob q = (x, y), velocity v = (u, w), rod |q| = L: q' = v + q μ, v' = (0, -g) - q λ, \
         0 = (|q|² - L²)/2, 0 = q·v (stabilized index 2);",
        "the wall: when x falls through -d, v⁺ = -e v⁻; G = y(T) + 0.1 λ(T) + ∫ x² dt; \
         reference: θ'' = -(g/L) sin θ with θ'⁺ = -e θ'⁻ at L sin θ = -d",
    ]);

    // The impacts next to the angle model's.
    println!();
    println!(
        "{:>2}  {:>16}  {:>14}  {:>14}  {:>9}",
        "k", "t (s)", "dt/de", "dt/dd", "Δ (rel)"
    );
    for (k, event) in solution.events.iter().enumerate() {
        let difference = reference.events.get(k).map_or(f64::NAN, |r| {
            std::iter::once((event.t, r.t))
                .chain(event.dt.iter().copied().zip(r.dt.iter().copied()))
                .fold(0.0f64, |m, (v, w)| m.max((v - w).abs() / w.abs().max(1.0)))
        });
        println!(
            "{:>2}  {:>16.13}  {:>14.10}  {:>14.10}  {:>9.1e}",
            k + 1,
            event.t,
            event.dt[2],
            event.dt[3],
            difference
        );
    }

    // The drift of the rod's constraints, and the adjoint against the forward gradient.
    let (position, velocity) = solution
        .samples
        .iter()
        .fold((0.0f64, 0.0f64), |(pm, vm), s| {
            let [x, y, u, w] = s.y;
            (
                pm.max((0.5 * (x * x + y * y - l * l)).abs()),
                vm.max((x * u + y * w).abs()),
            )
        });
    println!();
    println!(
        "constraint drift over the samples: |Φ| ≤ {position:.1e} m², |Φ_q v| ≤ {velocity:.1e} m²/s"
    );
    let mut largest = 0.0f64;
    for name in NAMES {
        let (adjoint, forward) = (gradient.wrt(name)?, solution.cost_gradient(name)?);
        largest = largest.max((adjoint - forward).abs() / forward.abs());
    }
    println!("FSA vs adjoint: largest relative difference {largest:.1e}");
    println!("{}", stats::line(&solution.stats));
    let verdict = against_reference(&solution, &gradient, &reference, rtol);
    for path in draw(&solution, d)? {
        println!("plot: {}", path.display());
    }
    Ok(verdict.into_result()?)
}

/// Prints the table of the final state and the gradient against the angle model; returns its
/// verdict.
fn against_reference(
    solution: &Solution<cartesian::X, 4, 2, 5>,
    gradient: &Gradient<4, 5>,
    reference: &Solution<angle::X, 2, 0, 5>,
    rtol: f64,
) -> check::Verdict {
    let l = THETA[1];
    let (th, om) = (reference.y[0], reference.y[1]);
    let mut comparison = check::Comparison::new("the angle ODE at rtol 1e-12").bound(
        1e3 * rtol,
        "1000·rtol: the index-2 solution's own error through four impacts, relative to each \
         value (measured 1.2e-8 at worst, on dG/dg = -0.034, off by 4e-10)",
    );
    comparison = comparison
        .row(format!("x({T_END}) (m)"), solution.y[0], l * th.sin())
        .row(format!("y({T_END}) (m)"), solution.y[1], -l * th.cos())
        .row(
            format!("u({T_END}) (m/s)"),
            solution.y[2],
            l * th.cos() * om,
        )
        .row("G", solution.cost, reference.cost);
    for name in NAMES {
        let exact = reference.cost_gradient(name).unwrap_or(f64::NAN);
        let forward = solution.cost_gradient(name).unwrap_or(f64::NAN);
        let adjoint = gradient.wrt(name).unwrap_or(f64::NAN);
        comparison = comparison
            .row(format!("dG/d{name} (FSA)"), forward, exact)
            .row(format!("dG/d{name} (adjoint)"), adjoint, exact);
    }
    comparison = comparison.row(
        "impacts in [0, 5]",
        solution.events.len() as f64,
        reference.events.len() as f64,
    );
    comparison.print()
}

/// Draws the two figures; returns their paths.
fn draw(
    solution: &Solution<cartesian::X, 4, 2, 5>,
    d: f64,
) -> Result<Vec<std::path::PathBuf>, Box<dyn Error>> {
    let impacts: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    let series = |value: &dyn Fn(usize) -> f64| {
        let points = (0..solution.samples.len()).map(|k| (solution.samples[k].t, value(k)));
        split_at(points, &impacts)
    };
    let sens = |of: &'static str, wrt: &'static str| {
        move |k: usize| solution.sample_sensitivity(k, of, wrt).unwrap_or(f64::NAN)
    };
    let wall = vec![vec![(0.0, -d), (T_END, -d)]];
    let title = "Pendulum hitting a wall (Cartesian, index 2): the bob and its sensitivities";
    let over_time = Figure::new("pendulum_wall", title, "time t (s)")
        .events("impact", impacts.clone())
        .panel(
            Panel::new("horizontal position x (m)")
                .line("x(t)", series(&|k| solution.samples[k].y[0]))
                .line("wall", wall)
                .legend(LegendAt::UpperRight),
        )
        .panel(
            Panel::new("∂x/∂e (m)")
                .line("∂x/∂e, restitution", series(&sens("x", "e")))
                .legend(LegendAt::LowerLeft),
        )
        .panel(
            Panel::new("∂x/∂d (dimensionless)")
                .line("∂x/∂d, wall distance", series(&sens("x", "d")))
                .legend(LegendAt::LowerLeft),
        )
        .panel(
            Panel::new("tension per length λ (1/s²)")
                .line("λ(t)", series(&|k| solution.samples[k].z[0]))
                .legend(LegendAt::UpperRight),
        )
        .save()?;
    let path: Vec<(f64, f64)> = solution.samples.iter().map(|s| (s.y[0], s.y[1])).collect();
    let circle: Vec<(f64, f64)> = (0..=200)
        .map(|k| {
            let phi = -std::f64::consts::PI * k as f64 / 200.0;
            (THETA[1] * phi.cos(), THETA[1] * phi.sin())
        })
        .collect();
    let impact_points = solution
        .events
        .iter()
        .map(|e| (e.y_before[0], e.y_before[1]));
    let in_plane = XyFigure::new(
        "pendulum_wall_path",
        "Pendulum hitting a wall: the bob's path (impacts dotted)",
        "x (m)",
        "y (m)",
    )
    .guide("the rod's circle", vec![circle])
    .guide("wall x = -d", vec![vec![(-d, -1.05), (-d, 0.0)]])
    .line("bob", vec![path])
    .dots("impacts", impact_points.collect())
    .legend(LegendAt::UpperRight)
    .save()?;
    Ok(vec![over_time, in_plane])
}
